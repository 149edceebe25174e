/**
 * The assets stage's content-addressed cache: a bundle esbuild made once (the scripts and
 * stylesheets with their hashed names, the manifest templates read) is taken again, without
 * running esbuild, by any later build of the same code from the same sources: a command-line
 * build after `--force` or a cleaned output, `cafe dev` started again, a test's fresh folder.
 *
 * An entry is stored under the hash of everything the bundle is made from:
 *
 * - the recipe: the engine's code version (`code.version`: the code that writes the islands'
 *   entries), esbuild's version, and the options (entries, inline script, islands, the fonts'
 *   sources and text, minifying, the engine's folder relative to the site's);
 * - the state of every file esbuild read (from the last bundle's metafile: the hash of its
 *   bytes, or a package file's size and time): an edited, added or removed import misses;
 * - the state of every `package.json`, `tsconfig.json` and `jsconfig.json` in the folders
 *   those files are in and above them (what esbuild reads beside the sources: fields,
 *   compiler options, `sideEffects`).
 *
 * - what the folders of the packages' files hold, from each file's folder up to its package's
 *   (a file added there could change where the package's own imports lead).
 *
 * And an import of the site's or the engine's own code that could now resolve to another file
 * (a new `foo.js` beside the `foo.ts` that `./foo.js` found, a package installed closer) is
 * not trusted on the key: each one is resolved again by esbuild's own resolver (once per
 * folder and name), and the entry is used only when every one resolves where it did. It fails closed: an import esbuild did not record as written, an entry that
 * does not read back whole (named in one notice line), a disk that cannot be written: bundled.
 * Esbuild's answer is stored as an entry of its own, named by the bundle's key and the state of
 * every place those resolutions look (`lookups`: the folders a path names, each `node_modules`
 * on the way up for a package's name): a later build of the same sources with all of them as
 * they were (the next test's, `cafe dev` started again) does not run esbuild to ask again.
 *
 * The entries live beside the other media caches (`node_modules/.cache/engine/assets/`), the
 * newest `KEPT` of them: older ones are removed when one is stored.
 */
import { existsSync, readdirSync, readFileSync, realpathSync, statSync } from "node:fs";
import { readdir, readFile, rm, stat, utimes } from "node:fs/promises";
import path from "node:path";
import type { ImportKind, Metafile, Plugin } from "esbuild";
import type { ContentWarning } from "../../lib/errors.js";
import { hashOf } from "../../lib/hash.js";
import { loadPackage } from "../../lib/packages.js";
import { cacheKey, MediaCache } from "../../incremental/media-cache.js";
import type { AssetManifest } from "../../theme.js";

/** How many entries (bundles and the lists of what a recipe read) the cache keeps: a few versions of a theme, each a few kilobytes to a megabyte. */
export const KEPT = 32;

/** How many lists of what a recipe's bundles read are kept (the site, its copies elsewhere, a few edits apart). */
const VARIANTS = 8;

/** The entries' format: part of every key, so that another engine's entries are never read. */
const FORMAT = "assets-v3";

/** The configuration files esbuild reads in a source's folder and above it. */
const CONFIG_FILES = ["package.json", "tsconfig.json", "jsconfig.json"];

/** An import the bundle made, as esbuild's resolver is asked again: who imports, what it wrote, how, and where it went. */
export type Resolution = [importer: string, written: string, kind: string, resolved: string];

/** What a recipe's last bundle read: the files and configuration whose state keys it, and the imports to resolve again. */
interface Reads {
  inputs: string[];
  configs: string[];
  /** The folders of the packages' files read, up to each package's own folder: what is in them keys the bundle. */
  listed: string[];
  resolutions: Resolution[];
}

interface Bundle {
  manifest: AssetManifest;
  /** The output files' paths (relative to the site's folder), in the order the entry's files `0`, `1`… hold them. */
  files: string[];
  /** The sources' states, as the assets' record keeps them (`AssetRecord.inputs`). */
  inputs: [file: string, state: string][];
}

