/**
 * Up-to-date check for `npm run build`: a fingerprint of every input (content, the theme's
 * folders, the engine, public, the lock file) and of the output written from it. When both
 * match the last build, there is nothing to do and the output is left exactly as it is.
 * Deliberately dependency-free, so the check runs before the engine and React are loaded.
 */
import { cacheRoot } from "./cache-root.js";
import { feed, fileHash, hashOfAll } from "../lib/hash.js";
import { RECORD_FILE } from "../lib/site-paths.js";
import { createHash } from "node:crypto";
import { existsSync, statSync, type Stats } from "node:fs";
import { listFiles, writeFileAtomic, type StatedFile, type StatedFiles } from "../lib/files.js";
import { readFile } from "node:fs/promises";
import path from "node:path";

const MANIFEST = ".cafe-build.json";

/** Every file below `dir` (or `dir` itself, when it is a file), hidden ones and links to files included (an edit to any input counts; public/'s links are published). */
const files = (dir: string) => (statSync(dir, { throwIfNoEntry: false })?.isFile() ? [dir] : listFiles(dir, { hidden: true, links: true }));

/** The names a lock file of the libraries may have (npm, yarn, pnpm, bun). */
const LOCK_FILES = ["package-lock.json", "npm-shrinkwrap.json", "yarn.lock", "pnpm-lock.yaml", "bun.lock", "bun.lockb"];

/** The lock file of the libraries a site uses: in its folder or the nearest above it (a workspace's); undefined when there is none. */
export function lockFileOf(projectRoot: string): string | undefined {
  for (let dir = path.resolve(projectRoot); ; dir = path.dirname(dir)) {
    for (const name of LOCK_FILES) if (statSync(path.join(dir, name), { throwIfNoEntry: false })?.isFile()) return path.join(dir, name);
    if (path.dirname(dir) === dir) return undefined;
  }
}

/**
 * A build's inputs' fingerprint as they are now (`value`); and `again()`, the same with the
 * record of published addresses (`<content>/published-routes.txt`) stat'ed again: a build that
 * adds to that record changes that input, and only that one, itself. Its up-to-date note takes
 * the record as the build left it and every other input as the build found it: a file saved
 * while the build ran makes the next build run (stat'ing every input again after the build
 * would have recorded the saved file as built).
 */
export interface InputFingerprint {
  value: string;
  again(): string;
  /**
   * The content's files as the fingerprint stat'ed them, handed once to the build's load
   * (content.ts), which takes them instead of stat'ing each article again (at 100,000 articles
   * half a second of a one-article edit); undefined once taken.
   */
  takeStated(): StatedFiles | undefined;
}

/**
 * Hash of the inputs' paths (relative to the site's folder), sizes and modification times,
 * as make and ninja compare them: editing, adding, removing or checking out a file changes it.
 */
export async function inputFingerprint(projectRoot: string, contentDir: string, folders: readonly string[], options: string): Promise<InputFingerprint> {
  const dirs = [contentDir, ...folders.map((d) => path.join(projectRoot, d))];
  const lock = lockFileOf(projectRoot);
  // Named as the content folder's listing names it.
  const record = path.join(contentDir, RECORD_FILE);
  const all = [...dirs.flatMap(files), ...(lock ? [lock] : [])].filter((file) => file !== record);
  // The content's files' states are kept for the load: the clock first (`StatedFiles.at`).
  const at = Date.now();
  const inside = contentDir.endsWith(path.sep) ? contentDir : contentDir + path.sep;
  // Held by `stated` alone, which `takeStated` lets go of (a variable of this scope that the closures below keep would keep them all).
  let stated: StatedFiles | undefined = { at, files: new Map<string, StatedFile>() };
  const keep = (file: string, s: Stats | undefined) => {
    if (s && file.startsWith(inside)) (stated!.files as Map<string, StatedFile>).set(file, { size: s.size, mtimeMs: s.mtimeMs, ctimeMs: s.ctimeMs, ino: s.ino, dev: s.dev });
  };
  // Every input but the record, fed once; the record's state after them, each time it is asked for.
  const before = feed(createHash("sha1"), statesOf(all, options, projectRoot, keep));
  const withRecord = () => feed(before.copy(), statesOf([record], "", projectRoot)).digest("base64url");
  const takeStated = () => {
    const taken = stated;
    stated = undefined;
    return taken;
  };
  return { value: withRecord(), again: withRecord, takeStated };
}

function describe(list: string[], seed: string, relativeTo?: string): string {
  return hashOfAll(statesOf(list, seed, relativeTo));
}

/** `seed`, then each file's name (from `relativeTo`), size and modification time; `stated` is told each file's stat. */
function* statesOf(list: readonly string[], seed: string, relativeTo?: string, stated?: (file: string, s: Stats | undefined) => void): Generator<string> {
  // A file inside the folder (listed by its folder, so normalized) is named by cutting the folder off: what path.relative
  // says, without normalizing both paths again for each of thousands of files.
  const base = relativeTo === undefined ? undefined : path.resolve(relativeTo);
  const inside = base === undefined ? "" : base.endsWith(path.sep) ? base : base + path.sep;
  const named = (file: string) => (base === undefined ? file : file.startsWith(inside) && !file.includes(`${path.sep}..`) ? file.slice(inside.length) : path.relative(base, file));
  yield seed;
  for (const file of list) {
    const s = statSync(file, { throwIfNoEntry: false });
    stated?.(file, s);
    yield stateLine(named(file), s);
  }
}

