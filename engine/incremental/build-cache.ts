/**
 * The persistent cache: what earlier builds made, each entry with the hashes of what it was
 * made from, so a rebuild redoes only what changed.
 *
 * - articles: each file's parsed front matter, by the hash of its text, and of its text up to
 *   the body (a body edit keeps it);
 * - settings, collections, rules and data files: their values as validated, by their text and
 *   the code that validated them, with site.yaml's warnings (in the record, `sources`);
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
 * keeps the store: the bodies and pages that read that part's key are made again. Files are
 * written aside and renamed; one that cannot be read or parsed, or that another format wrote,
 * is ignored, so a cache can only ever save work, never change a result. Only a successful
 * build saves it. A shard is named by the hash of its text, checked when it is read: its values
 * carry no check of their own (sealed one by one, at 100,000 articles they were two hashes and
 * two objects an article, and 9 MB of the shards).
 *
 * An entry's large text (an article's rendered body) is kept outside the shards, in packs read
 * by range when a run needs that text (`readTexts`): a rebuild that keeps a page never decodes
 * its body (at 100,000 articles the bodies were two thirds of the shards' JSON). The reader
 * checks what it reads against the hash it knows; a pack missing or shorter than store.json
 * says makes the whole store ignored.
 */
import { mkdir, open, readdir, readFile, rename, rm, stat, type FileHandle } from "node:fs/promises";
import { randomBytes } from "node:crypto";
import { closeSync, openSync, readSync } from "node:fs";
import { createHash } from "node:crypto";
import { isRecord } from "../lib/hash.js";
import { writeFileAtomic } from "../lib/files.js";
import path from "node:path";
import { isRunning, startOf } from "../lib/processes.js";

/** Bumped whenever the shape of the store changes. */
const FORMAT = 12;
/** Entries a shard holds, about: a one-article edit rewrites a shard or two of each part, not the whole store. */
const PER_SHARD = 1000;
const MAX_SHARDS = 256;
/** Packs of texts kept before the smaller ones are merged into the next one written. */
const MAX_PACKS = 8;
/** Texts of a pack read in one read when no more than this many bytes lie between them (texts no run asked for)… */
const RUN_GAP = 64 * 1024;
/** …and the run is no larger than this: at 100,000 articles a template edit reads every body, a run at a time. */
const RUN_BYTES = 8 * 1024 * 1024;

/** What the cache keeps of one article file, by the hash of its text (its parts are the stages'). */
export interface CachedFile {
  /** Hash of the file's text: the entry is for this text only. */
  sourceHash: string;
  /** A large text of the entry made by this run (a rendered body), written to a pack when the store is saved, not into its shard. */
  text?: string;
  /** Where the entry's text is kept: its pack, and the offset and length of its bytes there. */
  textAt?: TextAt;
}

/** A pack's file, the offset and the length of a text's bytes in it. */
export type TextAt = [pack: string, offset: number, length: number];

/** What the cache keeps of the last build: the output it wrote, each page's record (the pipeline's record). */
export interface CachedBuild {
  output?: string;
  pages: Record<string, unknown>;
  media: string[];
}

/** Where a part's shards are: their count, and each one's file. */
interface StoredPart {
  count: number;
  names: string[];
}

interface Store {
  format: number;
  code: string;
  /** The record of the last build, without its keyed parts (they are in their shards). */
  build: unknown;
  /** Each part (`files`, and each keyed part of the record by its path) in shards. */
  parts: Record<string, StoredPart>;
  /** The packs of the entries' texts, with each one's size in bytes. */
  packs: Record<string, number>;
  /** The entries are those the run that made `build` left (`BuildCache.withRecord`); absent: not known to be. */
  withRecord?: boolean;
}

/** The entries of one shard, by key, as JSON has them. */
type Shard = Record<string, unknown>;

/**
 * A part as read or last saved: each shard's file and the very values it held, to tell which
 * shards a build changed: each key and its value in a flat list (`heldOf`), not the shard's
 * object, which V8 keeps as a dictionary (at 100,000 articles the 384 shards of three parts were
 * ~18 MB of dictionaries held from the store's opening to the save; their lists, ~6 MB).
 */
interface KnownPart {
  count: number;
  shards: { name: string; held: readonly unknown[] }[];
}

/**
 * The fields of a keyed part's entries kept in shards of their own (`<part>.late`, one for each
 * of the part's shards, with the same keys), read into the entries only when a run asks for
 * them (`fill`): a page's links and ids, which a rebuild reads for a few pages.
 */
interface LatePart {
  fields: readonly string[];
  /** Each shard's file, as read or last saved. */
  names: string[];
  /** The entries read from the store whose late fields are not in them yet. */
  unfilled: WeakSet<object>;
}

/**
 * The store, for entries of type `Entry` and a record of type `Build`. It knows nothing of
 * what is in them but the text's hash (pipeline/build-record.ts says what a site's build
 * keeps), and which parts of the record are records by key (`keyed`: each page, each
 * article's findings). Those and the file entries are kept in shards of about a thousand
 * entries each: a save writes again only the shards holding an entry that is not the very
 * value read or last saved (a run keeps the values of what did not change), so a one-article
 * edit of a site of 100,000 writes a few megabytes, not the whole store. `store.json`, written
 * last, names the shards it is made of; a shard is never written over, a new one is written
 * beside it and the old one removed once neither `store.json`, nor the one it replaced, nor the
 * claim of a build still running (`claim`) names it, so a build stopped while saving leaves the
 * store it found, and another build of the site that opened the store before this one saved can
 * still read what it names, however many saves came after.
 */
