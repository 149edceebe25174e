/**
 * Stage 4 — checks: what needs the whole site. Every internal link written in Markdown must
 * lead to a page, a file of public/ or a file the build writes (link-check.ts; #anchors are
 * checked on the rendered pages, before the site is published), then the theme's own checks
 * (a card pointing nowhere). Returns the errors; changes nothing.
 */
import type { ContentError } from "../../lib/errors.js";
import type { SiteContent } from "../load/content.js";
import { markdownLinkErrors } from "./rendered-links.js";
import { linkTargets, type Addresses, type EarlierArticles } from "../routes/addresses.js";
import type { MarkdownBodies } from "../markdown/markdown-stage.js";
import type { RouteTable } from "../routes/routes.js";
import type { Theme } from "../../theme.js";

export interface CheckInput {
  content: SiteContent;
  table: RouteTable;
  markdown: MarkdownBodies;
  addresses: Addresses;
  earlier: EarlierArticles;
}

/** The errors of the whole-site checks. */
export async function checkStage({ content, table, markdown, addresses, earlier }: CheckInput, theme: Theme): Promise<ContentError[]> {
  const targets = linkTargets(content, table, addresses, earlier);
  return [...markdownLinkErrors(content, markdown, targets), ...((await theme.check?.(content, table)) ?? [])];
}