/** A bundle the cache gave back. */
export interface CachedAssets {
  manifest: AssetManifest;
  files: Map<string, Uint8Array>;
  inputs: [file: string, state: string][];
}

/** What the bundle was made with, beside its sources. */
export interface Recipe {
  codeVersion: string;
  esbuild: string;
  options: unknown;
}

/** True for a file of an installed package. */
const inPackage = (file: string) => file.split(/[\\/]/).includes("node_modules");

/** A file's state: the hash of its bytes, or a package file's size and time (rewritten only when installed again); "" when absent. */
export async function fileState(projectRoot: string, file: string): Promise<string> {
  const full = path.resolve(projectRoot, file);
  try {
    if (inPackage(file)) {
      const s = await stat(full);
      return `${s.size}:${s.mtimeMs}`;
    }
    return hashOf(await readFile(full));
  } catch {
    return "";
  }
}

/** The namespace of an input or import esbuild names (`cafe-island:…`, `theme-font:…`), "file" for a file. */
function namespaceOf(name: string): { namespace: string; path: string } {
  const m = /^([a-z][a-z0-9-]*):(.*)$/s.exec(name);
  return m ? { namespace: m[1]!, path: m[2]! } : { namespace: "file", path: name };
}

/**
 * Every import the bundles made, to resolve again; undefined when one cannot be (esbuild did
 * not record what was written): then the bundle is not kept.
 */
export function importsOf(metafiles: readonly Metafile[]): Resolution[] | undefined {
  const out: Resolution[] = [];
  for (const metafile of metafiles) {
    for (const [importer, meta] of Object.entries(metafile.inputs)) {
      for (const record of meta.imports) {
        if (record.original === undefined || record.with !== undefined) return undefined;
        out.push([importer, record.original, record.kind, record.external ? `external:${record.path}` : record.path]);
      }
    }
  }
  return out;
}

/**
 * The imports to ask the resolver again: those of the site's and the engine's own code (a
 * package's own imports are keyed by what its folders hold: `packageFolders`), each once for
 * where it is resolved from (five islands importing "react" from one folder ask once).
 */
export function toResolve(imports: readonly Resolution[]): Resolution[] {
  const seen = new Set<string>();
  return imports.filter(([importer, written, kind]) => {
    if (inPackage(importer)) return false;
    const from = namespaceOf(importer);
    const where = from.namespace === "file" ? path.dirname(from.path) : "";
    const id = JSON.stringify([from.namespace, where, written, kind]);
    if (seen.has(id)) return false;
    seen.add(id);
    return true;
  });
}

/**
 * The folders of the packages' files the bundle read, from each file's folder up to its
 * package's own (`node_modules/<name>` or `node_modules/@scope/<name>`): a file added there,
 * or a nested `node_modules`, could change where a package's own import leads.
 */
function packageFolders(projectRoot: string, inputs: readonly string[]): string[] {
  const folders = new Set<string>();
  for (const input of inputs.filter(inPackage)) {
    const parts = path.relative(projectRoot, path.resolve(projectRoot, input)).split(path.sep);
    const modules = parts.lastIndexOf("node_modules");
    const root = modules + (parts[modules + 1]?.startsWith("@") ? 3 : 2);
    for (let end = parts.length - 1; end >= root; end--) folders.add(parts.slice(0, end).join("/"));
  }
  return [...folders].sort();
}

/** What each folder holds (its names, sorted), hashed; "" when it cannot be read. */
function listings(projectRoot: string, folders: readonly string[]): Promise<[string, string][]> {
  return Promise.all(
    folders.map(async (folder): Promise<[string, string]> => [folder, await readdir(path.resolve(projectRoot, folder)).then((names) => hashOf(names.sort().join("\n")), () => "")]),
  );
}

/** True when `file` is a file (not a folder, not missing). */
const isFile = (file: string) => statSync(file, { throwIfNoEntry: false })?.isFile() === true;

