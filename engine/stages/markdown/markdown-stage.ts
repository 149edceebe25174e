/**
 * Stage 3 — Markdown: every article's body rendered to HTML (article-markdown.ts), again only
 * when its text or a value it read (a data file, a block's site data) changed. An unchanged
 * body comes from the last run (watch mode) or from what the persistent cache kept.
 *
 * Plain data in and out: the stage reads the cache's entries and returns what the cache
 * should keep; the orchestrator stores it.
 */
import type { Article, FailedArticle, SiteContent } from "../load/content.js";
import type { ContentIssue, ContentWarning } from "../../lib/errors.js";
import type { MarkdownImage } from "./image-slots.js";
import { dep, DepValues, type Deps, type DepId } from "../../incremental/dependencies.js";
import { hashOf, isJsonSafe } from "../../lib/hash.js";
import type { InternalLink, MarkdownResult } from "./article-markdown.js";
import { siteBlockData, type MarkdownSession } from "./markdown-context.js";
import type { CachedFile, TextAt } from "../../incremental/build-cache.js";
import { loadPackage } from "../../lib/packages.js";
import type { SiteValues } from "../../lib/site-values.js";
import type { RouteTable } from "../routes/routes.js";
import { staged, type Staged } from "../../lib/errors.js";
import type { Theme } from "../../theme.js";

/** One article's Markdown, with the text and the values it was rendered from. */
export interface MarkdownEntry {
  sourceHash: string;
  deps: Deps;
  /** The body; `html` undefined for a body the persistent cache kept: its text is in the store's packs, read when a page renders it (pipeline/render-pages.ts). */
  result: BodyResult;
  /** The hash of `result.html` (a page's dependency on a body without images). */
  htmlHash: string;
  /** The route of a body whose article did not load (its front matter failed): it has no page. */
  unpublished?: string;
}

/** A body's Markdown as a run has it: the HTML only when rendered in this run or read for a page (a kept page never needs it). */
export type BodyResult = Omit<MarkdownResult, "html"> & { html?: string };

/**
 * What the persistent cache keeps of a body besides its HTML (kept as the entry's text,
 * outside the store's shards): the HTML's hash and what the checks read, with the hashes of
 * what it read.
 */
export interface KeptBody {
  deps: Deps;
  htmlHash: string;
  headings: { id: string; text: string; depth: number }[];
  links: InternalLink[];
  warnings: ContentWarning[];
  images: MarkdownImage[];
  /** The keys of the block data it found valid (article-markdown.ts): the next parse of the body takes such data unvalidated. */
  valid?: string[];
}

/**
 * A body as the cache keeps it with its article's entry: for one text (its hash); its HTML is the
 * entry's text (incremental/build-cache.ts). Not sealed: the store's shards are checked whole.
 */
export interface CachedBody extends CachedFile {
  markdown?: KeptBody;
}

/** Each article's rendered Markdown, by file. */
export type MarkdownBodies = ReadonlyMap<string, MarkdownEntry>;

export interface MarkdownStageInput {
  content: SiteContent;
  table: RouteTable;
  /** The listings and site blocks' data of this run (a body's site block reads them). */
  values: SiteValues;
  /** The keys of the theme's parts (incremental/code-keys.ts): a body is kept while its Markdown parts' and blocks' keys are the same. */
  code?: Readonly<Record<string, string>>;
  /** The bodies of the last run (watch mode); empty for a one-shot build. */
  previous: MarkdownBodies;
  /** What the persistent cache kept, by file (read only). */
  cached: ReadonlyMap<string, CachedBody>;
  /**
   * Articles whose front matter failed: a body among them is rendered too, for its checks
   * (blocks, links, #anchors) in the same run; never kept, never a page.
   */
  failed?: ReadonlyMap<string, FailedArticle>;
}

export interface MarkdownStageOutput {
  bodies: Map<string, MarkdownEntry>;
  /** Bodies rendered in this run that the cache should keep with their article's entry. */
  keep: Map<string, CachedBody>;
  /** How many of the articles' bodies were parsed in this run (the others were kept). */
  parsed: number;
  /** The articles' files whose bodies were made in this run, in the articles' order (the others were kept). */
  made: string[];
  /** The files whose entry in `bodies` is not the very one of `since` (parsed now, or taken from the cache's store): a save's pages compare those alone. */
  fresh: string[];
  /** The last run's bodies this run started from (`MarkdownStageInput.previous`). */
  since: ReadonlyMap<string, MarkdownEntry>;
}

/**
 * A body rendered now: its entry, and whether the cache keeps it (not when it has errors or
 * cannot be kept). The kept value is made of the entry's own parts (`keptBody`): a body
 * crossing from a worker carries its HTML once, not twice.
 */
