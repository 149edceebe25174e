/**
 * The writers the write stage (write.ts) hands files to. The writer is an interface so tests build in memory;
 * the folder writer builds into the standby of two build folders and publishes it by switching
 * a symlink only when the whole site is written, so a failed or killed build never leaves a
 * half-written or missing site.
 */
import { randomUUID } from "node:crypto";
import { hashOf } from "../../lib/hash.js";
import { closeSync, constants, copyFileSync, ftruncateSync, linkSync, lstatSync, mkdirSync, openSync, readFileSync, rmdirSync, rmSync, statSync, unlinkSync, writeSync, open, write, close } from "node:fs";
import { mkdir, readFile, rm, stat, symlink as fsSymlink } from "node:fs/promises";
import { setImmediate as turn } from "node:timers/promises";
import { writeFileAtomic } from "../../lib/files.js";
import { foreignOutput } from "./output-folder.js";
import path from "node:path";
import { intact, newBuildId, openLayout, recordPath, releaseLock, SLOTS, stateOf, switchOut, takeLock, type HeldFile, type HeldLock, type Layout, type Slot, type SymlinkFn, writeRecord } from "./build-folders.js";

export interface SiteWriter {
  /** Writes a file; resolves false when it already held exactly these bytes. */
  write(file: string, contents: string | Uint8Array): Promise<boolean>;
  /**
   * The output this writer makes (a build folder, a served folder): the cache notes which
   * output holds the pages it describes.
   */
  readonly output?: string;
  /** The output whose files `reuse` can take into this one (the previous build, the same folder). */
  readonly reusable?: string;
  /**
   * Takes files as the last build wrote them, unchanged (each of the size given, when given),
   * all in one call (a rebuild's kept pages are asked at once, not one by one): resolves to
   * those it took; the others are the caller's to write.
   */
  reuse(files: ReadonlyMap<string, number | undefined>): Promise<Set<string>>;
  /** Removes a file that is no longer part of the site. */
  remove(file: string): Promise<void>;
  /** Copies one file into the site; false when the source no longer exists. */
  copyFile(from: string, to: string): Promise<boolean>;
  /** Makes the written site the current one. */
  commit(): Promise<void>;
  /** Throws away what was written; the previous site stays. */
  abort(): Promise<void>;
}

/** Copies one file into a site through its writer; false when the source is gone. */
async function copyInto(writer: SiteWriter, from: string, to: string): Promise<boolean> {
  try {
    await writer.write(to, await readFile(from));
    return true;
  } catch {
    return false;
  }
}

/** Keeps the site in a Map: for tests and for measuring. */
export class MemoryWriter implements SiteWriter {
  readonly files = new Map<string, string | Uint8Array>();
  /** This writer's own name: a builder reuses what it holds, and nothing of another writer. */
  readonly output = `memory:${randomUUID()}`;
  readonly reusable = this.output;
  async write(file: string, contents: string | Uint8Array) {
    const old = this.files.get(file);
    if (old !== undefined && Buffer.from(old).equals(Buffer.from(contents))) return false;
    this.files.set(file, contents);
    return true;
  }
  async remove(file: string) {
    this.files.delete(file);
  }
  /** A file this writer already holds stays as it is. */
  async reuse(files: ReadonlyMap<string, number | undefined>) {
    const taken = new Set<string>();
    for (const [file, size] of files) {
      const data = this.files.get(file);
      if (data !== undefined && (size === undefined || Buffer.byteLength(data) === size)) taken.add(file);
    }
    return taken;
  }
  copyFile(from: string, to: string) {
    return copyInto(this, from, to);
  }
  async commit() {}
  async abort() {
    this.files.clear();
  }
  text(file: string): string {
    const value = this.files.get(file);
    if (value === undefined) throw new Error(`not built: ${file}`);
    return typeof value === "string" ? value : Buffer.from(value).toString("utf8");
  }
}