/** The folders the sources are in and every folder above them, to the file system's root (esbuild looks for its configuration that far). */
function foldersOf(projectRoot: string, inputs: readonly string[]): string[] {
  const folders = new Set<string>();
  for (const input of inputs) {
    for (let dir = path.dirname(path.resolve(projectRoot, input)); !folders.has(dir); dir = path.dirname(dir)) {
      folders.add(dir);
      if (path.dirname(dir) === dir) break;
    }
  }
  return [...folders].sort();
}

/** The configuration files present in those folders, relative to the site's folder. */
async function configsIn(projectRoot: string, folders: readonly string[]): Promise<string[]> {
  const found = await Promise.all(
    folders.flatMap((dir) => CONFIG_FILES.map(async (name) => (existsSync(path.join(dir, name)) ? path.relative(projectRoot, path.join(dir, name)) : undefined))),
  );
  return found.filter((file): file is string => file !== undefined);
}

/** An import to resolve: who imports (none for an entry point), what it wrote, how. */
type Ask = [importer: string, written: string, kind: string];

/** The imports a module of JavaScript makes, written again as such a module writes each kind (`resolveAll`). */
const JS_IMPORTS: Record<string, (written: string) => string> = {
  "import-statement": (written) => `import ${JSON.stringify(written)};`,
  "require-call": (written) => `require(${JSON.stringify(written)});`,
  "dynamic-import": (written) => `import(${JSON.stringify(written)});`,
  "require-resolve": (written) => `require.resolve(${JSON.stringify(written)});`,
};

/** A file esbuild reads as JavaScript or TypeScript. */
const SCRIPT = /\.(?:[cm]?[jt]s|[jt]sx)$/;

/**
 * Where esbuild's resolver sends each import now, through the bundle's own plugins (which
 * resolve the engine's and the fonts' names), in the metafile's terms (a path relative to the
 * site's folder, `namespace:path`, `external:path`); undefined for one it cannot resolve.
 *
 * The imports a script of the site or the engine wrote are resolved by one bundle of those
 * scripts, each read as nothing but those imports and everything they reach as empty: one
 * resolver for them all, so that each folder is read once (asked one at a time, esbuild read
 * lucide-react's 4,806 icons again for each icon imported: most of the check). The others (an
 * entry point, a stylesheet's, a module a plugin makes) are asked one at a time.
 */