export class BuildCache<Entry extends CachedFile, Build extends CachedBuild> {
  private constructor(
    private readonly dir: string,
    private readonly code: string,
    private readonly keyed: readonly string[],
    private build: Build,
    private readonly entries: Map<string, Entry>,
    /** Each part as read or last saved. */
    private known: Map<string, KnownPart> = new Map(),
    /** The packs of texts as read or last saved, with their sizes. */
    private packs: Record<string, number> = {},
    /** The keyed parts whose entries keep some fields in shards read on demand, by part. */
    private readonly late: Map<string, LatePart> = new Map(),
  ) {}

  /** This cache's claim on the files of the store it reads (`claim`): its file's name, once written. */
  private claimed?: string;

  /**
   * Whether the entries are those the run that made the record left, as it left them: the
   * record was given (`record`) after that run's entries, and no entry changed since (a failed
   * run of watch mode changes entries and gives no record; a save then keeps both). Then an
   * entry a run did not change is the one that build's pages were made from
   * (pipeline/since-record.ts). Read from the store as it was saved; false for a store that
   * does not say.
   */
  private together = false;

  /** See `together`. */
  get withRecord(): boolean {
    return this.enabled && this.together;
  }

  /**
   * The pack the texts of this process's runs are written to as they are made (`appendTexts`),
   * under a name with the process's id until a save names it in store.json: no other build of
   * the site removes it while this process runs, and one that finds it after a crash does.
   */
  private open?: { name: string; temp: string; handle: FileHandle; size: number; writing: Promise<unknown> };

  /**
   * Reads the late fields (`open`'s `late`) of the entries of `part` at `keys` into them, for
   * those read from the store without them: the record's very entries are completed, so a run
   * holding them sees the fields. A shard that cannot be read (removed, damaged) stops the build.
   */
  async fill(part: string, keys: Iterable<string>): Promise<void> {
    const late = this.late.get(part);
    const record = late && parentOf(this.build as unknown as Record<string, unknown>, part);
    const entries = record?.object[record.key];
    if (!late || !isRecord(entries)) return;
    // The keys asked, by shard: only their entries are completed (a shard's other entries would
    // hold their pages' `deps` for nothing: at 100,000 pages a one-article edit asks for a few).
    const shards = new Map<number, string[]>();
    for (const key of keys) {
      const entry = Object.hasOwn(entries, key) ? entries[key] : undefined;
      if (!isRecord(entry) || !late.unfilled.has(entry)) continue;
      const i = shardOf(key, late.names.length);
      shards.get(i)?.push(key) ?? shards.set(i, [key]);
    }
    for (const [i, wanted] of shards) {
      const name = late.names[i]!;
      const values = await readShard(this.dir, name);
      if (!values) throw new Error(`the build cache's shard ${name} is missing or damaged: run the build again with --force`);
      for (const key of wanted) {
        const entry = entries[key];
        if (!isRecord(entry) || !late.unfilled.has(entry) || !Object.hasOwn(values, key)) continue;
        Object.assign(entry, values[key]);
        late.unfilled.delete(entry);
      }
    }
  }

  /** Each article file's entry, as earlier builds left it (stages read it; only the orchestrator stores). */
  get files(): ReadonlyMap<string, Entry> {
    return this.entries;
  }

  /** Keeps the entries of files read again by a run: one of another text is replaced whole (what else it held with it). */
  replace(entries: ReadonlyMap<string, Entry>): void {
    if (!this.enabled) return;
    if (entries.size > 0) this.together = false;
    for (const [file, entry] of entries) this.entries.set(file, entry);
  }

  /**
   * Lets go of the entries of files no longer there (`present`: every file a whole load
   * found): the store kept each deleted article's entry for ever, read, held and written again
   * by every build after it.
   */
  keepOnly(present: ReadonlySet<string>): void {
    if (!this.enabled) return;
    for (const file of this.entries.keys()) {
      if (present.has(file)) continue;
      this.entries.delete(file);
      this.together = false;
    }
  }

  /** Adds parts to the entries of the same text (a body rendered from the text the entry is for). */
  add(parts: ReadonlyMap<string, Partial<Entry> & CachedFile>): void {
    if (!this.enabled) return;
    for (const [file, part] of parts) {
      const entry = this.entries.get(file);
      if (entry?.sourceHash !== part.sourceHash) continue;
      this.together = false;
      const added = { ...entry, ...part };
      // A new text replaces the one kept in a pack; a text written to this process's pack (`appendTexts`), the one held.
      if (part.text !== undefined) delete added.textAt;
      else if (part.textAt !== undefined) delete added.text;
      this.entries.set(file, added);
    }
  }

