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
 * - media: the images' and cards' files of the last build;
 * - editorial rules: what they found in each article, by the hash of its text, under a key of
 *   the rules, the data files and the site's languages.
 *
 * The whole store belongs to one version of the code (code-keys.ts: the engine, the lock
 * file and the theme's modules outside the parts it names; without a graph of the modules,
 * all of the code): from any other version it is empty. An edit to a named part's modules
 * keeps the store: the bodies and pages that read that part's key are made again. Files are written aside and renamed; one that cannot be
 * read or parsed, or that another format wrote, is ignored, so a cache can only ever save work,
 * never change a result. Only a successful build saves it.
 */
import { mkdir, readdir, readFile, rm } from "node:fs/promises";
import { writeFileAtomic } from "../lib/files.js";
import path from "node:path";
import { hashOf } from "../lib/hash.js";
import { isRunning } from "../lib/processes.js";

/** Bumped whenever the shape of the store changes. */
const FORMAT = 5;
/** Shards of the file entries: a site of 100,000 articles makes no single huge JSON string. */
const SHARDS = 16;

/** What the cache keeps of one article file, by the hash of its text (its parts are the stages'). */
export interface CachedFile {
  /** Hash of the file's text: the entry is for this text only. */
  sourceHash: string;
}

/** What the cache keeps of the last build: the output it wrote, each page's record (the pipeline's record). */
export interface CachedBuild {
  output?: string;
  pages: Record<string, unknown>;
  media: string[];
}

interface Store {
  format: number;
  code: string;
  build: unknown;
}

/**
 * The store, for entries of type `Entry` and a record of type `Build`: it reads and writes
 * them whole, as JSON, and knows nothing of what is in them but the text's hash
 * (pipeline/build-record.ts says what a site's build keeps).
 */
export class BuildCache<Entry extends CachedFile, Build extends CachedBuild> {
  private constructor(
    private readonly dir: string,
    private readonly code: string,
    private build: Build,
    private readonly entries: Map<string, Entry>,
  ) {}

  /** Each article file's entry, as earlier builds left it (stages read it; only the orchestrator stores). */
  get files(): ReadonlyMap<string, Entry> {
    return this.entries;
  }

  /** Keeps the entries of files read again by a run: one of another text is replaced whole (what else it held with it). */
  replace(entries: ReadonlyMap<string, Entry>): void {
    if (!this.enabled) return;
    for (const [file, entry] of entries) this.entries.set(file, entry);
  }

  /** Adds parts to the entries of the same text (a body rendered from the text the entry is for). */
  add(parts: ReadonlyMap<string, Partial<Entry> & CachedFile>): void {
    if (!this.enabled) return;
    for (const [file, part] of parts) {
      const entry = this.entries.get(file);
      if (entry?.sourceHash === part.sourceHash) this.entries.set(file, { ...entry, ...part });
    }
  }

  /** An empty cache that is never saved (`--no-cache`, tests); `empty` is the record of no build. */
  static none<Entry extends CachedFile, Build extends CachedBuild>(empty: Build): BuildCache<Entry, Build> {
    return new BuildCache<Entry, Build>("", "", empty, new Map());
  }

  /**
   * Opens the cache in `dir` for this version of the code. With `read: false` (`--force`) it
   * starts empty and is still saved.
   */
  static async open<Entry extends CachedFile, Build extends CachedBuild>(dir: string, code: string, empty: Build, { read = true } = {}): Promise<BuildCache<Entry, Build>> {
    const none = new BuildCache<Entry, Build>(dir, code, empty, new Map());
    if (!read) return none;
    const store = await readJson<Store>(path.join(dir, "store.json"));
    const build = store?.build as Build | undefined;
    if (!store || store.format !== FORMAT || store.code !== code || typeof build?.pages !== "object" || !Array.isArray(build.media)) return none;
    const files = new Map<string, Entry>();
    const shards = await Promise.all(Array.from({ length: SHARDS }, (_, i) => readJson<Record<string, Entry>>(path.join(dir, `files-${i}.json`))));
    for (const shard of shards) for (const [file, entry] of Object.entries(shard ?? {})) files.set(file, entry);
    return new BuildCache<Entry, Build>(dir, code, build, files);
  }

  /** False for `none()`: nothing is kept, so nothing is sealed or stored. */
  get enabled(): boolean {
    return this.dir !== "";
  }

  /** The record of the last build this cache saw. */
  lastRecord(): Build {
    return this.build;
  }

  /** Records a finished build. */
  record(build: Build): void {
    this.build = build;
  }

  /**
   * Writes the store, each file aside then renamed over the old one. A file a stopped build
   * left aside (Ctrl+C ends a build at once, even while it saves) is removed first, unless the
   * process named in it is still running.
   */
  async save(): Promise<void> {
    if (!this.dir) return;
    await mkdir(this.dir, { recursive: true });
    for (const name of await readdir(this.dir)) {
      const pid = Number(/\.(\d+)\.tmp$/.exec(name)?.[1]);
      if (pid && pid !== process.pid && !isRunning(pid)) await rm(path.join(this.dir, name), { force: true });
    }
    const shards: Record<string, Entry>[] = Array.from({ length: SHARDS }, () => ({}));
    for (const [file, entry] of this.entries) shards[shardOf(file)]![file] = entry;
    // The shards first: a store.json that names a build is only written once they are all in.
    await Promise.all(shards.map((shard, i) => writeFileAtomic(path.join(this.dir, `files-${i}.json`), JSON.stringify(shard), { mkdirs: false })));
    const store: Store = { format: FORMAT, code: this.code, build: this.build };
    await writeFileAtomic(path.join(this.dir, "store.json"), JSON.stringify(store), { mkdirs: false });
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
