/**
 * What the Markdown's components and the other stages read without the Markdown parser
 * (article-markdown.ts, which loads unified, remark and rehype only when a body is parsed:
 * lib/packages.ts): the context the blocks of a body are rendered in, the language a theme's
 * Markdown component reads, and the data of the site's blocks (the stage checks a body's
 * dependencies on it; the render stage reads it).
 */
import { createContext, useContext } from "react";
import type { SiteContent } from "../load/content.js";
import type { BlockDefinition, HeadingLevel, Theme } from "../../theme.js";

/** A directive resolved to its block and validated data. */
export interface ResolvedBlock {
  definition: BlockDefinition;
  data?: unknown;
  attributes: Record<string, string>;
  headingLevel: HeadingLevel;
}

/** The blocks of the article being rendered, read by the `cafe-block` slots. */
export const BlockContext = createContext<{ blocks: readonly ResolvedBlock[]; lang: string }>({ blocks: [], lang: "" });

/** The language of the article being rendered, for a theme's Markdown components (a table's label). */
export function useMarkdownLanguage(): string {
  return useContext(BlockContext).lang;
}

/** The data a site block (`source: { from: "site" }`) shows, computed once per run (`memo`, by block name). */
export function siteBlockData(content: SiteContent, theme: Theme, name: string, memo: Map<string, unknown>): unknown {
  const byName = memo;
  if (!byName.has(name)) {
    const source = theme.blocks.find((b) => b.name === name)?.source;
    byName.set(name, source?.from === "site" ? source.data(content) : undefined);
  }
  return byName.get(name);
}
