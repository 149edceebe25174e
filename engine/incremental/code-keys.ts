/**
 * Keys of the code, by the modules each part of the theme reaches.
 *
 * The launcher bundles the engine, the site's config and its theme with esbuild and keeps
 * esbuild's graph of modules beside the bundle (`modules.json`: each file read, its state,
 * what it imports). A theme that names the module of a part (`Theme.modules`: a template, a
 * block's component, its Markdown overrides) has that part keyed by the theme's own modules
 * that module reaches; the persistent cache's version is made of everything else (the
 * engine, the packages, the lock file, and every module of the theme reached otherwise than
 * through a named part). So an edit to a template's module keeps every rendered body and every
 * page of another template; an edit anywhere else is a new version, as before.
 *
 * It fails closed: with no graph (the engine run from its sources), a part named by a module
 * the graph does not have, or whose modules import what the graph cannot tell (a path made at
 * run time), the part is not separated: its modules count in the version, and its key is the
 * same for every version (`ALL`). A part the theme does not name is keyed the same way.
 */
import { readFile } from "node:fs/promises";
import { hashOfAll } from "../lib/hash.js";
import type { ThemeModules } from "../theme.js";

/** What the launcher writes beside a bundle (engine/launch.mjs, `moduleGraph`). */
export interface ModuleGraph {
  format: 1;
  /** The major version of Node the bundle was made for (as the bundle's own name has it). */
  node?: string;
  /** The engine's folder, relative to the site's. */
  engine: string;
  /** The bundle's entry points: name → module. */
  entries: Record<string, string>;
  /** Every file esbuild read, relative to the site's folder: its state (hash, or size and time for a package's; for a script of the site's own, the hash of the code esbuild makes of it, so that a comment's edit is none: launch.mjs, `printedStates`), what it imports. */
  modules: Record<string, { state: string; imports: string[]; external?: string[]; unknown?: true }>;
  /** The state of the inputs that are no module (the launcher, package.json files, the lock file, tsconfig.json). */
  others: [file: string, state: string][];
}

/** The key of a part the theme does not name, or the engine cannot separate: its modules are in the version. */
export const ALL = "all";

/** The keys of a version of the code: the cache's version, and each named part's key ("markdown", "template:article", "block:faq"). */
export interface CodeKeys {
  version: string;
  parts: Record<string, string>;
  /** Why a part the theme names is keyed by all of its code (said to the author, never silently). */
  notes: string[];
}

/** One key for the whole code: every part in the version (no graph, or a build from the sources). */
export const wholeCode = (version: string, notes: string[] = []): CodeKeys => ({ version, parts: {}, notes });

/** The graph beside a bundle; undefined when there is none or it cannot be read (every part is then keyed by all the code). */
export async function readModuleGraph(file: string | undefined): Promise<ModuleGraph | undefined> {
  if (!file) return undefined;
  try {
    const graph = JSON.parse(await readFile(file, "utf8")) as ModuleGraph;
    return graph?.format === 1 && typeof graph.modules === "object" && Array.isArray(graph.others) ? graph : undefined;
  } catch {
    return undefined;
  }
}

/** The parts a theme names, as ids and modules (paths relative to the site's folder, with forward slashes). */
export function namedParts(modules: ThemeModules | undefined): [part: string, files: string[]][] {
  // A path that is not a string (a theme written in JavaScript) is kept as it is: no module has that name, so it fails closed.
  const norm = (file: string) => (typeof file === "string" ? file.replaceAll("\\", "/").replace(/^\.\//, "") : String(file));
  const parts: [string, string[]][] = [];
  const markdown: unknown[] = Array.isArray(modules?.markdown) ? modules.markdown : modules?.markdown === undefined ? [] : [modules.markdown];
  if (markdown.length > 0) parts.push(["markdown", markdown.map((file) => norm(file as string))]);
  for (const [name, file] of Object.entries(modules?.templates ?? {})) parts.push([`template:${name}`, [norm(file)]]);
  for (const [name, file] of Object.entries(modules?.blocks ?? {})) parts.push([`block:${name}`, [norm(file)]]);
  return parts;
}

/**
 * The keys of the code in `graph` for a theme that names `modules`; `whole` (the bundle's
 * name) is the version when there is no graph.
 */
export function codeKeys(graph: ModuleGraph | undefined, modules: ThemeModules | undefined, whole: string): CodeKeys {
  const named = namedParts(modules);
  // Code run from its sources (a build script under tsx): all of it is one version, as it always was (nothing to warn of).
  if (!graph) return wholeCode(whole);
  const engine = graph.engine === "." ? "" : `${graph.engine}/`;
  /** A module of the theme's own: not the engine's, not a package's (both are always in the version). */
  const own = (file: string) => !(engine === "" || file.startsWith(engine)) && !file.split("/").includes("node_modules");
  const notes: string[] = [];
  const parts: Record<string, string> = {};
  const boundaries = new Set<string>();
  for (const [part, files] of named) {
    const missing = files.find((file) => !graph.modules[file]);
    if (missing) {
      notes.push(`the theme names ${missing} for ${describe(part)}, but the site's code does not import it: that part is keyed by all of the code (check the path, relative to the site's folder)`);
      continue;
    }
    const reached = closure(graph, files, own, new Set());
    if (reached.unknown) {
      notes.push(`${reached.unknown} (reached from ${describe(part)}) imports a path made at run time, which the bundler cannot follow: that part is keyed by all of the code`);
      continue;
    }
    parts[part] = hashOfAll([...reached.files].sort().flatMap((file) => [file, graph.modules[file]!.state]));
    for (const file of files) boundaries.add(file);
  }
  // Every module reached from the entry points without entering a named part's module: the version.
  const rest = closure(graph, Object.values(graph.entries), () => true, boundaries).files;
  const inVersion = Object.keys(graph.modules).filter((file) => !own(file) || rest.has(file)).sort();
  const version = hashOfAll([
    "code-keys-1",
    graph.node ?? "",
    JSON.stringify(named),
    JSON.stringify(Object.keys(parts)),
    ...graph.others.flat(),
    ...inVersion.flatMap((file) => [file, graph.modules[file]!.state]),
  ]);
  return { version, parts, notes };
}

/** The keys of the site's code: from the graph beside the bundle, else (no graph) `whole()` for everything. */
export async function siteCodeKeys(modulesFile: string | undefined, modules: ThemeModules | undefined, whole: () => Promise<string> | string): Promise<CodeKeys> {
  const graph = await readModuleGraph(modulesFile);
  return codeKeys(graph, modules, graph ? "" : await whole());
}

const describe = (part: string) => {
  const [kind, name] = part.split(":");
  return kind === "markdown" ? "its Markdown overrides" : `its ${kind} '${name}'`;
};

/**
 * The modules reached from `starts` through `follow`ed modules (a module not followed is
 * reached, not entered), never entering `stop`; `unknown`: the first module reached that
 * imports what the graph does not have.
 */
function closure(graph: ModuleGraph, starts: readonly string[], follow: (file: string) => boolean, stop: ReadonlySet<string>): { files: Set<string>; unknown?: string } {
  const files = new Set<string>();
  const queue = starts.filter((file) => graph.modules[file]);
  let unknown: string | undefined;
  while (queue.length > 0) {
    const file = queue.pop()!;
    if (files.has(file)) continue;
    files.add(file);
    if (!follow(file)) continue;
    const module = graph.modules[file]!;
    if (module.unknown || module.imports.some((target) => !graph.modules[target])) unknown ??= file;
    for (const target of module.imports) if (!stop.has(target) && graph.modules[target]) queue.push(target);
  }
  return { files, unknown };
}
