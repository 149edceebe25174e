/**
 * Stage 7 — output: writes the site. The writer is an interface so tests build in memory;
 * the folder writer builds into a temporary sibling folder and swaps it in only when the
 * whole site is written, so a failed build never leaves a half-written or missing site.
 */
import { createHash } from "node:crypto";
import { mkdir, readdir, readFile, rename, rm, writeFile, cp, stat } from "node:fs/promises";
import path from "node:path";

export interface SiteWriter {
  /** Writes a file; resolves false when it already held exactly these bytes. */
  write(file: string, contents: string | Uint8Array): Promise<boolean>;
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

/** Keeps the site in a Map: for tests and for measuring. */
export class MemoryWriter implements SiteWriter {
  readonly files = new Map<string, string | Uint8Array>();
  async write(file: string, contents: string | Uint8Array) {
    const old = this.files.get(file);
    if (old !== undefined && Buffer.from(old).equals(Buffer.from(contents))) return false;
    this.files.set(file, contents);
    return true;
  }
  async remove(file: string) {
    this.files.delete(file);
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

/** Writes into `<outDir>.tmp-<pid>` and swaps it with `outDir` on commit. */
export class FolderWriter implements SiteWriter {
  private readonly staging: string;
  private readonly inFlight = new Set<Promise<void>>();
  /** Folders made so far: each page needs its folder, and most share one. */
  private readonly made = new Set<string>();
  private closed = false;

  constructor(readonly outDir: string) {
    this.staging = `${outDir.replace(/[\\/]+$/, "")}.tmp-${process.pid}`;
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

  async begin(): Promise<void> {
    await this.guard(async () => {
      await removeStaleSiblings(this.outDir);
      await rm(this.staging, { recursive: true, force: true });
      await mkdir(this.staging, { recursive: true });
    });
  }

  async write(file: string, contents: string | Uint8Array): Promise<boolean> {
    const target = path.join(this.staging, file);
    const dir = path.dirname(target);
    await this.guard(async () => {
      try {
        if (!this.made.has(dir)) {
          await mkdir(dir, { recursive: true });
          this.made.add(dir);
        }
        await writeFile(target, contents);
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
    const previous = `${this.outDir.replace(/[\\/]+$/, "")}.old-${process.pid}`;
    const hadPrevious = await stat(this.outDir).then(() => true, () => false);
    if (hadPrevious) await rename(this.outDir, previous);
    await rename(this.staging, this.outDir);
    if (hadPrevious) await rm(previous, { recursive: true, force: true });
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
  constructor(readonly outDir: string) {}

  async write(file: string, contents: string | Uint8Array): Promise<boolean> {
    const hash = createHash("sha1").update(contents).digest("hex");
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

/** Removes `<outDir>.tmp-<pid>` and `.old-<pid>` folders left by builds that were killed. */
async function removeStaleSiblings(outDir: string): Promise<void> {
  const base = path.basename(outDir.replace(/[\\/]+$/, ""));
  const parent = path.dirname(path.resolve(outDir));
  const entries = await readdir(parent).catch(() => [] as string[]);
  for (const name of entries) {
    const match = new RegExp(`^${base.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\\.(tmp|old)-(\\d+)$`).exec(name);
    if (!match) continue;
    const pid = Number(match[2]);
    let alive = pid === process.pid;
    try {
      if (!alive) process.kill(pid, 0);
      alive = true;
    } catch {
      alive = false;
    }
    if (!alive) await rm(path.join(parent, name), { recursive: true, force: true });
  }
}