/**
 * The moments of a folder build that a kill can interrupt (tests stop a build at each one):
 * the standby folder found ("staging"), its first file replaced ("writing"), all written and
 * recorded ("written"), the new link made ("linked"), `<outDir>` switched ("swapped"), done ("cleaned").
 */
export type OutputStep = "staging" | "writing" | "written" | "linked" | "swapped" | "cleaned";

export interface FolderWriterOptions {
  /** For tests: called at each moment a kill could interrupt. */
  onStep?: (step: OutputStep) => void;
  /** Makes a symlink (`fs.symlink`); tests make it fail as Windows without developer mode does. */
  symlink?: SymlinkFn;
}

/**
 * Writes a site into the standby build folder behind `<outDir>` and publishes it whole
 * (build-folders.ts has the layout). Two folders are used in turn, so the standby holds the
 * site of two builds ago: this build brings it up to date with only what changed since, a
 * file it already holds with the same bytes is left as it is, one the last build changed is
 * hard-linked from the live folder, one the site no longer has is removed at commit. Then
 * `<outDir>` is switched to it: one `rename` of a new symlink over the old one, which the
 * system does atomically; where no symlink can be made, two renames (the live folder moves
 * back to its place in `<outDir>.builds`, the new one to `<outDir>`). So `<outDir>` is a
 * complete site, the previous or the new one, whenever the process is killed; what a killed
 * build left is put right by the next one.
 */
export class FolderWriter implements SiteWriter {
  private readonly out: string;
  private readonly builds: string;
  private readonly onStep: (step: OutputStep) => void;
  private readonly symlink: SymlinkFn;
  private readonly inFlight = new Set<Promise<void>>();
  /** Folders made so far: each page needs its folder, and most share one. */
  private readonly made = new Set<string>();
  private closed = false;
  private layout?: Layout;
  /** What the standby folder holds, kept exact as this build changes it. */
  private held = new Map<string, HeldFile>();
  /** What the live folder holds (its record): the bytes `reuse` stands for. */
  private liveFiles?: ReadonlyMap<string, HeldFile>;
  /** The files of this build: the standby's others are removed at commit. */
  private readonly touched = new Set<string>();
  /** Files `remove` took out: their folders may be left empty. */
  private readonly removed: string[] = [];
  /** The standby's record is deleted before the folder's first change (a kill then leaves it unknown, so emptied). */
  private unrecorded?: Promise<void>;
  private readonly id = newBuildId();
  private lock?: HeldLock;
  private writing = false;

  /** `options.onStep` (or a function as the second argument) is for tests. */
  constructor(
    readonly outDir: string,
    options: FolderWriterOptions | ((step: OutputStep) => void) = {},
  ) {
    const { onStep = () => {}, symlink = fsSymlink } = typeof options === "function" ? { onStep: options } : options;
    this.onStep = onStep;
    this.symlink = symlink;
    // path.resolve drops a trailing separator itself ("/" stays the root, never "").
    this.out = path.resolve(outDir);
    this.builds = `${this.out}.builds`;
  }

  /** Runs an operation on the standby folder, unless the build was stopped; abort waits for it. */
  private async guard<T>(operation: () => Promise<T>): Promise<T> {
    if (this.closed) throw new Error("the build was stopped");
    const running = operation();
    const settled = running.then(() => {}, () => {});
    this.inFlight.add(settled);
    try {
      return await running;
    } finally {
      this.inFlight.delete(settled);
    }
  }

  /** The build this writer makes: its folder and its own id (the folders are used again, builds never). */
  get output(): string | undefined {
    return this.layout && `${this.layout.standby.dir}#${this.id}`;
  }

  /** True once `begin` found a site at `<outDir>` (this output was built before). */
  get hadSite(): boolean {
    return this.layout?.live !== undefined;
  }

  /** The files of the published build as its record lists them, once `begin` read it; undefined when it has none (an older build, or no site). */
  get publishedFiles(): readonly string[] | undefined {
    return this.liveFiles && [...this.liveFiles.keys()];
  }

