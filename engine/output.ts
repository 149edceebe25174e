/**
 * The writers the write stage (write.ts) hands files to. The writer is an interface so tests build in memory;
 * the folder writer builds into a new folder and publishes it by switching a symlink only
 * when the whole site is written, so a failed or killed build never leaves a half-written or
 * missing site.
 */
import { hashOf } from "./hash.js";
import { cp, link, lstat, mkdir, readdir, readFile, readlink, rename, rm, stat, symlink, writeFile } from "node:fs/promises";
import path from "node:path";

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
  /** Takes a file as the last build wrote it, unchanged (of `size` bytes, when given); false when it cannot. */
  reuse(file: string, size?: number): Promise<boolean>;
  /** Removes a file that is no longer part of the site. */
  remove(file: string): Promise<void>;
  /** Copies a folder (public/) into the site as-is. */
  copyDir(from: string): Promise<void>;
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

let memoryWriters = 0;

/** Keeps the site in a Map: for tests and for measuring. */
export class MemoryWriter implements SiteWriter {
  readonly files = new Map<string, string | Uint8Array>();
  /** This writer's own name: a builder reuses what it holds, and nothing of another writer. */
  readonly output = `memory:${++memoryWriters}`;
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
  async reuse(file: string, size?: number) {
    const data = this.files.get(file);
    return data !== undefined && (size === undefined || Buffer.byteLength(data) === size);
  }
  async copyDir() {}
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

/** The moments of a folder build that a kill can interrupt (tests stop a build at each one). */
export type OutputStep = "staging" | "written" | "linked" | "swapped" | "cleaned";

/**
 * Writes a whole site into a new folder `<outDir>.builds/<id>` and publishes it by pointing
 * the symlink `<outDir>` at it: one `rename` of a new link over the old one, which the
 * system does atomically. So `<outDir>` is always a complete site, the previous or the new
 * one, whenever the process is killed; folders a killed build left behind are removed by the
 * next one. (Where `<outDir>` is still a plain folder, from before, the first build moves it
 * into `<outDir>.builds/` and links to its own: that once, the two renames leave a moment
 * without it.)
 */
export class FolderWriter implements SiteWriter {
  private readonly out: string;
  private readonly builds: string;
  private readonly staging: string;
  private readonly inFlight = new Set<Promise<void>>();
  /** Folders made so far: each page needs its folder, and most share one. */
  private readonly made = new Set<string>();
  private closed = false;

  /** `onStep` is for tests: called at each moment a kill could interrupt. */
  constructor(
    readonly outDir: string,
    private readonly onStep: (step: OutputStep) => void = () => {},
  ) {
    this.out = path.resolve(outDir.replace(/[\\/]+$/, ""));
    this.builds = `${this.out}.builds`;
    this.staging = path.join(this.builds, `${Date.now().toString(36)}-${process.pid}`);
  }

  /** Runs an operation on the staging folder, unless the build was stopped; abort waits for it. */
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

  /** The folder this build writes, published by commit. */
  get output(): string {
    return this.staging;
  }

  /** The published build, read at `begin`: unchanged files are linked from it. */
  reusable?: string;

  async begin(): Promise<void> {
    await this.guard(async () => {
      await removeStaleBuilds(this.out, this.builds);
      this.reusable = await currentBuild(this.out);
      await mkdir(this.staging, { recursive: true });
      this.onStep("staging");
    });
  }

  /**
   * Takes an unchanged file from the published build by a hard link (no copy, no write): the
   * two builds share its bytes, and neither ever writes into a file (a write makes a new one).
   */
  async reuse(file: string, size?: number): Promise<boolean> {
    if (!this.reusable) return false;
    const from = path.join(this.reusable, file);
    const target = path.join(this.staging, file);
    return this.guard(async () => {
      try {
        if (size !== undefined && (await stat(from)).size !== size) return false;
        await this.ensureDir(path.dirname(target));
        await link(from, target);
        return true;
      } catch {
        return false;
      }
    });
  }

  private async ensureDir(dir: string): Promise<void> {
    if (!this.made.has(dir)) {
      await mkdir(dir, { recursive: true });
      this.made.add(dir);
    }
  }