async function resolveAll(projectRoot: string, plugins: readonly Plugin[], asks: readonly Ask[]): Promise<(string | undefined)[] | undefined> {
  if (asks.length === 0) return [];
  const { build } = await loadPackage("esbuild", () => import("esbuild"));
  const scripts = new Map<string, string[]>();
  const inScript = asks.map(([importer, written, kind]) => {
    if (importer === "" || namespaceOf(importer).namespace !== "file" || !SCRIPT.test(importer) || !JS_IMPORTS[kind]) return false;
    const file = path.resolve(projectRoot, importer);
    scripts.set(file, [...(scripts.get(file) ?? []), JS_IMPORTS[kind]!(written)]);
    return true;
  });
  let oneByOne: (string | undefined)[] | undefined;
  const check: Plugin = {
    name: "cafe-asset-cache-check",
    setup(b) {
      // Every module the scripts reach is read as empty: nothing is parsed, no font is cut, only resolved.
      b.onLoad({ filter: /.*/ }, ({ path: file, namespace }) =>
        namespace === "file" && scripts.has(file) ? { contents: scripts.get(file)!.join("\n"), loader: "js" } : { contents: "", loader: "empty" },
      );
      b.onStart(async () => {
        oneByOne = await Promise.all(
          asks.map(async ([importer, written, kind], i) => {
            if (inScript[i]) return undefined;
            const from = namespaceOf(importer);
            const file = from.namespace === "file";
            // An entry point named as a path without `./` is that file of the site's folder (as esbuild takes it).
            const bare = importer === "" && !written.startsWith(".") && !path.isAbsolute(written) && namespaceOf(written).namespace === "file";
            const result = await b.resolve(bare ? `./${written}` : written, {
              kind: kind as ImportKind,
              ...(importer === "" ? {} : { importer: file ? path.resolve(projectRoot, from.path) : from.path, namespace: from.namespace }),
              // An entry point, and the engine's island entries, resolve from the site's folder (assets.ts).
              resolveDir: file && importer !== "" ? path.dirname(path.resolve(projectRoot, from.path)) : projectRoot,
            });
            if (result.errors.length > 0) return undefined;
            if (result.external) return `external:${result.path}`;
            return result.namespace === "file" ? path.relative(projectRoot, result.path).split(path.sep).join("/") : `${result.namespace}:${result.path}`;
          }),
        );
      });
    },
  };
  let metafile: Metafile;
  try {
    // Without a script to read, no entry: only the resolver runs (the plugins' onResolve; nothing is loaded or bundled).
    // (Outputs named by number: `a.ts` and `a.tsx` of one folder would otherwise be written to one file.)
    const entries = scripts.size > 0 ? { entryPoints: [...scripts.keys()].map((file, i) => ({ in: file, out: String(i) })), bundle: true, outdir: path.join(projectRoot, "cafe-asset-cache-check") } : { stdin: { contents: "" } };
    ({ metafile } = await build({ absWorkingDir: projectRoot, ...entries, write: false, metafile: true, logLevel: "silent", plugins: [check, ...plugins] }));
  } catch {
    // One that cannot be resolved fails the bundle: the check fails closed.
    return undefined;
  }
  if (!oneByOne) return undefined;
  return asks.map(([importer, written, kind], i) => {
    if (!inScript[i]) return oneByOne![i];
    const made = metafile.inputs[importer]?.imports.find((record) => record.original === written && record.kind === kind);
    if (!made) return undefined;
    return made.external ? `external:${made.path}` : made.path;
  });
}

/** A name written without `./`, `../` or `/`: a package's, or a `paths` alias's. */
const isBare = (written: string) => !written.startsWith(".") && !path.isAbsolute(written);

/** The package a bare name imports (`react` of `react-dom/client` is `react-dom`; `@scope/name`). */
function packageName(written: string): string {
  const parts = written.split("/");
  return parts.slice(0, written.startsWith("@") ? 2 : 1).join("/");
}