  /**
   * The files of the site this build published, each with the state it left it in (`<outDir>`
   * holds these and no other, but the up-to-date check's note): undefined until it is published.
   */
  get publishedSite(): ReadonlyMap<string, HeldFile> | undefined {
    return this.switched ? this.held : undefined;
  }

  /** True once this build's site is the one `<outDir>` names (whatever fails after that, it is published). */
  get published(): boolean {
    return this.switched;
  }
  private switched = false;

  /** The published build, read at `begin`: what `reuse` takes files from. */
  get reusable(): string | undefined {
    const record = this.layout?.live?.record;
    return record && `${path.join(this.builds, record.slot)}#${record.id}`;
  }

  /** The folder this build writes into (published at commit): `holds` says which of its files are this build's, whole. */
  get folder(): string {
    return this.staging;
  }

  /** Whether this build has written (or taken from the last) `file`, whole: what may be served before the build is published. */
  holds(file: string): boolean {
    return this.touched.has(file);
  }

  private get staging(): string {
    if (!this.layout) throw new Error("FolderWriter: begin() first");
    return this.layout.standby.dir;
  }

  async begin(): Promise<void> {
    await this.guard(async () => {
      // Files no build made are never replaced (nor `<out>.builds` made beside them).
      const foreign = foreignOutput(this.out, this.outDir);
      if (foreign) throw new Error(foreign);
      this.lock = await takeLock(this.builds, this.outDir);
      this.layout = await openLayout(this.out, this.builds, this.symlink);
      this.held = this.layout.standby.record?.files ?? new Map();
      this.liveFiles = this.layout.live?.record?.files;
      this.onStep("staging");
    });
  }

  /**
   * Takes files as the live build holds them: nothing to do for a file the standby holds with
   * the same bytes, untouched since; a hard link from the live folder (no copy) for one it
   * does not. A file of the live folder that is not as its build left it is not taken (the
   * caller writes it). The files are gone through in one synchronous pass, a slice at a time
   * (a promise, a guard and trips through libuv's pool per file cost as much again as the
   * links: 20,000 files carried took 1.2–1.5 s of CPU one by one, 0.7 s so), with a turn of
   * the event loop between slices so that a stop is heard.
   */
  async reuse(files: ReadonlyMap<string, number | undefined>): Promise<Set<string>> {
    if (this.closed) throw new Error("the build was stopped");
    const taken = new Set<string>();
    const toCarry: [string, HeldFile][] = [];
    let seen = 0;
    for (const [file, size] of files) {
      if (++seen % SLICE === 0) await turn();
      const live = this.liveFiles?.get(file);
      if (!live || (size !== undefined && live.size !== size)) continue;
      const held = this.held.get(file);
      if (held?.hash === live.hash && intact(path.join(this.staging, file), held)) {
        this.touched.add(file);
        taken.add(file);
      } else toCarry.push([file, live]);
    }
    if (toCarry.length === 0) return taken;
    await this.guard(async () => {
      await (this.unrecorded ??= rm(recordPath(this.builds, this.layout!.standby.slot), { force: true }));
      const liveDir = this.layout!.live!.dir;
      for (let i = 0; i < toCarry.length; i++) {
        if (i > 0 && i % SLICE === 0) {
          await turn();
          if (this.closed) return;
        }
        const [file, live] = toCarry[i]!;
        if (this.carry(liveDir, file, live)) taken.add(file);
      }
    });
    return taken;
  }