  /**
   * Writes texts to this process's pack as a run makes them (a body, once rendered), and gives
   * each one's place there: the run holds the place, not the text (at 100,000 articles ~90 MB
   * of HTML was held from the Markdown to the save), and reads it back when it needs it
   * (`readTextsAt`); entries added with it (`add`) are saved with it. Undefined without a store.
   */
  async appendTexts(texts: readonly string[]): Promise<TextAt[] | undefined> {
    if (!this.enabled) return undefined;
    if (!this.open) {
      const name = `texts.${randomBytes(8).toString("hex")}.pack`;
      const temp = path.join(this.dir, `${name}.${process.pid}.tmp`);
      // A folder the cache cannot write to: the run holds its texts, and the save says why it cannot keep them.
      const handle = await mkdir(this.dir, { recursive: true }).then(() => open(temp, "w+")).catch(() => undefined);
      if (!handle) return undefined;
      this.open = { name, temp, handle, size: 0, writing: Promise.resolve() };
    }
    const pack = this.open;
    const places: TextAt[] = [];
    const bytes = texts.map((text) => {
      const buffer = Buffer.from(text, "utf8");
      places.push([pack.name, pack.size, buffer.length]);
      pack.size += buffer.length;
      return buffer;
    });
    // One write after another, each at the end of the last (places are given in the order asked).
    const written = pack.writing.then(() => pack.handle.writev(bytes, places[0]?.[1] ?? pack.size));
    pack.writing = written.catch(() => {});
    await written;
    return places;
  }

  /**
   * The texts of some entries (`text`, or read from their packs): by key, for the keys that
   * have one. What is read is the bytes store.json's pack held at that place: the caller
   * checks it against the hash it knows of it.
   */
  async readTexts(keys: Iterable<string>): Promise<Map<string, string>> {
    const texts = new Map<string, string>();
    const places = new Map<string, TextAt>();
    for (const key of keys) {
      const entry = this.entries.get(key);
      if (entry?.text !== undefined) texts.set(key, entry.text);
      else if (entry?.textAt) places.set(key, entry.textAt);
    }
    for (const [key, text] of await this.readTextsAt(places)) texts.set(key, text);
    return texts;
  }

  /**
   * The text at a place of a pack, read at once (a page rendered again, on the build's thread,
   * that reads bodies no one knew it would: `BodyOf` is synchronous), or undefined when the
   * pack cannot give it. Every write to this process's pack must be in (`appendTexts` awaited).
   */
  readTextAtSync([pack, offset, length]: TextAt): string | undefined {
    const own = this.open?.name === pack ? this.open.handle.fd : undefined;
    let fd: number | undefined;
    try {
      fd = own ?? openSync(path.join(this.dir, pack), "r");
      const bytes = Buffer.allocUnsafe(length);
      return readSync(fd, bytes, 0, length, offset) === length ? bytes.toString("utf8") : undefined;
    } catch {
      return undefined;
    } finally {
      if (fd !== undefined && own === undefined) closeSync(fd);
    }
  }

  /** The texts at these places of the packs (`appendTexts`' or an entry's), by key: the caller checks each against the hash it knows of it. */
  async readTextsAt(places: ReadonlyMap<string, TextAt>): Promise<Map<string, string>> {
    const texts = new Map<string, string>();
    const byPack = new Map<string, [string, number, number][]>();
    for (const [key, [pack, offset, length]] of places) byPack.get(pack)?.push([key, offset, length]) ?? byPack.set(pack, [[key, offset, length]]);
    for (const [pack, wanted] of byPack) {
      // This process's pack, being written: read through its own handle once its writes are in.
      const own = this.open?.name === pack ? this.open : undefined;
      if (own) await own.writing;
      // A pack gone since it was read (removed by hand): its texts are missing, which the caller makes again.
      const handle = own?.handle ?? (await open(path.join(this.dir, pack), "r").catch(() => undefined));
      if (!handle) continue;
      try {
        // In the pack's order, a run of texts at a time in one read (a template edit reads every
        // body: 4014 reads, one a text, were ~0.2 s of waiting on the thread pool at 4000 articles).
        wanted.sort((a, b) => a[1] - b[1]);
        for (let first = 0; first < wanted.length; ) {
          const start = wanted[first]![1];
          let last = first;
          let end = start + wanted[first]![2];
          while (last + 1 < wanted.length) {
            const [, offset, length] = wanted[last + 1]!;
            if (offset - end > RUN_GAP || Math.max(end, offset + length) - start > RUN_BYTES) break;
            end = Math.max(end, offset + length);
            last++;
          }
          const bytes = Buffer.allocUnsafe(end - start);
          const { bytesRead } = await handle.read(bytes, 0, end - start, start);
          for (const [key, offset, length] of wanted.slice(first, last + 1)) {
            if (offset - start + length <= bytesRead) texts.set(key, bytes.toString("utf8", offset - start, offset - start + length));
          }
          first = last + 1;
        }
      } finally {
        if (!own) await handle.close();
      }
    }
    return texts;
  }

  /** An empty cache that is never saved (`--no-cache`, tests); `empty` is the record of no build. */
  static none<Entry extends CachedFile, Build extends CachedBuild>(empty: Build): BuildCache<Entry, Build> {
    return new BuildCache<Entry, Build>("", "", [], empty, new Map());
  }

