/** Whether two builds wrote the same site: every file's bytes, compared by hash. */
import { createHash } from "node:crypto";
import { readdir, readFile, realpath } from "node:fs/promises";
import path from "node:path";

/** Each file under `dir` (links followed: an output folder is a link to its build) by its path, as the hash of its bytes. */
export async function outputHashes(dir: string): Promise<Map<string, string>> {
  const root = await realpath(dir);
  const found = new Map<string, string>();
  for (const entry of await readdir(root, { recursive: true, withFileTypes: true })) {
    // The up-to-date check's record of the inputs' times: the host never serves it (static-server.ts).
    if (!entry.isFile() || entry.name === ".cafe-build.json") continue;
    const full = path.join(entry.parentPath, entry.name);
    found.set(path.relative(root, full), createHash("sha256").update(await readFile(full)).digest("hex"));
  }
  return found;
}

/** The files that are in one output and not the other, or in both with other bytes, sorted. */
export function differentFiles(left: ReadonlyMap<string, string>, right: ReadonlyMap<string, string>): string[] {
  const names = new Set([...left.keys(), ...right.keys()]);
  return [...names].filter((name) => left.get(name) !== right.get(name)).sort();
}