  /**
   * Hard-links one file of the live folder into the standby (copies it, on a file system without
   * hard links); false when it cannot. Where the standby holds its own older copy of the file,
   * the live file's bytes are written over that copy instead: a link there would free the copy's
   * inode now and leave the file shared by both folders, so the next build that changes it (in
   * this folder's turn as the standby) unlinks it and makes a new one, an inode allocated per
   * page: every article page changed right after a build that changed none (a template's
   * comment) took 3.5–5.3 s against 2.3 s at 4000 pages, 2.5–5.5 s of it the system's
   * (bench/README.md, session 25).
   */
  private carry(liveDir: string, file: string, live: HeldFile): boolean {
    const from = path.join(liveDir, file);
    if (!intact(from, live)) return false;
    try {
      this.place(file, (target, own) => {
        if (own) {
          const over = writeOver(target, readFileSync(from));
          if (over) return held_(live.hash, target);
        }
        try {
          linkSync(from, target);
          return live;
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code === "EEXIST") throw error;
          // A file system without hard links: a copy.
          copyFileSync(from, target, constants.COPYFILE_EXCL);
          return held_(live.hash, target);
        }
      });
      return true;
    } catch {
      return false;
    }
  }

  /** Writes a file (unless the standby holds these bytes already, or the live build does: then linked); true when they differ from the live build's. */
  async write(file: string, contents: string | Uint8Array): Promise<boolean> {
    // A page's text is made into UTF-8 once, then hashed and written as bytes (the same hash as
    // its text's): hashed as text and written as text, it was encoded twice, and the hash's copy
    // was 68 MB of the 4000 cold build's 1.9 GB of allocations (a sampling heap profile).
    const bytes = typeof contents === "string" ? Buffer.from(contents) : contents;
    const hash = hashOf(bytes);
    await this.guard(async () => {
      try {
        const held = this.held.get(file);
        if (held?.hash === hash && intact(path.join(this.staging, file), held)) {
          this.touched.add(file);
          return;
        }
        // The live build's file holds these very bytes (a page rendered again after an edit that
        // changed none of its HTML: a template's comment, a refactor): linked as `reuse` carries
        // one, not written again (a new file costs an inode; 4000 of them were a third of such a build).
        const live = this.liveFiles?.get(file);
        if (live?.hash === hash) {
          await (this.unrecorded ??= rm(recordPath(this.builds, this.layout!.standby.slot), { force: true }));
          if (this.carry(this.layout!.live!.dir, file, live)) return;
        }
        // Through Node's callbacks, not the promise API: 4000 pages of 10 kB with 16 at a time
        // took 170–235 ms of the calling thread's JavaScript through fs/promises (a FileHandle
        // each), 65–90 ms this way; written synchronously 30–50 ms, but then every open waits on
        // the thread that renders (0.3–1.3 s for 4000 right after many files were deleted),
        // and on the pool it writes every thread's pages (bench/README.md, session 18).
        await this.replace(file, async (target, flag) => {
          await writeWhole(target, bytes, flag);
          return held_(hash, target);
        });
      } catch (error) {
        throw new Error(`could not write ${file}: ${(error as Error).message}`, { cause: error });
      }
    });
    return this.liveFiles?.get(file)?.hash !== hash;
  }

  /**
   * Puts a new file at `file` of the standby: `make` writes it, opened with `flag`, and says
   * what it holds. It creates the file (exclusively); where an earlier build left one there, it
   * writes over that one when it is the standby's own (a plain file with no other link: the
   * live folder shares none of it), else that one is removed and a new one made in its place.
   * Writing over keeps the file: no inode freed and another allocated, which on an ext4
   * without a journal (this project's machine) cost 0.2–0.5 ms a file once many were freed, a
   * second at 4000 pages.
   */
  private async replace(file: string, make: (target: string, flag: string | number) => Promise<HeldFile>): Promise<void> {
    await (this.unrecorded ??= rm(recordPath(this.builds, this.layout!.standby.slot), { force: true }));
    const target = this.vacate(file);
    let made: HeldFile | undefined;
    try {
      made = await make(target, CREATE);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      made = this.standbysOwn(file, target) ? await make(target, OVER).catch(() => undefined) : undefined;
      // Not the standby's own, or not writable as it is (its mode): removed, and a new one made.
      if (!made) {
        this.clear(file);
        made = await make(target, CREATE);
      }
    }
    this.settle(file, made);
  }

  /**
   * `replace`, for a `make` that works synchronously (the standby's record deleted already): asked
   * again with `own` true where an earlier build left the standby's own file there (a plain file
   * with no other link), which it may write over; asked a last time once that one is removed.
   */
  private place(file: string, make: (target: string, own: boolean) => HeldFile): void {
    const target = this.vacate(file);
    let made: HeldFile;
    try {
      made = make(target, false);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      try {
        made = make(target, this.standbysOwn(file, target));
      } catch (again) {
        if ((again as NodeJS.ErrnoException).code !== "EEXIST") throw again;
        this.clear(file);
        made = make(target, false);
      }
    }
    this.settle(file, made);
  }

  /** Whether the file an earlier build left at `target` is the standby's own (a plain file with no other link: the live folder shares none of it), which may be written over; never one this build made. */
  private standbysOwn(file: string, target: string): boolean {
    if (this.touched.has(file)) return false;
    const there = lstatSync(target, { throwIfNoEntry: false });
    return there?.isFile() === true && there.nlink === 1;
  }

  /** Forgets what the standby held at `file` and makes its folder: the path a new file is made at. */
  private vacate(file: string): string {
    this.held.delete(file);
    this.ensureDir(file);
    return path.join(this.staging, file);
  }

  /** Records a file made at `file`: part of this build. */
  private settle(file: string, made: HeldFile): void {
    this.held.set(file, made);
    this.touched.add(file);
    if (!this.writing) {
      this.writing = true;
      this.onStep("writing");
    }
  }

  /** Makes the folder of `file`, first removing a file of an earlier build where one of its folders goes. */
  private ensureDir(file: string): void {
    const dir = path.dirname(path.join(this.staging, file));
    if (this.made.has(dir)) return;
    try {
      mkdirSync(dir, { recursive: true });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== "EEXIST" && code !== "ENOTDIR") throw error;
      for (let rel = path.posix.dirname(file); rel !== "."; rel = path.posix.dirname(rel)) {
        const s = lstatSync(path.join(this.staging, rel), { throwIfNoEntry: false });
        if (s && !s.isDirectory()) this.clear(rel);
      }
      mkdirSync(dir, { recursive: true });
    }
    this.made.add(dir);
  }

  /** Removes what an earlier build left at `file` (a file, or a folder where a file goes now); throws when this build made it. */
  private clear(file: string): void {
    const target = path.join(this.staging, file);
    // A file (a page of two builds ago where this build carries or writes another) is unlinked:
    // nothing is inside it and no folder goes, so neither this build's files nor the folders
    // made are gone through. Gone through for each file, they made a build that carries every
    // page over its old version (the one-article edit after a template edit, at 4000 pages)
    // quadratic: 0.3 s of CPU, and each carried page made its folder again.
    if (this.touched.has(file)) throw new Error(`${file} is already part of this build`);
    try {
      unlinkSync(target);
      this.held.delete(file);
      return;
    } catch {
      // A folder (or nothing): as below.
    }
    const inside = `${file}/`;
    if ([...this.touched].some((f) => f.startsWith(inside))) {
      throw new Error(`${file} is already part of this build`);
    }
    for (const held of [...this.held.keys()]) if (held === file || held.startsWith(inside)) this.held.delete(held);
    rmSync(target, { recursive: true, force: true });
    this.made.clear();
  }

  async remove(file: string): Promise<void> {
    await this.guard(async () => {
      this.touched.delete(file);
      if (!this.held.has(file)) return;
      await (this.unrecorded ??= rm(recordPath(this.builds, this.layout!.standby.slot), { force: true }));
      this.held.delete(file);
      this.removed.push(file);
      await rm(path.join(this.staging, file), { force: true });
    });
  }

  copyFile(from: string, to: string): Promise<boolean> {
    return copyInto(this, from, to);
  }

  private committing?: Promise<void>;

  commit(): Promise<void> {
    if (this.closed) return Promise.reject(new Error("the build was stopped"));
    this.closed = true;
    // Once the swap starts it finishes: an interrupt now waits for it and removes nothing.
    this.committing = this.swap();
    return this.committing;
  }

  private async swap(): Promise<void> {
    try {
      await Promise.allSettled([...this.inFlight]);
      const layout = this.layout;
      if (!layout) throw new Error("FolderWriter: begin() first");
      const { slot, dir } = layout.standby;
      const gone = [...this.held.keys()].filter((file) => !this.touched.has(file));
      if (gone.length > 0) await (this.unrecorded ??= rm(recordPath(this.builds, slot), { force: true }));
      for (const file of gone) {
        this.held.delete(file);
        rmSync(path.join(dir, file), { force: true });
      }
      removeEmptyFolders(dir, [...gone, ...this.removed]);
      const folder = await stat(dir);
      await writeRecord(this.builds, { slot, id: this.id, generation: layout.generation, complete: true, dir: { dev: folder.dev, ino: folder.ino }, files: this.held });
      this.onStep("written");
      const live = layout.live;
      // A live folder that is `<outDir>` itself (no symlink) goes back to its place, as the next standby.
      const aside = live?.record && live.dir === this.out ? path.join(this.builds, live.record.slot) : path.join(this.builds, `previous-${process.pid}`);
      const moved = await switchOut(this.out, dir, { aside, symlink: this.symlink, onLinked: () => this.onStep("linked") }).catch((error: Error) => {
        throw new Error(`could not publish ${this.outDir}: ${error.message}. It is still the previous site; close what holds its files and build again.`, { cause: error });
      });
      this.switched = true;
      // What the folder published before held: nothing is taken from it any more (its record, ~10 MB at 100,000 pages).
      this.liveFiles = undefined;
      this.onStep("swapped");
      if (moved && !live?.record) await rm(moved, { recursive: true, force: true });
      // An older version's build folder, no longer published.
      if (live && !live.record && path.dirname(live.dir) === this.builds && !SLOTS.includes(path.basename(live.dir) as Slot)) {
        await rm(live.dir, { recursive: true, force: true });
      }
    } finally {
      if (this.lock) await releaseLock(this.lock);
    }
    this.onStep("cleaned");
  }

  private aborting?: Promise<void>;

  abort(): Promise<void> {
    // No write may start after this, and those under way finish before the record is written.
    this.closed = true;
    this.aborting ??= (async () => {
      if (this.committing) return this.committing.catch(() => {});
      while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
      const layout = this.layout;
      if (layout && (this.unrecorded || !layout.standby.record)) {
        // The standby holds parts of two builds (or is new): recorded as it is, not as a whole site, so the next build starts from it.
        await this.unrecorded?.catch(() => {});
        const { slot, dir } = layout.standby;
        const folder = await stat(dir).catch(() => undefined);
        if (folder) {
          const record = { slot, id: this.id, generation: layout.generation, complete: false, dir: { dev: folder.dev, ino: folder.ino }, files: this.held };
          await writeRecord(this.builds, record).catch(() => {});
        }
      }
      if (this.lock) await releaseLock(this.lock);
    })();
    return this.aborting;
  }
}

