/**
 * What the last build wrote of the editors' schemas (tools/editor-schemas.ts), kept in the
 * engine's cache: when the code is the same version (the schemas are made from the theme's
 * zod schemas only) and every file they were written into is as that build left it (same
 * size and modification time, as the up-to-date check compares them), a build does not make
 * them again, nor loads what makes them. Anything else (another version of the code, a file
 * edited, moved or deleted, an unreadable record) makes them again: it fails closed.
 * Deliberately dependency-free, so that the check loads nothing.
 */
import { statSync } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { writeFileAtomic } from "../lib/files.js";

interface SchemasRecord {
  key: string;
  /** Each file written or checked: [absolute path, size, modification time]. */
  files: [string, number, number][];
}

/** Where the record is, in the engine's cache folder. */
export const schemasRecordFile = (cacheDir: string) => path.join(cacheDir, "editor-schemas.json");

const stateOf = (file: string): [string, number, number] | undefined => {
  const stat = statSync(file, { throwIfNoEntry: false });
  return stat?.isFile() ? [file, stat.size, stat.mtimeMs] : undefined;
};

/** True when the record says the schemas of `key` were written and every file is as it was left. */
export async function schemasKept(recordFile: string, key: string): Promise<boolean> {
  try {
    const record = JSON.parse(await readFile(recordFile, "utf8")) as SchemasRecord;
    if (record.key !== key || !Array.isArray(record.files) || record.files.length === 0) return false;
    return record.files.every(([file, size, mtime]) => {
      const now = typeof file === "string" ? stateOf(file) : undefined;
      return now !== undefined && now[1] === size && now[2] === mtime;
    });
  } catch {
    return false;
  }
}

/** Records the files the schemas of `key` were just written into (or found up to date in). */
export async function recordSchemas(recordFile: string, key: string, files: readonly string[]): Promise<void> {
  const states = files.map(stateOf);
  // A file that is not there after writing it (removed meanwhile): nothing is recorded, the next build writes again.
  if (states.some((state) => state === undefined)) return;
  await writeFileAtomic(recordFile, `${JSON.stringify({ key, files: states })}\n`);
}
