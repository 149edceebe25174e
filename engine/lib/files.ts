/**
 * Files on disk, the two ways the engine needs them: every file below a folder (content,
 * public/, the inputs of the up-to-date check), and a file written whole or not at all.
 * Only Node's own modules: the up-to-date check runs before anything else is loaded.
 */
import { readdirSync, statSync } from "node:fs";
import { mkdir, rename, rm, writeFile } from "node:fs/promises";
import path from "node:path";

/**
 * Every file below `dir` (absolute paths, sorted), none when it does not exist. Synchronous
 * on purpose: thousands of small async calls each take a trip through libuv's thread pool,
 * several times slower here. Hidden files and folders are left out unless `hidden` is true;
 * a symlink to a file counts as a file when `links` is true (a link to a folder is not followed).
 */
export function listFiles(dir: string, { hidden = false, links = false }: { hidden?: boolean; links?: boolean } = {}): string[] {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true, recursive: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT" || (error as NodeJS.ErrnoException).code === "ENOTDIR") return [];
    throw error;
  }
  const files: string[] = [];
  // Whether a folder is hidden or below a hidden one, worked out once a folder (its entries are
  // many: a path made relative for each of 100,000 files was a tenth of a large site's listing).
  const hiddenFolders = new Map<string, boolean>();
  const inHidden = (folder: string) => {
    let found = hiddenFolders.get(folder);
    if (found === undefined) hiddenFolders.set(folder, (found = path.relative(dir, folder).split(path.sep).some((part) => part.startsWith("."))));
    return found;
  };
  for (const e of entries) {
    if (!hidden && (e.name.startsWith(".") || inHidden(e.parentPath))) continue;
    const file = path.join(e.parentPath, e.name);
    if (!e.isFile() && !(links && e.isSymbolicLink() && statSync(file, { throwIfNoEntry: false })?.isFile())) continue;
    files.push(file);
  }
  return files.sort();
}

/** A file's state as a stat found it: what the load's evidence of an article's text is made of (stages/load/content.ts). */
export interface StatedFile {
  size: number;
  mtimeMs: number;
  ctimeMs: number;
  ino: number;
  dev: number;
}

/** Files stat'ed at once (by absolute path, as listed), and the clock before the first was: a time close to it may be shared by a write still to come. */
export interface StatedFiles {
  at: number;
  files: ReadonlyMap<string, StatedFile>;
}

/** A path as an author reads it: relative to the site's folder, absolute when it is outside. */
export function shownPath(root: string, file: string): string {
  const relative = path.relative(root, file);
  return relative === "" ? "." : relative.startsWith("..") ? file : relative;
}

/**
 * Writes a file whole or not at all: aside, then renamed over the old one (a reader, or a
 * build killed half-way, never sees half a file). Makes its folder when `mkdirs` says so;
 * `temp` is where it is written first (default beside it; on the same file system).
 */
export async function writeFileAtomic(file: string, data: string | Uint8Array, { mkdirs = true, temp = `${file}.${process.pid}.tmp` }: { mkdirs?: boolean; temp?: string } = {}): Promise<void> {
  if (mkdirs) await mkdir(path.dirname(file), { recursive: true });
  try {
    await writeFile(temp, data);
    await rename(temp, file);
  } catch (error) {
    // Nothing is left beside the file (a read-only one that could not be replaced, a full disk).
    await rm(temp, { force: true }).catch(() => {});
    throw error;
  }
}
