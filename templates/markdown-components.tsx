/** How Markdown elements render here: links follow the link policy, tables scroll on phones. */
import type { ComponentProps } from "react";
import type { Theme } from "../engine/index.js";
import { useMarkdownLanguage } from "../engine/index.js";
import { bodyLabelsFor } from "./texts.js";

function Link({ href = "", children, ...rest }: ComponentProps<"a">) {
  const external = /^https?:\/\//i.test(href);
  return (
    <a href={href} {...rest} {...(external ? { target: "_blank", rel: "noopener noreferrer" } : {})}>
      {children}
    </a>
  );
}

/** A table scrolls sideways on a phone, in a region labelled in the article's language. */
function Table(props: ComponentProps<"table">) {
  return (
    <div className="table-scroll" role="region" aria-label={bodyLabelsFor(useMarkdownLanguage()).table} tabIndex={0}>
      <table {...props} />
    </div>
  );
}

export const markdownComponents: Theme["markdownComponents"] = { a: Link, table: Table };
