/** How Markdown elements render here: links follow the link policy, tables scroll on phones. */
import type { ComponentProps } from "react";
import type { Theme } from "../engine/theme.js";
import { bodyLabels } from "./texts.js";

function Link({ href = "", children, ...rest }: ComponentProps<"a">) {
  const external = /^https?:\/\//i.test(href);
  return (
    <a href={href} {...rest} {...(external ? { target: "_blank", rel: "noopener noreferrer" } : {})}>
      {children}
    </a>
  );
}

/**
 * The engine renders Markdown elements without telling them the article's language, so a
 * table's region takes the site's default-language label (Portuguese). No English article
 * has a Markdown table yet; blocks, which do get the language, label theirs per language.
 */
function Table(props: ComponentProps<"table">) {
  return (
    <div className="table-scroll" role="region" aria-label={bodyLabels.pt.table} tabIndex={0}>
      <table {...props} />
    </div>
  );
}

export const markdownComponents: Theme["markdownComponents"] = { a: Link, table: Table };
