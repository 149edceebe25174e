/**
 * Stage 3 — Markdown: every article's body rendered to HTML (article-markdown.ts), again only
 * when its text or a value it read (a data file, a block's site data) changed. An unchanged
 * body comes from the last run (watch mode) or from what the persistent cache kept.
 *
 * Plain data in and out: the stage reads the cache's entries and returns what the cache
 * should keep; the orchestrator stores it.
 */
import type { FailedArticle, SiteContent } from "../load/content.js";
import type { FileEntry } from "../../incremental/build-cache.js";
import { DepValues, type Deps, type DepId } from "../../incremental/dependencies.js";
import { hashOf, isJsonSafe, seal, unseal } from "../../lib/hash.js";
import { markdownSession, renderMarkdown, siteBlockData, type MarkdownResult } from "./article-markdown.js";
import type { RouteTable } from "../routes/routes.js";
import { staged, type Staged } from "../../lib/errors.js";
import type { Theme } from "../../theme.js";

/** One article's Markdown, with the text and the values it was rendered from. */
export interface MarkdownEntry {
  sourceHash: string;
  deps: Deps;
  result: MarkdownResult;
  /** The hash of `result.html` (a page's dependency on a body without images). */
  htmlHash: string;
  /** The route of a body whose article did not load (its front matter failed): it has no page. */
  unpublished?: string;
}

/** Each article's rendered Markdown, by file. */
export type MarkdownBodies = ReadonlyMap<string, MarkdownEntry>;

export interface MarkdownStageInput {
  content: SiteContent;
  table: RouteTable;
  /** The bodies of the last run (watch mode); empty for a one-shot build. */
  previous: MarkdownBodies;
  /** What the persistent cache kept, by file (read only). */
  cached: ReadonlyMap<string, FileEntry>;
  /** The full pipeline for every file: the reference the lean one must equal (tests). */
  reference?: boolean;
  /** Whether there is a persistent cache to keep bodies for (sealing them costs a hash each). */
  keep: boolean;
  /**
   * Articles whose front matter failed: a body among them is rendered too, for its checks
   * (blocks, links, #anchors) in the same run; never kept, never a page.
   */
  failed?: ReadonlyMap<string, FailedArticle>;
}

export interface MarkdownStageOutput {
  bodies: Map<string, MarkdownEntry>;
  /** Bodies rendered in this run that the cache should keep with their article's entry. */
  keep: Map<string, Pick<FileEntry, "sourceHash" | "markdown">>;
}

/** Renders every article's Markdown that changed; returns every article's. */
export function markdownStage({ content, table, previous, cached, reference, keep: keeping, failed }: MarkdownStageInput, theme: Theme): Staged<MarkdownStageOutput> {
  const session = markdownSession();
  const values = new DepValues({ content, table, block: (name) => siteBlockData(content, theme, name, session.blockData) });
  const bodies = new Map<string, MarkdownEntry>();
  const keep: MarkdownStageOutput["keep"] = new Map();
  for (const article of content.articles) {
    let entry: MarkdownEntry;
    try {
      entry = bodyOf(article);
    } catch (error) {
      // A block reads a file that did not load (its own errors are reported): this body, and
      // every check of it, is left out of this run.
      if (content.unavailable.length === 0) throw error;
      continue;
    }
    bodies.set(article.file, entry);
  }
  for (const { body } of failed?.values() ?? []) {
    if (!body) continue;
    try {
      const result = renderMarkdown(body, content, theme, { lean: !reference, session });
      bodies.set(body.file, { sourceHash: body.sourceHash, deps: {}, result, htmlHash: hashOf(result.html), unpublished: body.route });
    } catch {
      // What the body needs did not load (its errors are reported): its checks wait for the next run.
    }
  }
  const results = [...bodies.values()].map((b) => b.result);
  return staged({ bodies, keep }, results.flatMap((r) => r.errors), results.flatMap((r) => r.warnings));

  /** One article's body: the last run's or the cache's when nothing it read changed, else rendered now. */
  function bodyOf(article: SiteContent["articles"][number]): MarkdownEntry {
    const { sourceHash } = article;
    let entry = previous.get(article.file);
    if (entry?.sourceHash !== sourceHash || !values.unchanged(entry.deps)) {
      const kept = cached.get(article.file);
      const before = kept?.sourceHash === sourceHash ? unseal(kept.markdown) : undefined;
      if (before && values.unchanged(before.deps)) {
        const { deps, ...result } = before;
        entry = { sourceHash, deps, result: { ...result, reads: Object.keys(deps) as DepId[], errors: [] }, htmlHash: hashOf(result.html) };
      } else {
        const result = renderMarkdown(article, content, theme, { lean: !reference, session });
        const deps = Object.fromEntries(result.reads.map((id) => [id, values.hash(id)]));
        entry = { sourceHash, deps, result, htmlHash: hashOf(result.html) };
        const { html, headings, links, warnings, images } = result;
        if (keeping && result.errors.length === 0 && isJsonSafe({ headings, links, warnings, images })) {
          keep.set(article.file, { sourceHash, markdown: seal({ deps, html, headings, links, warnings, images }) });
        }
      }
    }
    return entry;
  }
}
