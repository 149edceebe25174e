/**
 * How Markdown elements render: links follow the link policy, tables scroll on phones, and
 * `cafe-block` slots (directives) render their block.
 */
import { useContext, type ComponentProps, type ReactNode } from "react";
import { BlockContext } from "./block-context.js";
import { BeforeAfter, Hashtags, Pillars, Plan, References, Roadmap, StatCards, WinnerCards } from "./blocks/data-blocks.js";
import { ScoreTable, ToolTable } from "./blocks/tables.js";
import { Island } from "../client/island.js";
import { EditionsCarousel, type CarouselEdition } from "../client/islands/editions-carousel.js";
import type { LeafBlockName } from "../engine/schema.js";
import type { BlockProps } from "./blocks/heading.js";

function Link({ href = "", children, ...rest }: ComponentProps<"a">) {
  const external = /^https?:\/\//i.test(href);
  return (
    <a href={href} {...rest} {...(external ? { target: "_blank", rel: "noopener noreferrer" } : {})}>
      {children}
    </a>
  );
}

function Table(props: ComponentProps<"table">) {
  return (
    <div className="table-scroll" role="region" aria-label="Tabela" tabIndex={0}>
      <table {...props} />
    </div>
  );
}

const leafRenderers: { [N in LeafBlockName]: (props: BlockProps<N>) => ReactNode } = {
  "stat-cards": StatCards,
  pillars: Pillars,
  plan: Plan,
  roadmap: Roadmap,
  references: References,
  hashtags: Hashtags,
  "before-after": BeforeAfter,
  "tool-table": ToolTable,
  "winner-cards": WinnerCards,
  "score-table": ScoreTable,
};

function BlockSlot({ "data-block": index, children }: { "data-block"?: string; children?: ReactNode }) {
  const block = useContext(BlockContext)[Number(index)];
  if (!block) return null;
  switch (block.name) {
    case "quote":
      return (
        <figure className="pull-quote">
          <blockquote>{children}</blockquote>
          <figcaption>— {block.attributes.author}</figcaption>
        </figure>
      );
    case "summary":
    case "note":
      return (
        <aside className={`callout callout-${block.name}`} aria-label={block.attributes.title ?? undefined}>
          {block.attributes.title ? <p className="callout-title">{block.attributes.title}</p> : null}
          {children}
        </aside>
      );
    case "editions-carousel": {
      const editions = block.data as CarouselEdition[];
      return (
        <Island name="editions-carousel" props={{ editions, level: block.headingLevel }}>
          <EditionsCarousel editions={editions} level={block.headingLevel} />
        </Island>
      );
    }
    default: {
      const Render = leafRenderers[block.name as LeafBlockName] as (p: { data: unknown; level: number }) => ReactNode;
      return <Render data={block.data} level={block.headingLevel} />;
    }
  }
}

export const markdownComponents = {
  a: Link,
  table: Table,
  "cafe-block": BlockSlot,
} as Record<string, unknown> as import("hast-util-to-jsx-runtime").Components;