  /**
   * Opens the cache in `dir` for this version of the code. With `read: false` (`--force`) it
   * starts empty and is still saved. `keyed`: the paths of the record's parts that are records
   * by key (`"pages"`, `"rules.articles"`), each kept in shards of its own; `late`: fields of
   * some of those parts' entries kept apart, read only when a run asks (`fill`); `sized`: told,
   * before any shard is read, the fewest article files a store of more than one shard of them
   * holds (a large site's heap is set to grow less before their values fill it: lib/heap.ts). A
   * store missing a shard or pack it names, or one that does not parse, is ignored whole
   * (`ignored` says why).
   */
  static async open<Entry extends CachedFile, Build extends CachedBuild>(
    dir: string,
    code: string,
    empty: Build,
    { read = true, keyed = ["pages"], late = {}, sized }: { read?: boolean; keyed?: readonly string[]; late?: Readonly<Record<string, readonly string[]>>; sized?: (entries: number) => void } = {},
  ): Promise<BuildCache<Entry, Build>> {
    const lateParts = () => new Map(Object.entries(late).map(([part, fields]): [string, LatePart] => [part, { fields, names: [], unfilled: new WeakSet() }]));
    const none = new BuildCache<Entry, Build>(dir, code, keyed, empty, new Map(), new Map(), {}, lateParts());
    /** The store not used, and why: this build makes it again. */
    const ignored = (why: string) => Object.assign(new BuildCache<Entry, Build>(dir, code, keyed, empty, new Map(), new Map(), {}, lateParts()), { ignored: why });
    if (!read) return none;
    const text = await readFile(path.join(dir, "store.json"), "utf8").catch(() => undefined);
    // No store yet: nothing to say.
    if (text === undefined) return none;
    const store = parseJson<Store>(text);
    if (!isRecord(store) || typeof store.format !== "number") return ignored("its store.json does not parse, or another program wrote it");
    // Another version of the code: the usual case after an edit to it (or to the format), said by nothing.
    if (store.code !== code) return none;
    if (store.format !== FORMAT) return ignored(`it is in another format (${store.format}; this code keeps ${FORMAT})`);
    const build = store.build as Build | undefined;
    if (!isRecord(build) || !isRecord(store.parts) || !isRecord(store.packs) || !Array.isArray(build.media)) return ignored("its store.json is not what this code writes");
    // Every pack of texts as store.json left it: a text is read by its place in one.
    for (const [pack, size] of Object.entries(store.packs)) {
      if (!PACK.test(pack) || (await stat(path.join(dir, pack)).then((s) => s.size, () => -1)) !== size) return ignored(`its pack ${pack} is missing or not the size store.json says`);
    }
    // A part of n shards holds more than n/2 of a shard's entries (`shardCount`).
    const articles = store.parts.files;
    if (isRecord(articles) && typeof articles.count === "number" && articles.count > 1) sized?.((articles.count / 2) * PER_SHARD + 1);
    const known = new Map<string, KnownPart>();
    // The shards' values as read, by part: each put in its place below, then let go (`known` keeps their lists).
    const parsed = new Map<string, Shard[]>();
    const lates = lateParts();
    for (const [part, stored] of Object.entries(store.parts)) {
      if (!Array.isArray(stored?.names) || stored.names.length !== stored.count || stored.names.some((n) => typeof n !== "string" || !SHARD.test(n))) return ignored("its store.json is not what this code writes");
      // The late fields' shards are read when a run asks for them: here only seen to be there.
      const lateOf = part.endsWith(LATE) ? lates.get(part.slice(0, -LATE.length)) : undefined;
      if (lateOf) {
        for (const name of stored.names) if (!(await stat(path.join(dir, name)).then((s) => s.isFile(), () => false))) return ignored(`a shard of its ${part} is missing`);
        lateOf.names = stored.names;
        continue;
      }
      // One shard read at a time: read all at once, their texts waited for the thread to parse
      // them (at 100,000 articles a quarter of a gigabyte more at the peak of opening the store).
      const shards: KnownPart["shards"] = [];
      const values: Shard[] = [];
      for (const name of stored.names) {
        const shard = await readShard(dir, name);
        if (!shard) return ignored(`a shard of its ${part} is missing or damaged`);
        shards.push({ name, held: heldOf(shard) });
        values.push(shard);
      }
      known.set(part, { count: stored.count, shards });
      parsed.set(part, values);
    }
    // Each keyed part back in its place in the record, one object of all its shards' entries.
    for (const part of keyed) {
      const shards = parsed.get(part);
      const parent = parentOf(build as unknown as Record<string, unknown>, part);
      if (shards && parent) parent.object[parent.key] = Object.assign({}, ...shards);
      // Its entries wait for their late fields, kept in as many shards as the part.
      const lateOf = lates.get(part);
      if (!lateOf || !shards) continue;
      if (lateOf.names.length !== shards.length) return ignored(`its ${part}${LATE} is not what this code writes`);
      for (const shard of shards) for (const key in shard) if (isRecord(shard[key])) lateOf.unfilled.add(shard[key] as object);
    }
    if (!isRecord(build.pages)) return ignored("its store.json is not what this code writes");
    const files = new Map<string, Entry>();
    // Each entry's pack named by one string, store.json's, not a copy an entry (at 100,000 articles 4.6 MB).
    const packNames = new Map(Object.keys(store.packs).map((name) => [name, name]));
    for (const shard of parsed.get("files") ?? []) {
      for (const key in shard) {
        const at = isRecord(shard[key]) ? (shard[key] as Entry).textAt : undefined;
        if (Array.isArray(at) && !Object.isFrozen(at)) at[0] = packNames.get(at[0]) ?? at[0];
        files.set(key, shard[key] as Entry);
      }
    }
    const cache = new BuildCache<Entry, Build>(dir, code, keyed, build, files, known, store.packs, lates);
    cache.together = store.withRecord === true;
    await cache.claim(storeNames(store));
    return cache;
  }

