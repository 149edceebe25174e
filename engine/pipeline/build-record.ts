/**
 * What a site's build keeps from one run to the next, as the stages made it: each article
 * file's entry (its parsed front matter, its rendered body) and the record of the output
 * (each page, the assets, the media, the cards, the old addresses' files) with what the
 * editorial rules found in each article. The store
 * (incremental/build-cache.ts) knows none of their parts but which are records by key (`KEYED`):
 * a run hands on the very values of what did not change, and the store writes again only the
 * shards holding a value that is not one it read.
 */
import { BuildCache } from "../incremental/build-cache.js";
import { heapFor } from "../lib/heap.js";
import type { KeptSources, ParsedArticle } from "../stages/load/content.js";
import type { CachedBody } from "../stages/markdown/markdown-stage.js";
import type { PageEntry } from "../stages/checks/rendered-links.js";
import type { AssetRecord } from "../stages/assets/assets.js";
import type { KeptCard } from "../stages/cards/cards.js";
import type { RuleMemory } from "../stages/checks/editorial-rules.js";
import type { LinkCheckMemory } from "../stages/checks/checks.js";

/** One article file: its parsed front matter and its rendered Markdown, by the hash of its text. */
export interface FileEntry extends CachedBody {
  article?: ParsedArticle;
  /** The hash of its text up to the body: a body edit keeps `article` (stages/load/content.ts, `headHash`). */
  head?: string;
}

/**
 * The one record of the last build: what the output it wrote holds. Kept in the store, or
 * only in memory when the cache is off (watch mode still starts from it).
 */
export interface BuildRecord {
  /** The output the files were written to (a FolderWriter build, a LiveWriter folder, a MemoryWriter). */
  output?: string;
  /** Each page with the dependencies it was rendered from, by route. */
  pages: Record<string, PageEntry>;
  assets?: AssetRecord;
  /** The images' and social cards' files. */
  media: string[];
  /** Each social card by the key it was drawn from: taken as it is by a build whose key is the same. */
  cards?: Record<string, KeptCard>;
  /** What every card's value was made of beside its key and file (incremental/since-record.ts, `cardFrame`). */
  cardFrame?: string;
  /** The old addresses' files (`_redirects`, a page at each old address). */
  redirects?: string[];
  /**
   * What the editorial rules found in each article, by the hash of its text, for the rules,
   * data files and languages of its key (findings without the file's text): a build reads
   * again only the articles whose text changed.
   */
  rules?: RuleMemory;
  /** What the check of the rendered pages found on each page: a page the next build takes as it was, and whose links lead to no page that changed, is not checked again. */
  links?: LinkCheckMemory;
  /** The feed's key (what it says, and the code's version) and its size: a build whose feed has the same key takes the file as it is. */
  feed?: { key: string; size: number };
  /** The settings, collection, rules and data files as validated, by the hash of their text and the code that validated them: a build takes each unchanged one as it is. */
  sources?: KeptSources;
}

/** The persistent cache of a site's builds. */
export type SiteCache = BuildCache<FileEntry, BuildRecord>;

/** The record of no build. */
export const emptyRecord = (): BuildRecord => ({ pages: {}, media: [] });

/** The parts of the record that are records by key, each stored in shards of its own (a one-article edit saves a few). */
const KEYED = ["pages", "rules.articles", "links.found", "links.anchors"];

/**
 * A page's fields the check of the rendered pages reads (its links, ids, share text, loaded
 * files, scripts and handlers), kept apart in the store: a rebuild reads them for the pages it
 * checks and those their links lead to (`fill`), not for every page it keeps. With them, what
 * the page read (`deps`): a rebuild takes a page on its `reads` and `sum`
 * (pipeline/render-pages.ts, `sumHolds`) and reads its `deps` only for a page it renders again
 * (at 100,000 pages their ids and hashes were 87 MiB of the heap, parsed on every build).
 */
const PAGE_LATE = ["deps", "links", "ids", "files", "scripts", "handlers", "share"] as const;

/**
 * Opens a site's cache in `dir` for this version of the code (`read: false`: starts empty, still
 * saved). A store of a large site sets the heap's growth (lib/heap.ts) before its shards are
 * read: set after (by the build, from the articles' count), the collection in the middle of
 * reading them had already let the heap grow to four times what it held (at 100,000 articles
 * 195 MB alive, a limit of 796 MB: a one-article edit's peak; bench/README.md, "Session 27").
 */
export const openSiteCache = (dir: string, code: string, options?: { read?: boolean }): Promise<SiteCache> =>
  BuildCache.open(dir, code, emptyRecord(), { ...options, keyed: KEYED, late: { pages: PAGE_LATE }, sized: (articles) => heapFor(articles) });

/** No cache: nothing read, nothing saved. */
export const noSiteCache = (): SiteCache => BuildCache.none(emptyRecord());
