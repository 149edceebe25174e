/**
 * Stage 6 — output: writes the site. The writer is an interface so tests build in memory;
 * the folder writer builds into a temporary sibling folder and swaps it in only when the
 * whole site is written, so a failed build never leaves a half-written or missing site.
 */
import { mkdir, rename, rm, writeFile, cp, stat } from "node:fs/promises";
import path from "node:path";

export interface SiteWriter {
  write(file: string, contents: string | Uint8Array): Promise<void>;
  /** Copies a folder (public/) into the site as-is. */
  copyDir(from: string): Promise<void>;
  /** Makes the written site the current one. */
  commit(): Promise<void>;
  /** Throws away what was written; the previous site stays. */
  abort(): Promise<void>;
}

/** Keeps the site in a Map: for tests and for measuring. */
export class MemoryWriter implements SiteWriter {
  readonly files = new Map<string, string | Uint8Array>();
  async write(file: string, contents: string | Uint8Array) {
    this.files.set(file, contents);
  }
  async copyDir() {}
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
  private readonly made = new Set<string>();

  constructor(readonly outDir: string) {
    this.staging = `${outDir.replace(/[\\/]+$/, "")}.tmp-${process.pid}`;
  }

  async begin(): Promise<void> {
    await rm(this.staging, { recursive: true, force: true });
    await mkdir(this.staging, { recursive: true });
  }

  async write(file: string, contents: string | Uint8Array): Promise<void> {
    const target = path.join(this.staging, file);
    const dir = path.dirname(target);
    if (!this.made.has(dir)) {
      await mkdir(dir, { recursive: true });
      this.made.add(dir);
    }
    await writeFile(target, contents);
  }

  async copyDir(from: string): Promise<void> {
    const exists = await stat(from).then((s) => s.isDirectory(), () => false);
    if (exists) await cp(from, this.staging, { recursive: true });
  }

  async commit(): Promise<void> {
    const previous = `${this.outDir.replace(/[\\/]+$/, "")}.old-${process.pid}`;
    const hadPrevious = await stat(this.outDir).then(() => true, () => false);
    if (hadPrevious) await rename(this.outDir, previous);
    await rename(this.staging, this.outDir);
    if (hadPrevious) await rm(previous, { recursive: true, force: true });
  }

  async abort(): Promise<void> {
    await rm(this.staging, { recursive: true, force: true });
  }
}