  /**
   * Claims the files of the store this cache reads (`names`: its shards and packs), in a file of
   * its own (`<random>.lease`: the process and when it started): another build of the site
   * (into another folder, at the same time) removes none of them when it saves, as long as this
   * process runs. A save removed the files of the store it replaced at the next save, so a
   * build that two others overtook stopped on a shard "missing or damaged". A claim that cannot
   * be written (a cache folder that became read-only) leaves the cache as it was before claims.
   */
  private async claim(names: readonly string[]): Promise<void> {
    this.claimed ??= `${randomBytes(8).toString("hex")}.lease`;
    const lease: Lease = { pid: process.pid, start: startOf(process.pid), names: [...names] };
    await writeFileAtomic(path.join(this.dir, this.claimed), JSON.stringify(lease), { mkdirs: false }).catch(() => {});
  }

  /** Lets go of the claim on the store's files (a builder that is done with the cache: `SiteBuilder.close`); a process that ends without it holds nothing either. */
  async release(): Promise<void> {
    const claimed = this.claimed;
    this.claimed = undefined;
    if (claimed) await rm(path.join(this.dir, claimed), { force: true });
    // Texts written since the last save that no save named: no store will read them.
    const pack = this.open;
    this.open = undefined;
    if (pack) await pack.writing.then(() => pack.handle.close()).then(() => rm(pack.temp, { force: true }), () => {});
  }

  /** This process's pack, its writes done, under its own name: the store about to be saved can name it. */
  private async closePack(): Promise<void> {
    const pack = this.open;
    if (!pack) return;
    this.open = undefined;
    await pack.writing;
    await pack.handle.close();
    await rename(pack.temp, path.join(this.dir, pack.name));
    this.packs = { ...this.packs, [pack.name]: pack.size };
  }

  /** Why the store found in its folder was not used (damaged, or another program's or format's), when it was not: the build says so in a line and makes it again. */
  readonly ignored?: string;

  /** False for `none()`: nothing is kept, so nothing is sealed or stored. */
  get enabled(): boolean {
    return this.dir !== "";
  }

  /** The record of the last build this cache saw. */
  lastRecord(): Build {
    return this.build;
  }

  /** Records a finished build, once its run's entries are in (`withRecord`). */
  record(build: Build): void {
    this.build = build;
    this.together = true;
  }

  /**
   * Writes the store: the shards that changed, each aside then renamed, then `store.json`
   * naming them, then the shards and packs named neither by it nor by the store it replaced are
   * removed. A file a stopped build left aside (Ctrl+C ends a build at once, even while it
   * saves) is removed first, unless the process named in it is still running.
   */
  async save(): Promise<void> {
    if (!this.dir) return;
    await mkdir(this.dir, { recursive: true });
    for (const name of await readdir(this.dir)) {
      const pid = Number(/\.(\d+)\.tmp$/.exec(name)?.[1]);
      if (pid && pid !== process.pid && !isRunning(pid)) await rm(path.join(this.dir, name), { force: true });
    }
    const packs = await this.saveTexts();
    const build = { ...this.build } as unknown as Record<string, unknown>;
    const parts = new Map<string, ReadonlyMap<string, unknown> | Record<string, unknown>>([["files", this.entries]]);
    for (const part of this.keyed) {
      // The record without its keyed parts: each path copied down to the part, which is taken out.
      const parent = parentOf(build, part, { copy: true });
      if (!parent) continue;
      const value = parent.object[parent.key];
      if (isRecord(value)) parts.set(part, value);
      delete parent.object[parent.key];
    }
    const known = new Map<string, KnownPart>();
    const lateNames = new Map<string, string[]>();
    // Each shard written as soon as it is encoded, the next encoded once it is in: one shard's
    // text held at a time, not the store's (at 100,000 articles ~115 MB of JSON at the end of a
    // cold build, its peak). The store.json naming them is written after them all, as before.
    const write = async (part: string, i: number, text: string) => {
      const name = `${part}-${i}.${textHash(text)}.json`;
      await writeFileAtomic(path.join(this.dir, name), text, { mkdirs: false });
      return name;
    };
    for (const [part, entries] of parts) {
      // Each shard's keys and values in a flat list (`heldOf`'s), told from the last one's
      // without an object of each shard: at 100,000 articles the save's shards of three parts
      // and their entries' pairs were ~30 MB made and dropped at a rebuild's end, its peak.
      let size = 0;
      if (entries instanceof Map) size = entries.size;
      else for (const _ in entries) size++;
      const count = shardCount(size);
      const before = this.known.get(part);
      const held = Array.from({ length: count }, (): unknown[] => []);
      if (entries instanceof Map) for (const [key, value] of entries) held[shardOf(key, count)]!.push(key, value);
      else for (const key in entries) held[shardOf(key, count)]!.push(key, (entries as Record<string, unknown>)[key]);
      const late = this.late.get(part);
      const kept = held.map((values, i) => {
        const old = before?.count === count ? before.shards[i] : undefined;
        return old && sameHeld(old.held, values) && (!late || late.names.length === count) ? old : undefined;
      });
      // A shard written again is written whole: its entries' late fields are read into them first.
      if (late) await this.fill(part, held.flatMap((values, i) => (kept[i] ? [] : values.filter((_, j) => j % 2 === 0) as string[])));
      const saved: KnownPart["shards"] = [];
      const lates: string[] = [];
      for (const [i, values] of held.entries()) {
        const old = kept[i];
        if (old) {
          saved.push(old);
          if (late) lates.push(late.names[i]!);
          continue;
        }
        const shard = shardOfHeld(values);
        saved.push({ name: await write(part, i, encodeShard(late ? fieldsOf(shard, late.fields, false) : shard)), held: values });
        if (late) lates.push(await write(`${part}${LATE}`, i, encodeShard(fieldsOf(shard, late.fields, true))));
      }
      known.set(part, { count, shards: saved });
      if (late) lateNames.set(part, lates);
    }
    const partNames = [...known].map(([part, { count, shards }]): [string, StoredPart] => [part, { count, names: shards.map((s) => s.name) }]);
    for (const [part, names] of lateNames) partNames.push([`${part}${LATE}`, { count: names.length, names }]);
    const store: Store = { format: FORMAT, code: this.code, build, parts: Object.fromEntries(partNames), packs, withRecord: this.together };
    // The files of the store this one replaces stay until the next save: another build of the
    // site (into another folder, at the same time) that opened it still reads its late fields
    // and packs; removed, it stopped on a shard "missing or damaged".
    const replaced = await namedBy(this.dir);
    await writeFileAtomic(path.join(this.dir, "store.json"), JSON.stringify(store), { mkdirs: false });
    this.known = known;
    this.packs = packs;
    for (const [part, names] of lateNames) this.late.get(part)!.names = names;
    // This cache reads the store it wrote from now on (watch mode's next run).
    const names = storeNames(store);
    await this.claim(names);
    const named = new Set([...names, ...replaced, ...(await claimedByOthers(this.dir, this.claimed))]);
    // Shards and packs neither this store.json, nor the one it replaced, nor a running build's claim names (and the files of an older format).
    for (const name of await readdir(this.dir)) {
      const unnamed = name.endsWith(".json") ? name !== "store.json" && !named.has(name) : PACK.test(name) && !Object.hasOwn(packs, name) && !named.has(name);
      if (unnamed) await rm(path.join(this.dir, name), { force: true });
    }
  }

