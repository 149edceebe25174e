/**
 * A content-addressed store on disk for what is slow to make and never changes for the same
 * inputs: processed images and social cards. An entry is a folder named by the hash of its
 * inputs (`node_modules/.cache/engine/<kind>/<key>/`) holding its files and a manifest with
 * each file's size and hash. It is written under a temporary name and renamed when whole,
 * and an entry that does not read back exactly as its manifest says (a build killed on a
 * file system without atomic renames, a disk that filled up, a hand edit) counts as missing
 * and is made again.
 */
import { feed } from "../lib/hash.js";
import { createHash } from "node:crypto";
import { fileHash } from "../lib/hash.js";
import { mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { cacheRoot } from "./cache-root.js";

interface Manifest<Meta> {
  meta: Meta;
  files: { name: string; size: number; sha256: string }[];
}

/** An entry's files by name and what its maker said about them. */
export interface CacheEntry<Meta> {
  meta: Meta;
  files: Map<string, Uint8Array>;
}

const sha256 = (data: Uint8Array) => fileHash(data, 64);

/** The hash every key is built from: the parts in order, each length-prefixed so no two lists collide. */
export function cacheKey(parts: readonly (string | Uint8Array)[]): string {
  return feed(createHash("sha256"), parts).digest("hex");
}

export class MediaCache<Meta> {
  /** `<cache root>/<kind>` (engine/incremental/cache-root.ts). */
  readonly dir: string;

  constructor(projectRoot: string, kind: string) {
    this.dir = path.join(cacheRoot(projectRoot), kind);
  }

  /** The entry for `key`, or undefined when there is none or it is damaged. */
  async get(key: string): Promise<CacheEntry<Meta> | undefined> {
    const folder = path.join(this.dir, key);
    try {
      const manifest = JSON.parse(await readFile(path.join(folder, "manifest.json"), "utf8")) as Manifest<Meta>;
      const files = new Map<string, Uint8Array>();
      for (const { name, size, sha256: expected } of manifest.files) {
        const data = await readFile(path.join(folder, name));
        if (data.length !== size || sha256(data) !== expected) throw new Error(`damaged: ${name}`);
        files.set(name, data);
      }
      return { meta: manifest.meta, files };
    } catch {
      // Missing (the common case: nothing to remove) or damaged: made again by the caller.
      await rm(folder, { recursive: true, force: true });
      return undefined;
    }
  }

  /** Stores an entry: written aside, then renamed into place in one step. */
  async put(key: string, entry: CacheEntry<Meta>): Promise<void> {
    const folder = path.join(this.dir, key);
    const temp = `${folder}.tmp-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
    try {
      await mkdir(temp, { recursive: true });
      const files: Manifest<Meta>["files"] = [];
      for (const [name, data] of entry.files) {
        await writeFile(path.join(temp, name), data);
        files.push({ name, size: data.length, sha256: sha256(data) });
      }
      await writeFile(path.join(temp, "manifest.json"), JSON.stringify({ meta: entry.meta, files } satisfies Manifest<Meta>));
      await rm(folder, { recursive: true, force: true });
      await rename(temp, folder);
    } catch {
      // Another build stored the same entry meanwhile, or the disk is read-only: the entry
      // is only a saving, never needed.
    } finally {
      await rm(temp, { recursive: true, force: true });
    }
  }
}