/** The keys a `tsconfig.json` or `jsconfig.json` in the folder or above it names (any could be a `paths` pattern); undefined when one sets `baseUrl` or `extends`. */
function configKeys(dir: string, memo: Map<string, string[] | undefined>): string[] | undefined {
  if (memo.has(dir)) return memo.get(dir);
  let keys: string[] | undefined = [];
  for (const name of ["tsconfig.json", "jsconfig.json"]) {
    let text: string;
    try {
      text = readFileSync(path.join(dir, name), "utf8");
    } catch {
      continue;
    }
    if (/"(?:baseUrl|extends)"/.test(text)) keys = undefined;
    else keys?.push(...[...text.matchAll(/"([^"\\]*)"\s*:/g)].map((m) => m[1]!));
  }
  const above = path.dirname(dir) === dir ? [] : configKeys(path.dirname(dir), memo);
  const all = keys && above ? [...keys, ...above] : undefined;
  memo.set(dir, all);
  return all;
}

/** True when a bare name could match a `paths` pattern (`name`, `prefix*suffix`). */
const matchesPattern = (written: string, patterns: readonly string[]) =>
  patterns.some((pattern) => {
    const star = pattern.indexOf("*");
    return star < 0 ? pattern === written : written.startsWith(pattern.slice(0, star)) && written.endsWith(pattern.slice(star + 1));
  });

/**
 * The state of every place esbuild's resolver looks for the imports of the site's and the
 * engine's code: what the folder a path names and the path itself hold (a new `greeting.js`
 * beside `greeting.ts`, an `index.ts` in a folder), the folder of the file it found, and for a
 * package's name the folder each `node_modules` on the way up would give (a package installed
 * closer, a link pointed elsewhere). Undefined when a resolution could go where none of this
 * shows (a bare name that a `tsconfig`'s `paths` or `baseUrl`, a package's `imports` or
 * `browser` field sent to the site's own file): then esbuild is asked.
 */
function lookups(projectRoot: string, resolutions: readonly Resolution[]): string | undefined {
  const relative = (file: string) => path.relative(projectRoot, file).split(path.sep).join("/");
  const listed = new Map<string, string>();
  const list = (dir: string) => {
    if (!listed.has(dir)) {
      let state = "";
      try {
        state = hashOf(readdirSync(dir).sort().join("\n"));
      } catch {
        // Not a folder, or absent.
      }
      listed.set(dir, state);
    }
    return listed.get(dir)!;
  };
  const real = (file: string) => {
    try {
      return relative(realpathSync(file));
    } catch {
      return "";
    }
  };
  const configs = new Map<string, string[] | undefined>();
  const out: string[] = [];
  for (const [importer, written, , resolved] of resolutions) {
    const to = namespaceOf(resolved);
    // A name a plugin gives a namespace of its own (`cafe-island:`, `font:`): the recipe's.
    if (to.namespace !== "file" && to.namespace !== "external") continue;
    const from = namespaceOf(importer);
    const dir = from.namespace === "file" && importer !== "" ? path.dirname(path.resolve(projectRoot, from.path)) : projectRoot;
    const target = path.resolve(dir, written);
    out.push(list(path.dirname(target)), list(target));
    if (to.namespace === "file") out.push(list(path.dirname(path.resolve(projectRoot, to.path))));
    if (!isBare(written)) continue;
    if (importer !== "" && to.namespace === "file" && !inPackage(to.path)) return undefined;
    const patterns = configKeys(dir, configs);
    if (!patterns || matchesPattern(written, patterns)) return undefined;
    const name = packageName(written);
    for (let up = dir; ; up = path.dirname(up)) {
      out.push(real(path.join(up, "node_modules", name)));
      if (path.dirname(up) === up) break;
    }
  }
  return hashOf(out.join("\n"));
}

/** A bundle's outputs and what it read, stored for the next build of the same recipe. */
export interface Made {
  manifest: AssetManifest;
  files: Map<string, Uint8Array>;
  inputs: [file: string, state: string][];
  metafiles: readonly Metafile[];
  /** The entry points as the theme names them (resolved from the site's folder). */
  entries: readonly string[];
}

/**
 * The cache of one site's bundles for one recipe. `take` gives a stored bundle back when
 * everything it was made from is as it was; `keep` stores a new one.
 */
export class AssetCache {
  private readonly cache: MediaCache<unknown>;
  private readonly recipe: string;

  constructor(private readonly projectRoot: string, recipe: Recipe, private readonly plugins: readonly Plugin[]) {
    this.cache = new MediaCache(projectRoot, "assets");
    this.recipe = cacheKey([FORMAT, recipe.codeVersion, recipe.esbuild, JSON.stringify(recipe.options)]);
  }

  /** The key of a bundle of this recipe from sources and configuration in these states. */
  private bundleKey(inputs: readonly [string, string][], configs: readonly [string, string][], listed: readonly [string, string][]): string {
    return cacheKey([this.recipe, JSON.stringify(inputs), JSON.stringify(configs), JSON.stringify(listed)]);
  }

  private states(files: readonly string[]): Promise<[string, string][]> {
    return Promise.all(files.map(async (file): Promise<[string, string]> => [file, await fileState(this.projectRoot, file)]));
  }

  /** An entry read back, or a notice when it was there but damaged (and is now removed). */
  private async read(key: string, notes: ContentWarning[]): Promise<{ meta: unknown; files: Map<string, Uint8Array> } | undefined> {
    const folder = path.join(this.cache.dir, key);
    if (!existsSync(folder)) return undefined;
    const entry = await this.cache.get(key);
    if (!entry) {
      notes.push(damaged(this.projectRoot, folder));
      return undefined;
    }
    // Read: the newest are kept when the cache is pruned.
    const now = new Date();
    await utimes(folder, now, now).catch(() => {});
    return entry;
  }

  /** What the recipe's bundles read, newest first (an entry that does not read back whole is a notice and none). */
  private async variants(notes: ContentWarning[]): Promise<Reads[]> {
    const entry = await this.read(this.recipe, notes);
    if (!entry) return [];
    const variants = (entry.meta as { variants?: unknown } | null)?.variants;
    const reads = Array.isArray(variants) ? variants.map(asReads) : [undefined];
    if (reads.every((r): r is Reads => r !== undefined)) return reads;
    notes.push(damaged(this.projectRoot, path.join(this.cache.dir, this.recipe)));
    await rm(path.join(this.cache.dir, this.recipe), { recursive: true, force: true });
    return [];
  }

  /**
   * The stored bundle whose sources are as they are now, or undefined (and why not, when an
   * entry was damaged). Each of the recipe's last bundles is tried, newest first: the site and
   * a copy of it in another folder (its packages found elsewhere) read other files.
   */
  async take(notes: ContentWarning[]): Promise<CachedAssets | undefined> {
    for (const reads of await this.variants(notes)) {
      const found = await this.takeVariant(reads, notes);
      if (found) return found;
    }
    return undefined;
  }

  private async takeVariant(reads: Reads, notes: ContentWarning[]): Promise<CachedAssets | undefined> {
    // A configuration file added where there was none counts as a change.
    const present = await configsIn(this.projectRoot, foldersOf(this.projectRoot, reads.inputs));
    if (present.join("\n") !== reads.configs.join("\n")) return undefined;
    const [inputs, configs, listed] = await Promise.all([this.states(reads.inputs), this.states(reads.configs), listings(this.projectRoot, reads.listed)]);
    if (inputs.some(([, state]) => state === "")) return undefined;
    const key = this.bundleKey(inputs, configs, listed);
    const stored = await this.read(key, notes);
    if (!stored) return undefined;
    const bundle = asBundle(stored.meta, stored.files);
    if (!bundle) {
      notes.push(damaged(this.projectRoot, path.join(this.cache.dir, key)));
      await rm(path.join(this.cache.dir, key), { recursive: true, force: true });
      return undefined;
    }
    // Asked before for these sources with every place to look as it is now: as esbuild answered then.
    const places = lookups(this.projectRoot, reads.resolutions);
    const checked = places === undefined ? undefined : cacheKey([key, "confirmed", JSON.stringify(reads.resolutions), places]);
    if (checked === undefined || !(await this.read(checked, notes))) {
      const now = await resolveAll(this.projectRoot, this.plugins, reads.resolutions.map(([importer, written, kind]) => [importer, written, kind]));
      if (!now || now.some((resolved, i) => resolved !== reads.resolutions[i]![3])) return undefined;
      if (checked !== undefined) await this.cache.put(checked, { meta: {}, files: new Map() });
    }
    const files = new Map(bundle.files.map((name, i) => [name, stored.files.get(String(i))!]));
    return { manifest: bundle.manifest, files, inputs: bundle.inputs };
  }

  /** Stores a bundle just made (when esbuild recorded every import as written), then prunes the oldest entries. */
  async keep(made: Made): Promise<void> {
    const imports = importsOf(made.metafiles);
    if (!imports) return;
    // An entry named by the path of a file is that file (esbuild's rule for entry points): its
    // bytes key the bundle. One named otherwise (no extension, a package) is asked as an import is.
    const named = made.entries.filter((entry) => namespaceOf(entry).namespace === "file" && !isFile(path.resolve(this.projectRoot, entry)));
    const entries = await resolveAll(this.projectRoot, this.plugins, named.map((entry): Ask => ["", entry, "entry-point"]));
    if (!entries || entries.some((resolved) => resolved === undefined)) return;
    // The imports as the bundle resolved them (its metafile), to be asked again by the next build.
    const resolutions = [...named.map((entry, i): Resolution => ["", entry, "entry-point", entries[i]!]), ...toResolve(imports)];
    const inputs = made.inputs.map(([file]) => file);
    const folders = packageFolders(this.projectRoot, inputs);
    const configNames = await configsIn(this.projectRoot, foldersOf(this.projectRoot, inputs));
    const [states, configs, listed] = await Promise.all([this.states(inputs), this.states(configNames), listings(this.projectRoot, folders)]);
    if (states.some(([, state]) => state === "") || listed.some(([, state]) => state === "")) return;
    const names = [...made.files.keys()];
    const bundle: Bundle = { manifest: made.manifest, files: names, inputs: made.inputs };
    await this.cache.put(this.bundleKey(states, configs, listed), { meta: bundle, files: new Map(names.map((name, i) => [String(i), made.files.get(name)!])) });
    const reads: Reads = { inputs, configs: configNames, listed: folders, resolutions };
    // This one first, then the others this recipe's bundles read (the same list once).
    const others = (await this.variants([])).filter((variant) => JSON.stringify(variant) !== JSON.stringify(reads));
    await this.cache.put(this.recipe, { meta: { variants: [reads, ...others].slice(0, VARIANTS) }, files: new Map() });
    await prune(this.cache.dir, KEPT);
  }
}

/** The notice for an entry that did not read back whole: one line, naming it; the assets are bundled again. */
function damaged(projectRoot: string, folder: string): ContentWarning {
  return { file: path.relative(projectRoot, folder) || folder, message: "this cached bundle of the assets was damaged and is not used: the assets are bundled again (and stored anew)", notice: true };
}

const isStrings = (value: unknown): value is string[] => Array.isArray(value) && value.every((v) => typeof v === "string");

function asReads(meta: unknown): Reads | undefined {
  const m = meta as Partial<Reads> | null;
  if (!m || typeof m !== "object" || !isStrings(m.inputs) || !isStrings(m.configs) || !isStrings(m.listed) || !Array.isArray(m.resolutions)) return undefined;
  if (!m.resolutions.every((r) => isStrings(r) && r.length === 4)) return undefined;
  return m as Reads;
}

function asBundle(meta: unknown, files: Map<string, Uint8Array>): Bundle | undefined {
  const m = meta as Partial<Bundle> | null;
  if (!m || typeof m !== "object" || !isStrings(m.files) || !Array.isArray(m.inputs) || !m.manifest || typeof m.manifest !== "object") return undefined;
  const manifest = m.manifest as Partial<AssetManifest>;
  if (typeof manifest.entries !== "object" || typeof manifest.fonts !== "object" || typeof manifest.inlineScript !== "string") return undefined;
  if (!m.inputs.every((pair) => isStrings(pair) && pair.length === 2)) return undefined;
  if (files.size !== m.files.length || !m.files.every((_, i) => files.has(String(i)))) return undefined;
  return m as Bundle;
}

/** Removes all but the `kept` most recently used entries (and any left half-written by a build that was killed). */
async function prune(dir: string, kept: number): Promise<void> {
  try {
    const names = await readdir(dir);
    const entries = await Promise.all(
      names.map(async (name) => ({ name, time: await stat(path.join(dir, name)).then((s) => s.mtimeMs, () => 0) })),
    );
    const old = entries.filter((e) => !e.name.includes(".tmp-")).sort((a, b) => b.time - a.time).slice(kept);
    await Promise.all(old.map((e) => rm(path.join(dir, e.name), { recursive: true, force: true })));
  } catch {
    // Only a saving: an entry not removed now is removed by a later build.
  }
}