  /**
   * Writes the texts this run made into one new pack, with those of the smaller packs when
   * there are more than `MAX_PACKS` or when most of the packs' bytes are texts no entry has
   * any more (each edit leaves its old text behind); every entry then names its text's place.
   * Returns the packs the entries use, by size.
   */
  private async saveTexts(): Promise<Record<string, number>> {
    await this.closePack();
    const live = new Map<string, number>();
    for (const entry of this.entries.values()) if (entry.text === undefined && entry.textAt) live.set(entry.textAt[0], (live.get(entry.textAt[0]) ?? 0) + entry.textAt[2]);
    const byUse = [...live].sort((a, b) => b[1] - a[1]);
    const total = byUse.reduce((sum, [pack]) => sum + (this.packs[pack] ?? 0), 0);
    const used = byUse.reduce((sum, [, bytes]) => sum + bytes, 0);
    // Packs whose texts are copied into the new one: all of them when more than half their bytes are dead, else the smaller ones past MAX_PACKS.
    const merged = new Set(used * 2 < total ? live.keys() : byUse.length > MAX_PACKS ? byUse.slice(1).map(([pack]) => pack) : []);
    const moved: [string, Entry][] = [];
    for (const [key, entry] of this.entries) if (entry.text !== undefined || (entry.textAt && merged.has(entry.textAt[0]))) moved.push([key, entry]);
    const packs: Record<string, number> = {};
    for (const [pack] of live) if (!merged.has(pack)) packs[pack] = this.packs[pack]!;
    if (moved.length === 0) return packs;
    const texts = await this.readTexts(moved.filter(([, entry]) => entry.text === undefined).map(([key]) => key));
    const name = `texts.${randomBytes(8).toString("hex")}.pack`;
    const temp = path.join(this.dir, `${name}.${process.pid}.tmp`);
    const handle = await open(temp, "w");
    let offset = 0;
    try {
      let batch: Buffer[] = [];
      for (const [key, entry] of moved) {
        const text = entry.text ?? texts.get(key);
        const { text: _, textAt: __, ...rest } = entry;
        if (text === undefined) {
          // Its pack could not give it back: the entry keeps no text (its reader makes it again).
          this.entries.set(key, rest as Entry);
          continue;
        }
        const bytes = Buffer.from(text, "utf8");
        this.entries.set(key, { ...rest, textAt: [name, offset, bytes.length] } as Entry);
        offset += bytes.length;
        batch.push(bytes);
        if (batch.length === 1024) (await handle.writev(batch), (batch = []));
      }
      await handle.writev(batch);
    } finally {
      await handle.close();
    }
    await rename(temp, path.join(this.dir, name));
    packs[name] = offset;
    return packs;
  }
}

/** The name a part's late fields are kept under (`pages.late`). */
const LATE = ".late";

/** A shard's entries with only the fields `fields` names (`late`), or only the others. */
function fieldsOf(values: Shard, fields: readonly string[], late: boolean): Shard {
  const out: Shard = {};
  for (const key in values) {
    const entry = values[key];
    if (!isRecord(entry)) continue;
    const part: Record<string, unknown> = {};
    for (const field in entry) if (fields.includes(field) === late && entry[field] !== undefined) part[field] = entry[field];
    out[key] = part;
  }
  return out;
}

/** A pack of texts: written once under a name of its own, never over. */
const PACK = /^texts\.[0-9a-f]{16}\.pack$/;

/** Values of a field looked at before a shard's encoding judges whether they are alike enough to look for more (`encodeShard`). */
const UNLIKE = 32;

