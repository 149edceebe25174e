/**
 * `cafe init [DIR]`: a small, complete, English starter site written into DIR (the working
 * folder by default), from the engine's own `starter/` folder: its config, a theme (home,
 * post, tag and 404 templates, a stylesheet, a client script), three posts (one a draft),
 * a favicon, tsconfig.json, a README, and the npm scripts and packages it needs added to
 * package.json (made when there is none; an existing script or dependency is never changed).
 * Nothing is overwritten: when a file it would write is there already, it writes nothing.
 */
import { existsSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { CONFIG_FILES } from "../config.js";
import { ContentError } from "../lib/errors.js";
import { listFiles, writeFileAtomic } from "../lib/files.js";

/** The npm scripts a starter site gets: each runs the engine's command. */
export const STARTER_SCRIPTS: Record<string, string> = {
  dev: "cafe dev",
  build: "cafe build",
  preview: "cafe preview",
  new: "cafe new",
  "check-links": "cafe check-links",
  typecheck: "tsc --noEmit",
};

/** What type-checking the theme needs (npm run typecheck; the engine's own types read Node's): the versions this engine is developed with. */
export const STARTER_DEV_DEPENDENCIES: Record<string, string> = {
  typescript: "^7.0.2",
  "@types/node": "^26.6.6",
  "@types/react": "^19.3.0",
  "@types/react-dom": "^19.3.0",
};

/** npm leaves a `.gitignore` out of a package: the starter keeps it under another name. */
const RENAMED: Record<string, string> = { gitignore: ".gitignore" };

export interface InitReport {
  /** The site's folder, absolute. */
  dir: string;
  /** The files written, relative to it. */
  written: string[];
  /** What happened to package.json. */
  packageJson: "created" | "updated" | "unchanged";
  /** The packages added to package.json: `npm install` fetches them. */
  added: string[];
}

/**
 * Writes the starter site into `dir`. `engine` is the engine's folder (its `starter/` and
 * its package.json: its name, version and the peers a theme imports).
 */
export async function initSite(dir: string, engine: string): Promise<InitReport> {
  const target = path.resolve(dir);
  const starter = path.join(engine, "starter");
  const files = listFiles(starter, { hidden: true }).map((file) => {
    const relative = path.relative(starter, file);
    return { from: file, to: RENAMED[relative] ?? relative };
  });
  const shown = (file: string) => path.relative(process.cwd(), path.join(target, file)) || file;
  // Nothing is overwritten: every file that is there already is named, and nothing is written.
  const taken = [...files.map((f) => f.to), ...CONFIG_FILES].filter((file) => existsSync(path.join(target, file)));
  if (taken.length > 0) {
    throw new ContentError({
      file: "cafe init",
      message: `${shown(".") === "." ? "this folder" : shown(".")} has ${taken.length === 1 ? "a file" : "files"} the starter site would write: ${taken.map(shown).join(", ")}`,
      hint: "run cafe init in an empty folder, or name a new one: cafe init my-site",
    });
  }
  const packageFile = path.join(target, "package.json");
  const existing = await readFile(packageFile, "utf8").catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") return undefined;
    throw error;
  });
  let pkg: Record<string, unknown>;
  try {
    pkg = existing === undefined ? { name: packageName(target), private: true, type: "module" } : (JSON.parse(existing) as Record<string, unknown>);
    if (typeof pkg !== "object" || pkg === null || Array.isArray(pkg)) throw new Error("not an object");
  } catch (error) {
    throw new ContentError({
      file: shown("package.json"),
      message: `package.json cannot be read: ${(error as Error).message}`,
      hint: "fix it (or delete it: cafe init writes one), then run cafe init again",
    });
  }
  const engineManifest = JSON.parse(await readFile(path.join(engine, "package.json"), "utf8")) as { name: string; version: string; peerDependencies?: Record<string, string> };
  const added: string[] = [];
  /** Adds what a field of package.json lacks, never changing what it has. */
  const complete = (field: string, entries: Record<string, string>, note = false) => {
    const current = (pkg[field] ?? {}) as Record<string, string>;
    const installed = { ...((pkg.dependencies ?? {}) as object), ...((pkg.devDependencies ?? {}) as object) };
    for (const [name, value] of Object.entries(entries)) {
      if (Object.hasOwn(current, name) || (note && Object.hasOwn(installed, name))) continue;
      current[name] = value;
      if (note) added.push(name);
    }
    if (Object.keys(current).length > 0) pkg[field] = current;
  };
  complete("scripts", STARTER_SCRIPTS);
  complete("dependencies", { [engineManifest.name]: `^${engineManifest.version}`, ...engineManifest.peerDependencies }, true);
  complete("devDependencies", STARTER_DEV_DEPENDENCIES, true);

  for (const { from, to } of files) {
    await mkdir(path.dirname(path.join(target, to)), { recursive: true });
    await writeFile(path.join(target, to), await readFile(from), { flag: "wx" });
  }
  const text = `${JSON.stringify(pkg, null, 2)}\n`;
  if (text !== existing) await writeFileAtomic(packageFile, text);
  return {
    dir: target,
    written: files.map((f) => f.to).sort(),
    packageJson: existing === undefined ? "created" : text === existing ? "unchanged" : "updated",
    added,
  };
}

/** A package name from a folder's name: lowercase letters, digits and hyphens. */
function packageName(dir: string): string {
  return (
    path
      .basename(dir)
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, "-")
      .replace(/^-+|-+$/g, "") || "my-site"
  );
}
