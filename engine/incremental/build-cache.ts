/**
 * The persistent cache: what earlier builds made, each entry with the hashes of what it was
 * made from, so a rebuild redoes only what changed.
 *
 * - articles: each file's parsed front matter, by the hash of its text;
 * - Markdown: each article's HTML body, headings and links, with the hashes of the data it
 *   read (data files, collections) besides its own text;
 * - pages: for each route, the hashes of every value its template read (dependencies.ts),
 *   and the build folder that holds its HTML;
 * - assets: the bundle of the last build, by the code and the text its fonts were cut to;
 * - media: the images' and cards' files of the last build.
 *
 * The whole store belongs to one version of the code (the engine, the theme, the lock file):
 * from any other version it is empty. Files are written aside and renamed; one that cannot be
 * read or parsed, or that another format wrote, is ignored, so a cache can only ever save work,
 * never change a result. Only a successful build saves it.
 */
import { mkdir, readFile } from "node:fs/promises";
import { writeFileAtomic } from "../lib/files.js";
import path from "node:path";
import type { ParsedArticle } from "../stages/load/content.js";
import type { Deps } from "./dependencies.js";
import type { ContentWarning } from "../lib/errors.js";
import { hashOf, type Sealed } from "../lib/hash.js";
import type { MarkdownImage } from "../stages/images/images.js";
import type { InternalLink } from "../stages/markdown/article-markdown.js";
import type { AssetRecord } from "../stages/assets/assets.js";
import type { ShareText } from "../stages/checks/share-text.js";
import type { KeptCard } from "../stages/cards/cards.js";

/** Bumped whenever the shape of the store changes. */
const FORMAT = 2;
/** Shards of the file entries: a site of 100,000 articles makes no single huge JSON string. */
const SHARDS = 16;

/** One article file: its parsed front matter and its rendered Markdown, by the hash of its text. */
export interface FileEntry {
  /** Hash of the file's text: the entry is for this text only. */
  sourceHash: string;
  article?: Sealed<ParsedArticle>;
  markdown?: Sealed<{
    deps: Deps;
    html: string;
    headings: { id: string; text: string; depth: number }[];
    links: InternalLink[];
    warnings: ContentWarning[];
    images: MarkdownImage[];
  }>;
}

export interface PageEntry {
  outFile: string;
  deps: Deps;
  /** Size of the page's HTML: a file of another size in the output is not taken as it. */
  size: number;
  /** Its internal links and element ids (link-check.ts): a page kept as it was is checked too. */
  links?: string[];
  ids?: string[];
  /** The site's files it loads, its inline scripts and handlers (rendered-links.ts `pageWarnings`). */
  files?: string[];
  scripts?: [string, string][];
  handlers?: string[];
  /** What a link to it shows when shared (share-text.ts): its title and description are checked too. */
  share?: ShareText;
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
  /** The old addresses' files (`_redirects`, a page at each old address). */
  redirects?: string[];
}

interface Store extends BuildRecord {
  format: number;
  code: string;
}

export class BuildCache {
  private constructor(
    private readonly dir: string,
    private readonly code: string,
    private store: Store,
    private readonly entries: Map<string, FileEntry>,
  ) {}

  /** Each article file's entry, as earlier builds left it (stages read it; only the orchestrator stores). */
  get files(): ReadonlyMap<string, FileEntry> {
    return this.entries;
  }

  /** Keeps articles parsed by a run; an entry of another text is replaced whole (its Markdown with it). */
  keepArticles(parsed: ReadonlyMap<string, Pick<FileEntry, "sourceHash" | "article">>): void {
    if (!this.enabled) return;
    for (const [file, entry] of parsed) this.entries.set(file, { sourceHash: entry.sourceHash, article: entry.article });
  }

  /** Keeps bodies rendered by a run, with the entry of the same text. */
  keepMarkdown(bodies: ReadonlyMap<string, Pick<FileEntry, "sourceHash" | "markdown">>): void {
    if (!this.enabled) return;
    for (const [file, { sourceHash, markdown }] of bodies) {
      const entry = this.entries.get(file);
      if (entry?.sourceHash === sourceHash) this.entries.set(file, { ...entry, markdown });
    }
  }

  /** An empty cache that is never saved (`--no-cache`, tests). */
  static none(): BuildCache {
    return new BuildCache("", "", { format: FORMAT, code: "", pages: {}, media: [] }, new Map());
  }

  /**
   * Opens the cache in `dir` for this version of the code. With `read: false` (`--force`) it
   * starts empty and is still saved.
   */
  static async open(dir: string, code: string, { read = true } = {}): Promise<BuildCache> {
    const empty = new BuildCache(dir, code, { format: FORMAT, code, pages: {}, media: [] }, new Map());
    if (!read) return empty;
    const store = await readJson<Store>(path.join(dir, "store.json"));
    if (!store || store.format !== FORMAT || store.code !== code || typeof store.pages !== "object" || !Array.isArray(store.media)) return empty;
    const files = new Map<string, FileEntry>();
    const shards = await Promise.all(Array.from({ length: SHARDS }, (_, i) => readJson<Record<string, FileEntry>>(path.join(dir, `files-${i}.json`))));
    for (const shard of shards) for (const [file, entry] of Object.entries(shard ?? {})) files.set(file, entry);
    return new BuildCache(dir, code, store, files);
  }

  /** False for `none()`: nothing is kept, so nothing is sealed or stored. */
  get enabled(): boolean {
    return this.dir !== "";
  }

  /** The record of the last build this cache saw. */
  lastRecord(): BuildRecord {
    const { output, pages, assets, media, redirects, cards } = this.store;
    return { output, pages, assets, media, redirects, cards };
  }

  /** Records a finished build. */
  record(record: BuildRecord): void {
    this.store = { ...record, format: FORMAT, code: this.code };
  }

  /** Writes the store, each file aside then renamed over the old one. */
  async save(): Promise<void> {
    if (!this.dir) return;
    await mkdir(this.dir, { recursive: true });
    const shards: Record<string, FileEntry>[] = Array.from({ length: SHARDS }, () => ({}));
    for (const [file, entry] of this.entries) shards[shardOf(file)]![file] = entry;
    // The shards first: a store.json that names a build is only written once they are all in.
    await Promise.all(shards.map((shard, i) => writeFileAtomic(path.join(this.dir, `files-${i}.json`), JSON.stringify(shard), { mkdirs: false })));
    await writeFileAtomic(path.join(this.dir, "store.json"), JSON.stringify(this.store), { mkdirs: false });
  }
}

const shardOf = (file: string) => hashOf(file).charCodeAt(0) % SHARDS;

async function readJson<T>(file: string): Promise<T | undefined> {
  try {
    return JSON.parse(await readFile(file, "utf8")) as T;
  } catch {
    return undefined;
  }
}