/** A shard's shared values' references: an entry's field (a string), or a field of an object in one (`[field, inner]`). */
type Ref = string | [field: string, inner: string];

/** A shard's file: its part, its number, the hash of its text. */
const SHARD = /^[a-z.]+-\d+\.([0-9a-f]{40})\.json$/;

const textHash = (text: string) => createHash("sha1").update(text).digest("hex");

/**
 * A shard's text: its entries, and the values that more than one of them holds (every page's
 * list of files and inline scripts, most of its ids, an article's findings of nothing, its
 * body's reads and its empty lists of headings and links) once, each place that holds such a
 * value naming it by its place in `shared` (`refs` says which: an entry's field, or a field of
 * an object in one). Read back, those entries hold one value, not a copy each: at 100,000 pages
 * the records were decoded into 203 MB of heap, most of it the same lists again, and the
 * articles' entries held five empty lists and a list of reads each (~30 MB).
 */
function encodeShard(values: Shard): string {
  // Each object's JSON once (a value read back shared is one object in many entries), and how many places hold it.
  const texts = new Map<object, string>();
  const counts = new Map<string, number>();
  // A field whose values were seldom alike (a page's deps, an article's front matter) is not
  // looked at further: made into JSON once, with its entry (each field's JSON made apart cost a
  // cold save of 20,000 pages and findings 0.25 s of CPU more than the shard's whole JSON).
  const fields = new Map<string, { seen: number; alike: number }>();
  const count = (field: string, value: object) => {
    let text = texts.get(value);
    if (text === undefined) {
      let tally = fields.get(field);
      if (!tally) fields.set(field, (tally = { seen: 0, alike: 0 }));
      if (tally.seen >= UNLIKE && tally.alike * 4 < tally.seen) return;
      texts.set(value, (text = JSON.stringify(value)));
      tally.seen++;
      if (counts.has(text)) tally.alike++;
    }
    counts.set(text, (counts.get(text) ?? 0) + 1);
  };
  for (const key in values) {
    const entry = values[key];
    if (!isRecord(entry)) continue;
    for (const field in entry) {
      const value = entry[field];
      if (typeof value !== "object" || value === null) continue;
      count(field, value);
      if (Array.isArray(value)) continue;
      for (const inner in value) {
        const held = (value as Record<string, unknown>)[inner];
        if (typeof held === "object" && held !== null) count(`${field}\0${inner}`, held);
      }
    }
  }
  let alike = false;
  for (const n of counts.values()) if (n > 1 && (alike = true)) break;
  if (!alike) return JSON.stringify({ shared: [], refs: {}, entries: values });
  // Each value held in more than one place, given its place when first written.
  const shared: string[] = [];
  const places = new Map<string, number>();
  const placeOf = (value: unknown): number | undefined => {
    const text = typeof value === "object" && value !== null ? texts.get(value) : undefined;
    if (text === undefined || counts.get(text)! < 2) return undefined;
    let place = places.get(text);
    if (place === undefined) places.set(text, (place = shared.push(text) - 1));
    return place;
  };
  // The entries with each shared value named by its place: an entry (or an object in it) that
  // holds one copied with the place instead, the others as they are, and all made into JSON at
  // once (each field's JSON made apart, then joined, was most of a cold save of 100,000 articles).
  const entries: Shard = {};
  const refs: Record<string, Ref[]> = {};
  for (const key in values) {
    const entry = values[key];
    if (!isRecord(entry)) {
      entries[key] = entry;
      continue;
    }
    let copy: Record<string, unknown> | undefined;
    for (const field in entry) {
      const value = entry[field];
      if (typeof value !== "object" || value === null) continue;
      const place = placeOf(value);
      if (place !== undefined) {
        (copy ??= { ...entry })[field] = place;
        (refs[key] ??= []).push(field);
        continue;
      }
      if (Array.isArray(value)) continue;
      let inner: Record<string, unknown> | undefined;
      for (const name in value) {
        const at = placeOf((value as Record<string, unknown>)[name]);
        if (at === undefined) continue;
        (inner ??= { ...value })[name] = at;
        (refs[key] ??= []).push([field, name]);
      }
      if (inner) (copy ??= { ...entry })[field] = inner;
    }
    entries[key] = copy ?? entry;
  }
  return `{"shared":[${shared.join(",")}],"refs":${JSON.stringify(refs)},"entries":${JSON.stringify(entries)}}`;
}

/** The shards and packs the store.json in `dir` names (none when there is none, or it is not one this code reads). */
async function namedBy(dir: string): Promise<string[]> {
  const text = await readFile(path.join(dir, "store.json"), "utf8").catch(() => undefined);
  const store = text === undefined ? undefined : parseJson<Partial<Store>>(text);
  return isRecord(store) ? storeNames(store) : [];
}

/** The shards (of every part, late ones included) and packs a store names. */
function storeNames(store: Partial<Store>): string[] {
  const shards = isRecord(store.parts) ? Object.values(store.parts).flatMap((part) => (Array.isArray(part?.names) ? part.names : [])) : [];
  return [...shards, ...(isRecord(store.packs) ? Object.keys(store.packs) : [])].filter((name): name is string => typeof name === "string");
}

/** A build's claim on the files of the store it read (`BuildCache.claim`). */
interface Lease {
  pid: number;
  /** When the process started, where the system says (a process number used again is not the claim's). */
  start?: string;
  names: string[];
}

