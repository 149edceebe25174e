/**
 * Stage 6 — output: writes the site. The writer is an interface so tests build in memory;
 * the folder writer builds into a temporary sibling folder and swaps it in only when the
 * whole site is written, so a failed build never leaves a half-written or missing site.
 */
import { createHash } from "node:crypto";
import { mkdir, readdir, readFile, rename, rm, writeFile, cp, stat } from "node:fs/promises";
import path from "node:path";
import { Worker } from "node:worker_threads";

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

/**
 * Writes files in a thread of its own. A page written through fs.writeFile costs three trips
 * through libuv's pool (open, write, close), each waking a pool thread that the two cores'
 * scheduler then runs in the rendering thread's place: ~0.8 s of a 4000-page build's main
 * thread. Here the rendering thread only posts batches of pages; the writer creates folders
 * and writes each file synchronously, alongside. Plain CommonJS, so it runs the same under
 * tsx and compiled.
 */
const WRITER_THREAD = `
const { mkdirSync, writeFileSync } = require("node:fs");
const { dirname } = require("node:path");
const { parentPort } = require("node:worker_threads");
const made = new Set();
parentPort.on("message", ({ id, files }) => {
  const failed = [];
  for (const [file, contents] of files) {
    try {
      const dir = dirname(file);
      if (!made.has(dir)) {
        mkdirSync(dir, { recursive: true });
        made.add(dir);
      }
      writeFileSync(file, contents);
    } catch (error) {
      failed.push([file, String((error && error.message) || error)]);
    }
  }
  parentPort.postMessage({ id, failed });
});`;

interface Batch {
  id: number;
  files: [string, string | Uint8Array][];
  done: Promise<Map<string, string>>;
  flush: NodeJS.Immediate;
}

/** Batches of files for the writer thread; each write resolves when its batch is on disk. */
class WriterThread {
  private readonly worker = new Worker(WRITER_THREAD, { eval: true });
  private readonly pending = new Map<number, { resolve: (failed: Map<string, string>) => void; reject: (error: Error) => void }>();
  private current?: Batch;
  private nextId = 0;

  constructor() {
    this.worker.unref();
    this.worker.on("message", ({ id, failed }: { id: number; failed: [string, string][] }) => {
      this.pending.get(id)?.resolve(new Map(failed));
      this.pending.delete(id);
      if (this.pending.size === 0) this.worker.unref();
    });
    const fail = (error: Error) => {
      for (const { reject } of this.pending.values()) reject(error);
      this.pending.clear();
    };
    this.worker.on("error", fail);
    this.worker.on("exit", () => fail(new Error("the file writer stopped")));
  }

  async write(file: string, contents: string | Uint8Array): Promise<void> {
    const batch = this.current ?? this.startBatch();
    batch.files.push([file, contents]);
    if (batch.files.length >= 16) this.send(batch);
    const failed = (await batch.done).get(file);
    if (failed !== undefined) throw new Error(`could not write ${file}: ${failed}`);
  }

  private startBatch(): Batch {
    const id = this.nextId++;
    const done = new Promise<Map<string, string>>((resolve, reject) => this.pending.set(id, { resolve, reject }));
    // Sent when it is full or, at the latest, when the renderer yields to the event loop.
    const flush = setImmediate(() => this.send(batch));
    const batch: Batch = { id, files: [], done, flush };
    this.current = batch;
    return batch;
  }

  private send(batch: Batch): void {
    if (this.current !== batch) return;
    this.current = undefined;
    // A renderer that never waits may not reach the event loop's immediates for a long while:
    // a pending one must not keep its batch's pages alive.
    clearImmediate(batch.flush);
    this.worker.ref();
    this.worker.postMessage({ id: batch.id, files: batch.files });
  }

  /** Ends the thread; called once every write has settled. */
  async stop(): Promise<void> {
    await this.worker.terminate();
  }
}

/** Writes into `<outDir>.tmp-<pid>` and swaps it with `outDir` on commit. */
export class FolderWriter implements SiteWriter {
  private readonly staging: string;
  private readonly inFlight = new Set<Promise<void>>();
  private writer?: WriterThread;
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
    await this.guard(() => (this.writer ??= new WriterThread()).write(path.join(this.staging, file), contents));
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
    await this.writer?.stop();
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
      await this.writer?.stop();
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