/** One file's line of a fingerprint: its name, size and modification time (-1 for a file that is not there). Listed or known from the build that wrote it, the same line. */
const stateLine = (name: string, s: FileState | undefined) => `${name}\0${s?.size ?? -1}\0${s?.mtimeMs ?? -1}`;

/** Paths, sizes and modification times of the output: cheap to check, hard to fake by accident. */
function outputFingerprint(outDir: string): string {
  const list = files(outDir).filter((f) => path.basename(f) !== MANIFEST);
  return describe(list, "", outDir);
}

/** A file's size and modification time, as a build that made it knows them. */
export interface FileState {
  size: number;
  mtimeMs: number;
}

/**
 * The output's fingerprint from what the build that wrote it knows it holds (each file by its
 * path from `outDir`, "/" between folders, with the state the build left it in): the very
 * value a listing of the folder gives (`outputFingerprint`), without listing and stat'ing its
 * files again (at 100,000 pages 0.7 s of a one-article edit). A file changed or added by
 * anything else since makes the check's listing differ: the next build runs.
 */
export function outputFingerprintOf(outDir: string, held: ReadonlyMap<string, FileState>): string {
  const files = [...held.keys()].filter((file) => path.posix.basename(file) !== MANIFEST);
  // Where "/" is the system's separator, each file as the listing names it (no pair made of each of 100,000).
  const shown = path.sep === "/" ? undefined : new Map(files.map((file) => [file, file.split("/").join(path.sep)]));
  // In the listing's order: its absolute paths sorted (by UTF-16 code units, as `sort` does), the folder's the same for each.
  if (shown) files.sort((a, b) => (shown.get(a)! < shown.get(b)! ? -1 : shown.get(a)! > shown.get(b)! ? 1 : 0));
  else files.sort();
  function* states(): Generator<string> {
    yield "";
    for (const file of files) yield stateLine(shown?.get(file) ?? file, held.get(file));
  }
  return hashOfAll(states());
}

/** True when `outDir` holds the build of exactly these inputs, untouched since. */
export async function isUpToDate(outDir: string, inputs: string): Promise<boolean> {
  try {
    const recorded = JSON.parse(await readFile(path.join(outDir, MANIFEST), "utf8")) as { inputs: string; output: string };
    return recorded.inputs === inputs && recorded.output === outputFingerprint(outDir);
  } catch {
    return false;
  }
}

/**
 * Records what `outDir` was built from, after a successful build; `held`: what the build knows
 * the folder holds (its writer's record, `outputFingerprintOf`), else the folder is listed.
 */
export async function recordBuild(outDir: string, inputs: string, held?: ReadonlyMap<string, FileState>): Promise<void> {
  const output = held ? outputFingerprintOf(outDir, held) : outputFingerprint(outDir);
  // Aside and renamed over the old one: never half a note, and a read-only old one is replaced.
  // Written first into the build folders beside the site (swept there if a kill leaves it), never into the published site.
  const builds = `${path.resolve(outDir)}.builds`;
  const temp = existsSync(builds) ? path.join(builds, `${MANIFEST}-${process.pid}`) : undefined;
  await writeFileAtomic(path.join(outDir, MANIFEST), `${JSON.stringify({ inputs, output })}\n`, { mkdirs: false, temp });
}

/**
 * The version of the code that builds the site: a hash of the engine's and the theme's files
 * and of the lock file (the libraries). The persistent cache belongs to one version.
 */
export async function codeVersion(projectRoot: string, folders: readonly string[]): Promise<string> {
  const lock = lockFileOf(projectRoot);
  const list = [...folders.flatMap((d) => files(path.join(projectRoot, d))), ...(lock ? [lock] : [])];
  const parts: (string | Uint8Array)[] = [];
  for (const file of list) parts.push(path.relative(projectRoot, file), await readFile(file));
  return hashOfAll(parts);
}

/** The fingerprint of a build's inputs: content, code folders, public/, the lock file, and NODE_ENV. */
export function projectInputs(projectRoot: string, contentDir: string, folders: readonly string[]): Promise<InputFingerprint> {
  return inputFingerprint(projectRoot, contentDir, folders, JSON.stringify({ NODE_ENV: process.env.NODE_ENV }));
}

/** Where the persistent cache of one content folder lives, for `build` or for `dev` (which includes drafts). */
export function cacheDirOf(projectRoot: string, contentDir: string, mode: "build" | "dev"): string {
  const site = fileHash(path.relative(projectRoot, contentDir) || ".", 12);
  return path.join(cacheRoot(projectRoot), `${site}-${mode}`);
}