export interface RenderedBody {
  entry: MarkdownEntry;
  keep?: true;
  /**
   * Where its HTML was written in the store as it came (pipeline/site-builder.ts), when it is
   * kept: `entry.result.html` is then undefined, read back for the pages that show it.
   */
  textAt?: TextAt;
}

/** What the cache keeps of a body. */
const keptBody = ({ deps, htmlHash, result: { headings, links, warnings, images, valid } }: MarkdownEntry): KeptBody => ({ deps, htmlHash, headings, links, warnings, images, ...(valid ? { valid } : {}) });

/** The place of a body being rendered in the stage's map of bodies (`markdownStage`): never left there. */
const RENDERING = Object.freeze({}) as MarkdownEntry;

/**
 * The empty list of every body without headings, links, images, warnings or errors (`heldAlike`;
 * the errors of every body the cache kept, which keeps only bodies without errors): one list,
 * never written to.
 */
const NONE = Object.freeze([]) as unknown as never[];

/**
 * Renders the bodies of some articles (`renderBodies`, in order): on this thread, or in
 * slices on the workers (pipeline/threads.ts). `aside`: articles that are not in the content
 * (their front matter failed), rendered on this thread, which has them.
 */
export type RenderBodies = (articles: readonly Article[], options?: { aside?: boolean; valid?: ValidBlockData }) => Promise<RenderedBody[]>;

/** By file, the keys of the block data the last parse of each body found valid (`KeptBody.valid`). */
export type ValidBlockData = Readonly<Record<string, readonly string[]>>;

/** The values a body may read (data files, site blocks' data, the theme's Markdown parts' code), hashed: made once per run (and per worker). */
export const bodyValues = (content: SiteContent, table: RouteTable, values: SiteValues, code?: Readonly<Record<string, string>>) =>
  new DepValues({ content, table, block: (name) => siteBlockData(values, name), values, code });

/**
 * The compute core of the stage, for some articles: each body rendered (article-markdown.ts,
 * whose parser is loaded here, when a body is first parsed: lib/packages.ts), with the hashes
 * of what it read and of its HTML, and, when `keep`, whether the cache can keep it.
 */
export async function renderBodies(
  articles: readonly Article[],
  content: SiteContent,
  theme: Theme,
  values: DepValues,
  options: { lean: boolean; keep: boolean; session: MarkdownSession; valid?: ValidBlockData },
): Promise<RenderedBody[]> {
  if (articles.length === 0) return [];
  const { renderMarkdown } = await loadPackage("unified", () => import("./article-markdown.js"));
  const code = (part: string) => values.hash(dep.code(part));
  return articles.map((article) => {
    const valid = options.valid?.[article.file];
    const result = renderMarkdown(article, content, theme, { lean: options.lean, session: options.session, known: { valid: Array.isArray(valid) ? valid : [], code } });
    const { sourceHash } = article;
    // A block of it reads a file that did not load: its hashes are never asked for.
    const deps = result.unavailable === undefined ? Object.fromEntries(result.reads.map((id) => [id, values.hash(id)])) : {};
    const htmlHash = hashOf(result.html);
    const entry = { sourceHash, deps, result, htmlHash };
    const { headings, links, warnings, images } = result;
    const keepable = options.keep && result.errors.length === 0 && result.unavailable === undefined && isJsonSafe({ headings, links, warnings, images });
    return keepable ? { entry, keep: true } : { entry };
  });
}

/**
 * Every article's Markdown: the stage decides which bodies are the last run's or the cache's
 * (nothing they read changed), has the others rendered (`render`), and returns every body
 * with what the cache should keep.
 */
