/**
 * Stage 3 — Markdown: every article's body rendered to HTML (markdown.ts), again only when
 * its text or a value it read (a data file, a block's site data) changed. An unchanged body
 * comes from the last run (watch mode) or from the persistent cache.
 */
import type { SiteContent } from "../load/content.js";
import { sourceHashOf } from "../load/content.js";
import type { BuildCache } from "../../incremental/build-cache.js";
import type { DepValues, Deps, DepId } from "../../incremental/dependencies.js";
import { isJsonSafe, seal, unseal } from "../../lib/hash.js";
import { renderMarkdown, type MarkdownResult } from "./article-markdown.js";
import type { Theme } from "../../theme.js";

/** One article's Markdown, with the text and the values it was rendered from. */
export interface MarkdownEntry {
  sourceHash: string;
  deps: Deps;
  result: MarkdownResult;
}

/** Each article's rendered Markdown, by file. */
export type MarkdownBodies = ReadonlyMap<string, MarkdownEntry>;

export interface MarkdownStageInput {
  content: SiteContent;
  theme: Theme;
  /** The values bodies may read (content only: data files, collections, block data). */
  values: DepValues;
  /** The bodies of the last run (watch mode); empty for a one-shot build. */
  previous: MarkdownBodies;
  cache: BuildCache;
  /** The full pipeline for every file: the reference the lean one must equal (tests). */
  reference?: boolean;
}

/** Renders every article's Markdown that changed; returns every article's. */
export function markdownStage({ content, theme, values, previous, cache, reference }: MarkdownStageInput): Map<string, MarkdownEntry> {
  const bodies = new Map<string, MarkdownEntry>();
  for (const article of content.articles) {
    const sourceHash = sourceHashOf(article);
    let entry = previous.get(article.file);
    if (entry?.sourceHash !== sourceHash || !values.unchanged(entry.deps)) {
      const cached = cache.files.get(article.file);
      const before = cached?.sourceHash === sourceHash ? unseal(cached.markdown) : undefined;
      if (before && values.unchanged(before.deps)) {
        const { deps, ...result } = before;
        entry = { sourceHash, deps, result: { ...result, reads: Object.keys(deps) as DepId[], errors: [] } };
      } else {
        const result = renderMarkdown(article, content, theme, { lean: !reference });
        const deps = Object.fromEntries(result.reads.map((id) => [id, values.hash(id)]));
        entry = { sourceHash, deps, result };
        const { html, headings, links, warnings, images } = result;
        if (cache.enabled && cached?.sourceHash === sourceHash && result.errors.length === 0 && isJsonSafe({ headings, links, warnings, images })) {
          cached.markdown = seal({ deps, html, headings, links, warnings, images });
        }
      }
    }
    bodies.set(article.file, entry);
  }
  return bodies;
}