/** Opens a new file of the standby: never one that is there already. */
const CREATE = "wx";
/** Opens a file of the standby to write over it: never a symbolic link, never a file that is not there (no O_CREAT). */
const OVER = constants.O_WRONLY | constants.O_TRUNC | constants.O_NOFOLLOW;

/** Writes all of `bytes` into the file at `target`, opened with `flag` (and closed, whatever happens), through Node's callbacks. */
function writeWhole(target: string, bytes: Uint8Array, flag: string | number): Promise<void> {
  return new Promise((resolve, reject) => {
    open(target, flag, 0o666, (opening, fd) => {
      if (opening) return reject(opening);
      const done = (failure: Error | null) => close(fd, (closing) => (failure || closing ? reject(failure ?? closing) : resolve()));
      const from = (at: number): void =>
        write(fd, bytes, at, bytes.length - at, null, (failure, written) => (failure ? done(failure) : at + written < bytes.length ? from(at + written) : done(null)));
      from(0);
    });
  });
}

/**
 * Writes all of `bytes` over the file at `target`, synchronously, then cuts it to their length
 * (not emptied first: the blocks it has are written over, none freed and allocated again); false
 * when it cannot be opened so (never a symbolic link, never a file that is not there: then it is as it was).
 */
function writeOver(target: string, bytes: Uint8Array): boolean {
  let fd: number;
  try {
    fd = openSync(target, constants.O_WRONLY | constants.O_NOFOLLOW);
  } catch {
    return false;
  }
  try {
    for (let at = 0; at < bytes.length; ) at += writeSync(fd, bytes, at, bytes.length - at, at);
    ftruncateSync(fd, bytes.length);
  } finally {
    closeSync(fd);
  }
  return true;
}

