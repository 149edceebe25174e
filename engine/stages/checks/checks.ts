/**
 * Stage 4 — checks: what needs the whole site. Every internal link written in Markdown must
 * lead to a page, a file of public/ or a file the build writes (link-check.ts; #anchors are
 * checked on the rendered pages, before the site is published), then the theme's own checks
 * (a card pointing nowhere). Returns the errors; changes nothing.
 */
import { staged, type Staged } from "../../lib/errors.js";
import type { SiteContent } from "../load/content.js";
import { markdownLinkErrors, renderedLinkErrors, type CheckedPage } from "./rendered-links.js";
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

/** The whole-site checks: nothing to hand on, only what is wrong. */
export async function checkStage({ content, table, markdown, addresses, earlier }: CheckInput, theme: Theme): Promise<Staged<null>> {
  const targets = linkTargets(content, table, addresses, earlier);
  return staged(null, [...markdownLinkErrors(content, markdown, targets), ...((await theme.check?.(content, table)) ?? [])]);
}

/** After render: every link and #anchor of every page as rendered (the assets' `files` are link targets too). */
export function renderedLinkStage(
  { content, table, pages, markdown, addresses, earlier, files }: Omit<CheckInput, "markdown"> & { pages: readonly CheckedPage[]; markdown: MarkdownBodies; files: readonly string[] },
): Staged<null> {
  return staged(null, renderedLinkErrors(pages, linkTargets(content, table, addresses, earlier, files), markdown));
}