  async write(file: string, contents: string | Uint8Array): Promise<boolean> {
    const target = path.join(this.staging, file);
    const dir = path.dirname(target);
    await this.guard(async () => {
      try {
        await this.ensureDir(dir);
        // Never into an existing file: it may be one taken from the last build by a link.
        await writeFile(target, contents, { flag: "wx" }).catch(async (error: NodeJS.ErrnoException) => {
          if (error.code !== "EEXIST") throw error;
          await rm(target);
          await writeFile(target, contents, { flag: "wx" });
        });
      } catch (error) {
        throw new Error(`could not write ${file}: ${(error as Error).message}`, { cause: error });
      }
    });
    return true;
  }

  async remove(file: string): Promise<void> {
    await this.guard(() => rm(path.join(this.staging, file), { force: true }));
  }

  async copyDir(from: string): Promise<void> {
    const exists = await stat(from).then((s) => s.isDirectory(), () => false);
    if (exists) await this.guard(() => cp(from, this.staging, { recursive: true }));
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
    await Promise.allSettled([...this.inFlight]);
    this.onStep("written");
    const previous = await currentBuild(this.out);
    const link = `${this.out}.link-${process.pid}`;
    await rm(link, { force: true });
    await symlink(path.relative(path.dirname(this.out), this.staging), link);
    this.onStep("linked");
    const plainFolder = await lstat(this.out).then((s) => !s.isSymbolicLink(), () => false);
    const moved = path.join(this.builds, `previous-${process.pid}`);
    if (plainFolder) await rename(this.out, moved);
    await rename(link, this.out);
    this.onStep("swapped");
    await removeStaleBuilds(this.out, this.builds);
    for (const old of [previous, plainFolder ? moved : undefined]) {
      if (old && old !== this.staging) await rm(old, { recursive: true, force: true });
    }
    this.onStep("cleaned");
  }

  private aborting?: Promise<void>;

  abort(): Promise<void> {
    // No write may start after this, and those under way finish before the folder goes.
    this.closed = true;
    this.aborting ??= (async () => {
      if (this.committing) return this.committing.catch(() => {});
      while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
      await rm(this.staging, { recursive: true, force: true });
    })();
    return this.aborting;
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

  /** The file is already in place: it stays as the last build (or the last session) wrote it. */
  async reuse(file: string, size?: number): Promise<boolean> {
    return stat(path.join(this.outDir, file)).then((s) => s.isFile() && (size === undefined || s.size === size), () => false);
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
    const temp = `${target}.${process.pid}.tmp`;
    await writeFile(temp, contents);
    await rename(temp, target);
    this.hashes.set(file, hash);
    return true;
  }

  async remove(file: string): Promise<void> {
    this.hashes.delete(file);
    await rm(path.join(this.outDir, file), { force: true });
  }

  async copyDir(from: string): Promise<void> {
    const exists = await stat(from).then((s) => s.isDirectory(), () => false);
    if (exists) await cp(from, this.outDir, { recursive: true });
  }

  copyFile(from: string, to: string): Promise<boolean> {
    return copyInto(this, from, to);
  }

  async commit(): Promise<void> {}
  async abort(): Promise<void> {}
}

/** The folder the `out` link points at, if it is a link. */
async function currentBuild(out: string): Promise<string | undefined> {
  const target = await readlink(out).catch(() => undefined);
  return target === undefined ? undefined : path.resolve(path.dirname(out), target);
}

/**
 * Removes what killed builds left: folders of `builds` that `out` does not point at and
 * whose process is gone, and a link that never replaced `out`.
 */
async function removeStaleBuilds(out: string, builds: string): Promise<void> {
  // A kill in the middle of the first switch from a plain folder: put that folder back.
  const missing = await lstat(out).then(() => false, () => true);
  const moved = (await readdir(builds).catch(() => [] as string[])).find((name) => /^previous-\d+$/.test(name));
  if (missing && moved) await rename(path.join(builds, moved), out);
  const current = await currentBuild(out);
  const parent = path.dirname(out);
  const linkPrefix = `${path.basename(out)}.link-`;
  const leftovers = [
    ...(await readdir(builds).catch(() => [] as string[])).map((name) => path.join(builds, name)),
    ...(await readdir(parent).catch(() => [] as string[])).filter((n) => n.startsWith(linkPrefix)).map((n) => path.join(parent, n)),
  ];
  for (const leftover of leftovers) {
    if (leftover === current) continue;
    const pid = Number(/-(\d+)$/.exec(leftover)?.[1]);
    if (pid === process.pid || isAlive(pid)) continue;
    await rm(leftover, { recursive: true, force: true });
  }
}

function isAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