/** How many files `reuse` goes through between two turns of the event loop. */
const SLICE = 2000;

/** What a file just made holds. */
function held_(hash: string, file: string): HeldFile {
  const state = stateOf(file);
  if (!state) throw new Error(`${file} vanished as it was written`);
  return { hash, ...state };
}

/** Removes the folders that removing `files` left empty. */
function removeEmptyFolders(root: string, files: readonly string[]): void {
  const dirs = new Set<string>();
  for (const file of files) for (let dir = path.posix.dirname(file); dir !== "."; dir = path.posix.dirname(dir)) dirs.add(dir);
  // Deepest first: a folder empties once its subfolders are gone.
  for (const dir of [...dirs].sort((x, y) => y.length - x.length)) {
    try {
      rmdirSync(path.join(root, dir));
    } catch {
      // Not empty: it holds files of this build.
    }
  }
}

/**
 * Writes straight into a served folder, for watch mode: each file atomically (a temporary
 * file renamed over it), and only when its bytes changed, so a rebuild touches what it must.
 */
export class LiveWriter implements SiteWriter {
  private readonly hashes = new Map<string, string>();
  private readonly made = new Set<string>();
  readonly output: string;
  readonly reusable: string;
  constructor(readonly outDir: string) {
    this.output = this.reusable = path.resolve(outDir);
  }