const LEASE = /^[0-9a-f]{16}\.lease$/;

/**
 * The files the claims of other builds still running name (`own`: this cache's claim, left
 * out); the claims of processes no longer running (ended without letting go, killed) and the
 * unreadable ones are removed.
 */
async function claimedByOthers(dir: string, own: string | undefined): Promise<string[]> {
  const names: string[] = [];
  for (const name of await readdir(dir)) {
    if (!LEASE.test(name) || name === own) continue;
    const lease = parseJson<Partial<Lease>>(await readFile(path.join(dir, name), "utf8").catch(() => ""));
    if (isRecord(lease) && Array.isArray(lease.names) && isRunning(Number(lease.pid), typeof lease.start === "string" ? lease.start : undefined)) names.push(...lease.names.filter((n): n is string => typeof n === "string"));
    else await rm(path.join(dir, name), { force: true });
  }
  return names;
}

/**
 * A shard's entries; undefined when its file is missing, does not parse, is not the text its
 * name's hash was made of (damaged), or names a shared value it does not hold. Its bytes are
 * the ones its name's hash was made of, so its values need no check of their own. A value
 * entries share is frozen: no reader changes it through one entry.
 */
async function readShard(dir: string, name: string): Promise<Shard | undefined> {
  try {
    const text = await readFile(path.join(dir, name), "utf8");
    if (textHash(text) !== SHARD.exec(name)?.[1]) return undefined;
    const read = JSON.parse(text) as unknown;
    if (!isRecord(read) || !Array.isArray(read.shared) || !isRecord(read.refs) || !isRecord(read.entries)) return undefined;
    const { shared, refs, entries } = read as { shared: unknown[]; refs: Record<string, unknown>; entries: Shard };
    for (const value of shared) deepFreeze(value);
    for (const key in refs) {
      const entry = entries[key];
      const fields = refs[key];
      if (!isRecord(entry) || !Array.isArray(fields)) return undefined;
      for (const ref of fields as unknown[]) {
        // An entry's field, or a field of an object in it (`Ref`).
        const inner = Array.isArray(ref) && ref.length === 2 && typeof ref[0] === "string" && typeof ref[1] === "string";
        const holder: unknown = inner ? entry[ref[0]] : entry;
        const field: unknown = inner ? ref[1] : ref;
        if (!isRecord(holder) || Object.isFrozen(holder) || typeof field !== "string") return undefined;
        const place = holder[field];
        if (typeof place !== "number" || !Object.hasOwn(shared, place)) return undefined;
        holder[field] = shared[place];
      }
    }
    return entries;
  } catch {
    return undefined;
  }
}

/** Freezes a value parsed from JSON and every object in it. */
function deepFreeze(value: unknown): void {
  if (typeof value !== "object" || value === null) return;
  for (const inner of Object.values(value)) deepFreeze(inner);
  Object.freeze(value);
}

/** How many shards a part of `size` entries is kept in: a power of two, so that sizes near each other share a count. */
const shardCount = (size: number) => Math.min(MAX_SHARDS, 2 ** Math.ceil(Math.log2(Math.max(1, size / PER_SHARD))));

/** The shard of a key: FNV-1a of its UTF-16 units (a crypto hash a key cost a fifth of a save of 60,000 entries). */
function shardOf(key: string, count: number): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) hash = Math.imul(hash ^ key.charCodeAt(i), 0x01000193);
  return (hash >>> 0) % count;
}

/** A shard's keys and values in one flat list: each key, then its value. */
function heldOf(values: Shard): unknown[] {
  const held: unknown[] = [];
  for (const key in values) held.push(key, values[key]);
  return held;
}

/**
 * True when two shards' values (`heldOf`'s lists) are the same keys with the very same values
 * (a shard no entry of which a run replaced): in the same order, as a run that kept them lists
 * them, or in another.
 */
function sameHeld(a: readonly unknown[], b: readonly unknown[]): boolean {
  if (a.length !== b.length) return false;
  let i = 0;
  while (i < a.length && a[i] === b[i]) i++;
  if (i === a.length) return true;
  const values = new Map<unknown, unknown>();
  for (let j = 0; j < a.length; j += 2) values.set(a[j], a[j + 1]);
  // Keys are each once in a list: as many in both, all of `b`'s in `a` with the same value, the same set.
  for (let j = 0; j < b.length; j += 2) if (values.get(b[j]) !== b[j + 1] || !values.has(b[j])) return false;
  return true;
}

/** A shard's entries by key, from its flat list (`heldOf`'s). */
function shardOfHeld(held: readonly unknown[]): Shard {
  const shard: Shard = {};
  for (let i = 0; i < held.length; i += 2) shard[held[i] as string] = held[i + 1];
  return shard;
}

/** The object holding the part at `dotted` (`"rules.articles"`: the record's `rules`), copying the objects on the way when `copy`; undefined when one is missing. */
function parentOf(root: Record<string, unknown>, dotted: string, { copy = false } = {}): { object: Record<string, unknown>; key: string } | undefined {
  const keys = dotted.split(".");
  let object = root;
  for (const key of keys.slice(0, -1)) {
    const next = object[key];
    if (!isRecord(next)) return undefined;
    object = copy ? (object[key] = { ...next }) : next;
  }
  return { object, key: keys.at(-1)! };
}

function parseJson<T>(text: string): T | undefined {
  try {
    return JSON.parse(text) as T;
  } catch {
    return undefined;
  }
}
