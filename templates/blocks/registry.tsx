/**
 * The blog's structured blocks: each directive's name, where its data comes from (and the
 * schema it must satisfy), and the component that renders it.
 */
import type { BlockDefinition, BlockProps } from "../../engine/index.js";
import { CarouselIsland } from "../islands.js";
import type { CarouselEdition, CarouselLabels, EditionsCarouselProps } from "../../client/islands/editions-carousel.js";
import { blockSchemas, type Language, type LeafBlockName } from "../schema.js";
import { editionsOf, type CafeContent } from "../page-context.js";
import { BeforeAfter, Hashtags, Pillars, Plan, References, Roadmap, StatCards, WinnerCards } from "./data-blocks.js";
import { ScoreTable, ToolTable } from "./tables.js";

const dataBlocks: { [N in LeafBlockName]: BlockDefinition["component"] } = {
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

function Quote({ attributes, children }: BlockProps) {
  return (
    <figure className="pull-quote">
      <blockquote>{children}</blockquote>
      <figcaption>— {attributes.author}</figcaption>
    </figure>
  );
}

/** `:::summary` and `:::note`: a highlighted box with an optional title. */
function callout(name: string) {
  return function Callout({ attributes, children }: BlockProps) {
    return (
      <aside className={`callout callout-${name}`} aria-label={attributes.title ?? undefined}>
        {attributes.title ? <p className="callout-title">{attributes.title}</p> : null}
        {children}
      </aside>
    );
  };
}

/**
 * The editions and the carousel's labels in each language; the block takes its page's. Plain
 * data: the engine hashes it to know which bodies to render again.
 */
interface EditionsData {
  editions: CarouselEdition[];
  labels: Record<Language, CarouselLabels>;
}

function Editions({ data, level, lang }: BlockProps<EditionsData>) {
  const props: EditionsCarouselProps = { editions: data.editions, level, labels: lang === "en" ? data.labels.en : data.labels.pt };
  return <CarouselIsland wake="intent" props={props} />;
}

export const blocks: BlockDefinition<CafeContent>[] = [
  ...Object.entries(dataBlocks).map(([name, component]) => ({
    name,
    source: { from: "data" as const, schema: blockSchemas[name as LeafBlockName] },
    component,
  })),
  {
    name: "editions-carousel",
    // Editions of articles still in draft are left out until they are published.
    source: {
      from: "site",
      data: (content): EditionsData => {
        const site = content.site.value;
        const labels = (lang: Language): CarouselLabels => ({ ...site.labels[lang].editions, readTime: site.labels[lang].readTime });
        return {
          editions: editionsOf(content).filter((e) => !content.draftRoutes.has(e.route)),
          labels: { pt: labels("pt"), en: labels("en") },
        };
      },
    },
    component: Editions as BlockDefinition["component"],
  },
  { name: "quote", source: { from: "children" }, required: { author: 'write it as :::quote{author="Nome"}' }, component: Quote as BlockDefinition["component"] },
  { name: "summary", source: { from: "children" }, component: callout("summary") as BlockDefinition["component"] },
  { name: "note", source: { from: "children" }, component: callout("note") as BlockDefinition["component"] },
];