  /** Sizes of the files this writer wrote or found in place this session. */
  private readonly sizes = new Map<string, number>();

  /** Told of each file once its new bytes are in place (the dev server reloads a page open in a browser before the build ends). */
  onWritten?: (file: string) => void;

  /**
   * The file is already in place: it stays as the last build (or the last session) wrote it.
   * Looked at once a session (a save in a site of thousands of pages asks this of every page;
   * a stat each cost ~0.2 s a save); after that, what this writer wrote or found is known. The
   * folder is the dev server's own, under the cache: nothing else writes it.
   */
  async reuse(files: ReadonlyMap<string, number | undefined>): Promise<Set<string>> {
    const taken = new Set<string>();
    for (const [file, size] of files) {
      let known = this.sizes.get(file);
      if (known === undefined) {
        const s = statSync(path.join(this.outDir, file), { throwIfNoEntry: false });
        if (!s?.isFile()) continue;
        this.sizes.set(file, (known = s.size));
      }
      if (size === undefined || known === size) taken.add(file);
    }
    return taken;
  }

  async write(file: string, contents: string | Uint8Array): Promise<boolean> {
    const hash = hashOf(contents);
    if (this.hashes.get(file) === hash) return false;
    const target = path.join(this.outDir, file);
    const dir = path.dirname(target);
    if (!this.made.has(dir)) {
      await mkdir(dir, { recursive: true });
      this.made.add(dir);
    }
    await writeFileAtomic(target, contents, { mkdirs: false });
    this.hashes.set(file, hash);
    this.sizes.set(file, typeof contents === "string" ? Buffer.byteLength(contents) : contents.length);
    this.onWritten?.(file);
    return true;
  }

  async remove(file: string): Promise<void> {
    this.hashes.delete(file);
    this.sizes.delete(file);
    await rm(path.join(this.outDir, file), { force: true });
  }

  copyFile(from: string, to: string): Promise<boolean> {
    return copyInto(this, from, to);
  }

  async commit(): Promise<void> {}
  async abort(): Promise<void> {}
}
