/**
 * Which folders a build may publish into. A build replaces its output folder whole (writers.ts
 * switches `<out>` to a new build folder and deletes what was there when it was a plain
 * folder), so an output that is the site's folder, a folder above it, its content, public or
 * code folders, or any folder holding files no build made, would be deleted. These checks run
 * before anything is written, and say what to do instead.
 */
import { lstatSync, readdirSync, readFileSync, readlinkSync, realpathSync, statSync } from "node:fs";
import path from "node:path";

/** The up-to-date check's note: every successful build of this engine, past versions included, left it in its output. */
const BUILD_NOTE = ".cafe-build.json";

const HOW = "choose an output folder of its own (--out DIR, or `out` in cafe.config.ts), such as dist";

/** A path with its existing part's links resolved, so that a link or `..` cannot hide where it points. */
function realOf(dir: string): string {
  const resolved = path.resolve(dir);
  const rest: string[] = [];
  for (let at = resolved; ; at = path.dirname(at)) {
    try {
      return path.join(realpathSync(at), ...rest.reverse());
    } catch {
      if (path.dirname(at) === at) return resolved;
      rest.push(path.basename(at));
    }
  }
}

/** True when `inner` is `outer` or inside it. */
function within(inner: string, outer: string): boolean {
  const rel = path.relative(outer, inner);
  return rel === "" || (!rel.startsWith(`..${path.sep}`) && rel !== ".." && !path.isAbsolute(rel));
}

export interface SiteFolders {
  /** The site's folder. */
  root: string;
  contentDir: string;
  publicDir: string;
  /** The folders of the site's code (relative to the root, as the config gives them), the engine's among them. */
  codeFolders: readonly string[];
}

/**
 * Why `outDir` must not be the site's output, in one sentence (undefined when it may): the
 * site's folder or one above it, or its content, public or code folders or one inside them.
 * `shown` is how the message names the output.
 */
export function outputConflict(outDir: string, site: SiteFolders, shown: string): string | undefined {
  const out = realOf(outDir);
  const root = realOf(site.root);
  if (within(root, out)) {
    return `the output folder ${shown} is ${out === root ? "the site's folder itself" : "above the site's folder"}: publishing would replace the whole site (content, code, .git) with the built pages. Nothing was touched; ${HOW}`;
  }
  const folders: [string, string][] = [
    [site.contentDir, "the content folder"],
    [site.publicDir, "the public folder"],
    ...site.codeFolders.map((f): [string, string] => [path.resolve(site.root, f), "a folder of the site's code"]),
  ];
  for (const [folder, what] of folders) {
    const real = realOf(folder);
    if (real === root) continue;
    if (within(out, real)) {
      const name = path.relative(root, real) || real;
      return `the output folder ${shown} is ${out === real ? what : `inside ${what}`} (${name}): publishing would delete its files. Nothing was touched; ${HOW}`;
    }
  }
  return undefined;
}

/**
 * Why `outDir` holds something a build must not replace (undefined when it may): files that
 * no build of this engine made. Missing, empty, a link into `<out>.builds`, a build folder a
 * record there names, or a folder with the build note are builds (or nothing) to replace.
 */
export function foreignOutput(outDir: string, shown: string): string | undefined {
  const out = path.resolve(outDir);
  const builds = `${out}.builds`;
  const entry = lstatSync(out, { throwIfNoEntry: false });
  if (!entry) return undefined;
  if (entry.isSymbolicLink()) {
    const target = path.resolve(path.dirname(out), readlinkSync(out));
    if (within(target, builds)) return undefined;
  }
  const folder = statSync(out, { throwIfNoEntry: false });
  if (!folder) return undefined;
  if (!folder.isDirectory()) {
    return `the output folder ${shown} is a file, not a folder: publishing would replace it. Nothing was touched; move it away, or ${HOW}.`;
  }
  const names = readdirSync(out);
  if (names.length === 0 || names.includes(BUILD_NOTE) || recordedFolder(builds, folder)) return undefined;
  return (
    `the output folder ${shown} holds files that no build made (${names.slice(0, 3).join(", ")}${names.length > 3 ? ", …" : ""}): publishing replaces the folder whole, so they would be deleted. ` +
    `Nothing was touched; move them away (or delete the folder if they are not needed), or ${HOW}.`
  );
}

/** True when a record of `<out>.builds` names this folder (a build published without a symlink). */
function recordedFolder(builds: string, folder: { dev: number; ino: number }): boolean {
  for (const slot of ["a", "b"]) {
    try {
      const record = JSON.parse(readFileSync(path.join(builds, `${slot}.json`), "utf8")) as { dir?: { dev?: number; ino?: number } };
      if (record.dir?.ino === folder.ino && record.dir?.dev === folder.dev) return true;
    } catch {
      // No record, or a damaged one: it names nothing.
    }
  }
  return false;
}
