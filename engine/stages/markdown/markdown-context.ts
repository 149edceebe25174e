/**
 * What the Markdown's components and the other stages read without the Markdown parser
 * (article-markdown.ts, which loads unified, remark and rehype only when a body is parsed:
 * lib/packages.ts): the context the blocks of a body are rendered in, the language a theme's
 * Markdown component reads, and the data of the site's blocks (the stage checks a body's
 * dependencies on it; the render stage reads it).
 */
import { createContext, useContext } from "react";
import type { BlockDefinition, HeadingLevel } from "../../theme.js";
import { outcomeIn, outcomeValue, type SiteValues } from "../../lib/site-values.js";

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

/** The data a site block (`source: { from: "site" }`) shows, as the run computed it; what its function threw is thrown. */
export function siteBlockData(values: SiteValues, name: string): unknown {
  const outcome = outcomeIn(values.blocks, name);
  return outcome && outcomeValue(outcome);
}

/**
 * What one run of the Markdown stage uses for every body: the parser's pipelines per language
 * (made on first use, article-markdown.ts), and the site blocks' data as the run computed it
 * once (site-values.ts). Made per run (and per worker), never kept between runs.
 */
export interface MarkdownSession {
  pipelines: Map<string, unknown>;
  values?: SiteValues;
  /** The front-matter keys the theme knows: one list for every body of the run. */
  knownKeys?: string[];
}

export const markdownSession = (values?: SiteValues): MarkdownSession => ({ pipelines: new Map(), values });