export async function markdownStage({ content, table, values: siteData, code, previous, cached, failed }: MarkdownStageInput, render: RenderBodies): Promise<Staged<MarkdownStageOutput>> {
  const values = bodyValues(content, table, siteData, code);
  /** What the last parse of each body parsed now found valid among its blocks' data (`knownBody`). */
  const valid: Record<string, readonly string[]> = {};
  /** The lists of what kept bodies read, by their ids (`readsOf`). */
  const readLists = new Map<string, DepId[]>();
  const changed: Article[] = [];
  const fresh: string[] = [];
  // Every body in the articles' order, in one pass: a kept one as it is, one to render held
  // a place (`RENDERING`) that its body takes once rendered (a save of one article in
  // thousands makes no other map of them all and walks them once).
  const bodies = new Map<string, MarkdownEntry>();
  for (const article of content.articles) {
    const entry = knownBody(article);
    if (entry) {
      bodies.set(article.file, entry);
      if (entry !== previous.get(article.file)) fresh.push(article.file);
      continue;
    }
    bodies.set(article.file, RENDERING);
    changed.push(article);
    fresh.push(article.file);
  }
  const made = await render(changed, { valid });
  const keep: MarkdownStageOutput["keep"] = new Map();
  /** The hashes of what bodies read that read no route's value, by their JSON: one object for the bodies that read the same. */
  const depsAlike = new Map<string, Deps>();
  for (const [i, article] of changed.entries()) {
    const body = made[i]!;
    heldAlike(body.entry);
    // A block of it reads a file that did not load (its own errors are reported): this body,
    // and every check of it, is left out of this run.
    if (body.entry.result.unavailable !== undefined) {
      bodies.delete(article.file);
      continue;
    }
    bodies.set(article.file, body.entry);
    if (body.keep) keep.set(article.file, { sourceHash: article.sourceHash, markdown: keptBody(body.entry), ...(body.textAt ? { textAt: body.textAt } : { text: body.entry.result.html }) });
  }
  // The bodies of the articles whose front matter failed: checked in the same run, never kept.
  const aside = [...(failed?.values() ?? [])].flatMap((f) => (f.body ? [f.body] : []));
  for (const [i, { entry }] of (await render(aside, { aside: true })).entries()) {
    // What it needs did not load (its errors are reported): its checks wait for the next run.
    if (entry.result.unavailable === undefined) bodies.set(aside[i]!.file, { ...entry, deps: {}, unpublished: aside[i]!.route });
    fresh.push(aside[i]!.file);
  }
  // Every body's errors and warnings, in order: most have none (no array made for each of thousands).
  const errors: ContentIssue[] = [];
  const warnings: ContentWarning[] = [];
  for (const { result } of bodies.values()) {
    if (result.errors.length > 0) errors.push(...result.errors);
    if (result.warnings.length > 0) warnings.push(...result.warnings);
  }
  return staged({ bodies, keep, parsed: changed.length, made: changed.map((a) => a.file), fresh, since: previous }, errors, warnings);

  /** The last run's or the cache's body when nothing it read changed; undefined when it must be rendered. */
  function knownBody(article: Article): MarkdownEntry | undefined {
    const { sourceHash } = article;
    const entry = previous.get(article.file);
    if (entry?.sourceHash === sourceHash && values.unchanged(entry.deps)) return entry;
    const kept = cached.get(article.file);
    // A body whose HTML the store no longer has is rendered again.
    const stored = kept?.text !== undefined || kept?.textAt !== undefined;
    const before = kept?.sourceHash === sourceHash && stored ? kept.markdown : undefined;
    if (!before || !values.unchanged(before.deps)) {
      // Parsed now: what its last parse (this run's last, or the cache's) found valid among its blocks' data.
      const last = entry?.result.valid ?? kept?.markdown?.valid;
      if (Array.isArray(last) && last.every((key) => typeof key === "string")) valid[article.file] = last;
      return undefined;
    }
    // Its HTML stays in the store until a page renders it (pipeline/render-pages.ts reads it, and checks it against `htmlHash`).
    // The cache's own values, in an object of named fields (made by `...rest`, it was a dictionary: at 100,000 kept bodies
    // 49 MiB held against 16, bench/README.md, "Session 25"), with the list of what it read shared by the bodies that read the same.
    const { deps, htmlHash, headings, links, warnings, images, valid: found } = before;
    return { sourceHash, deps, result: { headings, links, warnings, images, ...(found ? { valid: found } : {}), reads: readsOf(deps), errors: NONE }, htmlHash };
  }

  /**
   * A body made now, with what bodies hold alike made one value (frozen): its empty lists, the
   * list of what it read, and their hashes when they name no route's value (those are an
   * article's own). A body from a worker came as a copy of its own: at 100,000 articles its
   * four empty lists, its reads and their hashes were ~35 MB held to the end of the build.
   */
  function heldAlike(entry: MarkdownEntry): void {
    const { result } = entry;
    if (result.headings.length === 0) result.headings = NONE;
    if (result.links.length === 0) result.links = NONE;
    if (result.images.length === 0) result.images = NONE;
    if (result.warnings.length === 0) result.warnings = NONE;
    if (result.errors.length === 0) result.errors = NONE;
    result.reads = sameList(result.reads);
    if (Object.keys(entry.deps).some((id) => id.includes("/"))) return;
    const signature = JSON.stringify(entry.deps);
    const same = depsAlike.get(signature);
    if (same) entry.deps = same;
    else depsAlike.set(signature, Object.freeze(entry.deps));
  }

  /** The ids `deps` names, as one list for every kept body that read the same ones (never written to: frozen). */
  function readsOf(deps: Deps): DepId[] {
    return sameList(Object.keys(deps) as DepId[]);
  }

  /** `ids`, or the list of a body that read the same ones. */
  function sameList(ids: DepId[]): DepId[] {
    const signature = ids.join("\n");
    let same = readLists.get(signature);
    if (!same) readLists.set(signature, (same = Object.freeze(ids) as DepId[]));
    return same;
  }
}
