/**
 * What a test run must leave exactly as it found it: the project's files (tracked and
 * untracked, by content and modification time: the up-to-date check of `npm run build` goes
 * by times), its published `dist/` (where the link points and every file under it) and its
 * cache (`node_modules/.cache/engine/`, when node_modules is the project's own). tests/global-setup.ts takes this before the run and
 * compares it after.
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { lstatSync, readdirSync, readFileSync, readlinkSync, realpathSync, statSync } from "node:fs";
import path from "node:path";

export type ProjectState = Map<string, string>;

/** Every file below `dir` (links not followed), relative to it; none when it does not exist. */
function walk(dir: string): string[] {
  try {
    return readdirSync(dir, { recursive: true, withFileTypes: true })
      .filter((e) => !e.isDirectory())
      .map((e) => path.relative(dir, path.join(e.parentPath, e.name)))
      .sort();
  } catch {
    return [];
  }
}

/** A file as compared: its kind, size, modification time and, when `hash`, a hash of its bytes. */
function describeFile(file: string, hash: boolean): string {
  const s = lstatSync(file, { throwIfNoEntry: false });
  if (!s) return "missing";
  if (s.isSymbolicLink()) return `link to ${readlinkSync(file)}`;
  const bytes = hash && s.isFile() ? ` sha256 ${createHash("sha256").update(readFileSync(file)).digest("hex").slice(0, 16)}` : "";
  return `${s.size} bytes, modified ${s.mtimeMs}${bytes}`;
}

/** The project's own files: git's tracked and untracked (not ignored) ones, or a walk outside git. */
function projectFiles(root: string): string[] {
  try {
    const list = (args: string[]) => execFileSync("git", args, { cwd: root, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).split("\0").filter(Boolean);
    return [...list(["ls-files", "-z"]), ...list(["ls-files", "-z", "--others", "--exclude-standard"])].sort();
  } catch {
    return walk(root).filter((f) => !/^(node_modules|\.git|dist|dist\.builds)(\/|$)/.test(f));
  }
}

export function projectState(root: string): ProjectState {
  const state: ProjectState = new Map();
  for (const file of projectFiles(root)) state.set(file, describeFile(path.join(root, file), true));
  // The published site: the link (or folder) dist/, what it points to, and the build folders beside it.
  const dist = path.join(root, "dist");
  state.set("dist", describeFile(dist, false));
  const published = (() => {
    try {
      return statSync(dist).isDirectory() ? realpathSync(dist) : undefined;
    } catch {
      return undefined;
    }
  })();
  if (published) for (const file of walk(published)) state.set(`dist/${file}`, describeFile(path.join(published, file), true));
  for (const file of walk(path.join(root, "dist.builds"))) state.set(`dist.builds/${file}`, describeFile(path.join(root, "dist.builds", file), false));
  // The cache: entries by size and time (any write changes the time). Only the project's own:
  // a worktree whose node_modules is a link to another checkout's would count that checkout's
  // cache, which its own builds change while this run goes on.
  const cache = path.join(root, "node_modules/.cache/engine");
  if (ownFolder(root, path.join(root, "node_modules"))) {
    for (const file of walk(cache)) state.set(`node_modules/.cache/engine/${file}`, describeFile(path.join(cache, file), false));
  }
  return state;
}

/** Whether `dir` (when it exists) is inside `root` once links are followed. */
function ownFolder(root: string, dir: string): boolean {
  try {
    const inside = path.relative(realpathSync(root), realpathSync(dir));
    return !inside.startsWith("..") && !path.isAbsolute(inside);
  } catch {
    return true;
  }
}

/** What changed between two states, one line each (none: nothing did). */
export function stateChanges(before: ProjectState, after: ProjectState): string[] {
  const changes: string[] = [];
  for (const [file, was] of before) {
    const now = after.get(file);
    if (now === undefined) changes.push(`${file}: removed (was ${was})`);
    else if (now !== was) changes.push(`${file}: changed (was ${was}; now ${now})`);
  }
  for (const [file, now] of after) if (!before.has(file)) changes.push(`${file}: added (${now})`);
  return changes;
}
