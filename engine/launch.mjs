#!/usr/bin/env node
/**
 * `cafe`, the engine's command, and the one way its code runs: every npm script of this
 * project (build, preview, start, dev, new, check:links), the dev server's builder process,
 * the benchmarks and the tests that start the command line run `node engine/launch.mjs
 * <command> [flags]`; a site that installed the engine runs `npx cafe <command>`.
 *
 * It finds the site (`--root DIR`, else the nearest folder with a cafe.config file at or
 * above the working folder, else above the engine: the site it is installed or checked out
 * in), bundles the command line (engine/cli/main.ts), the dev builder and the site's config
 * (with its theme) with esbuild into <site>/node_modules/.cache/engine/cli/, and runs that.
 *
 * A bundle is reused only while everything it was made from is as it was: every file
 * esbuild read (its metafile's inputs: the engine, the theme, the bundled packages in
 * node_modules, whatever their extension), each bundled package's package.json, the site's
 * package.json, its lock file, the tsconfig.json files esbuild consulted (or their absence)
 * and this launcher. The bundle keeps their sizes, modification times and hashes
 * (bundle.json, written last, with the size, time and hash of each file of the bundle): a
 * file whose size or time changed is hashed again, and a bundle whose own files are not all
 * there, whole, is made again. A file in node_modules is recorded by its size and time only
 * (a package changes when it is installed again, which writes it anew): hashing the packages
 * esbuild read was most of a fresh clone's first bundle record. `--force` always makes a new
 * one. Pure-JavaScript packages
 * are bundled with the code; those with native code or files of their own stay in
 * node_modules. Stack traces point at the sources: a stack's frames in the bundle are mapped
 * when it is shown, each through its file's map (lib/source-stacks.mjs), not at every start.
 *
 * Why not tsx: it compiles every module on each start through a loader thread, about 70% of
 * a 15-page rebuild (bench/README.md); loading one bundle costs a fraction of that.
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, renameSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { sourceStacks } from "./lib/source-stacks.mjs";

const launcher = realpathSync(fileURLToPath(import.meta.url));
const engineDir = path.dirname(launcher);
/** The names of a site's config file, in the order they are looked for (engine/config.ts says the same; a test keeps them equal). */
const CONFIG_FILES = ["cafe.config.ts", "cafe.config.mts", "cafe.config.tsx", "cafe.config.js", "cafe.config.mjs"];
/** Lock files of the libraries (npm, yarn, pnpm, bun). */
const LOCK_FILES = ["package-lock.json", "npm-shrinkwrap.json", "yarn.lock", "pnpm-lock.yaml", "bun.lock", "bun.lockb"];
/** Packages loaded from node_modules as they are: native code, WebAssembly, files beside their code; React and what renders with it (one copy, the one satori and the islands use; React and react-dom required: `requireCommonJs`). */
const KEEP_EXTERNAL = ["sharp", "esbuild", "@resvg/resvg-js", "satori", "subset-font", "chokidar", "fsevents", "piscina", "react", "react-dom", "lucide-react"];
/**
 * zod's messages in other languages than English (`z.locales`: some 60 files, half of the code
 * of zod a start loads) stand in the bundle only when the site's code names them: otherwise
 * zod's own index of them is replaced by this one, which has English only (its default).
 */
const ZOD_ENGLISH = path.join(engineDir, "lib/zod-english.ts");

/** Redirects zod's index of its locales (`../locales/index.js`, imported by zod's namespaces) to ZOD_ENGLISH. */
const zodEnglishOnly = {
  name: "zod-english-only",
  setup(build) {
    build.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) => (/[\\/]node_modules[\\/]zod[\\/]/.test(args.importer) ? { path: ZOD_ENGLISH } : undefined));
  },
};

/** The packages that are CommonJS among those kept in node_modules: React and react-dom. */
const REQUIRED = /^(?:react|react-dom)(?:\/|$)/;
/** The namespace of the bundle's modules that require them (`requireCommonJs`): in a metafile, `cafe-require:<package path>`, no file. */
const REQUIRING = "cafe-require";
const requiring = (input) => input.startsWith(`${REQUIRING}:`);

/**
 * React and react-dom (CommonJS) are loaded with `require` (the bundle's banner makes one) instead
 * of `import`: Node's ESM loader parses every CommonJS file it imports for its exports
 * (cjs-module-lexer), react-dom/server's builds (some 600 KB) at every start that renders; a
 * require runs them as they are. Each import of them is given a module of the bundle that
 * requires the package; the package itself stays in node_modules, one copy for every importer.
 */
const requireCommonJs = {
  name: "require-commonjs",
  setup(build) {
    build.onResolve({ filter: REQUIRED }, (args) => (args.namespace === REQUIRING ? { path: args.path, external: true } : { path: args.path, namespace: REQUIRING }));
    build.onLoad({ filter: /.*/, namespace: REQUIRING }, (args) => ({ contents: `module.exports = require(${JSON.stringify(args.path)});\n`, loader: "js" }));
  },
};

/** The first file read for a bundle, zod's own and ZOD_ENGLISH aside, that names zod's `locales`: such a bundle needs them all. */
function namesLocales(metafile, root) {
  for (const input of Object.keys(metafile.inputs)) {
    // A module that requires React names nothing else.
    if (requiring(input)) continue;
    const file = path.resolve(root, input);
    if (file === ZOD_ENGLISH || /[\\/]node_modules[\\/]zod[\\/]/.test(file)) continue;
    let source;
    try {
      source = readFileSync(file, "utf8");
    } catch {
      return file;
    }
    if (/\blocales\b/.test(source)) return file;
  }
  return undefined;
}

/** The bundle's graph of modules: each file esbuild read, with its state and what it imports. */
const MODULES = "modules.json";
/** The bundle's record, written last: a bundle without it is not complete. */
const MANIFEST = "bundle.json";
/** The files every bundle has (its entry points `cli` and `dev-builder`): a record without them is damaged. */
const ENTRY_FILES = ["cli.js", "dev-builder.js"];
/** The record's format: a launcher that records otherwise changes it. */
const FORMAT = 4;
const NODE_MAJOR = process.versions.node.split(".")[0];

const sha = (data) => createHash("sha256").update(data).digest("hex").slice(0, 32);
const inside = (dir, file) => !path.relative(dir, file).startsWith("..") && !path.isAbsolute(path.relative(dir, file));
const posix = (p) => p.split(path.sep).join("/");

/** The value of `--root DIR` or `--root=DIR`, wherever it stands. */
function rootFlag(argv) {
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === "--") break;
    if (argv[i] === "--root") return argv[i + 1];
    if (argv[i].startsWith("--root=")) return argv[i].slice(7);
  }
  return undefined;
}

const configIn = (dir) => CONFIG_FILES.map((name) => path.join(dir, name)).find((file) => statSync(file, { throwIfNoEntry: false })?.isFile());

/** The site's folder and its config file (undefined when there is none). */
function findSite(argv) {
  const flag = rootFlag(argv);
  if (flag !== undefined) {
    const root = path.resolve(flag);
    return { root, config: configIn(root) };
  }
  for (const start of [process.cwd(), path.dirname(engineDir)]) {
    for (let dir = start; ; dir = path.dirname(dir)) {
      const config = configIn(dir);
      if (config) return { root: dir, config };
      if (path.dirname(dir) === dir) break;
    }
  }
  return { root: process.cwd(), config: undefined };
}

/** Where the bundles of a site are: beside the engine's other caches (CAFE_CACHE_DIR: the tests' own folder, as engine/incremental/cache-root.ts says). */
const cacheOf = (root) => path.join(process.env.CAFE_CACHE_DIR ? path.resolve(process.env.CAFE_CACHE_DIR) : path.join(root, "node_modules/.cache/engine"), "cli");

/** The project the engine itself sits in (the one whose node_modules holds it, or the folder above its sources): where a command run outside any site keeps its bundle. */
function engineHome() {
  const parts = engineDir.split(path.sep);
  const at = parts.lastIndexOf("node_modules");
  return at > 0 ? parts.slice(0, at).join(path.sep) : path.dirname(engineDir);
}

const inPackage = (file) => file.split(path.sep).includes("node_modules");

/**
 * A file's state as a bundle records it: [path relative to the root, size (-1: absent), mtime,
 * hash]. A package's file has no hash (""): its size and time stand for it.
 */
function record(root, file) {
  const full = path.resolve(root, file);
  const stat = statSync(full, { throwIfNoEntry: false });
  if (!stat?.isFile()) return [posix(path.relative(root, full)), -1, 0, ""];
  return [posix(path.relative(root, full)), stat.size, stat.mtimeMs, inPackage(full) ? "" : sha(readFileSync(full))];
}

/**
 * A recorded file's path: the root (less a folder for each leading `..`) and the path joined as
 * they are when the path has no other `.` or `..` part and is not absolute (as `record` writes
 * them), else resolved.
 * path.resolve normalizes the whole path again: for the 800 files of a start's check it was
 * most of the launcher's time (CPU profile of an up-to-date build).
 */
function fullPath(root, file) {
  if (typeof file !== "string" || path.isAbsolute(file)) return path.resolve(root, file);
  // Leading `../` parts (the packages of a site whose node_modules is a link, a workspace's lock file): cut from the root.
  let up = 0;
  while (file.startsWith("../", up * 3)) up++;
  const rest = file.slice(up * 3);
  if (rest === "" || /(^|[\\/])\.\.?([\\/]|$)/.test(rest)) return path.resolve(root, file);
  let base = root;
  for (let i = 0; i < up; i++) base = path.dirname(base);
  return `${base.endsWith(path.sep) ? base : base + path.sep}${rest}`;
}

/** True when a recorded file is still as it was: same size, and same time or (touched, not changed) same hash. */
function unchanged(root, [file, size, mtime, hash]) {
  const full = fullPath(root, file);
  const stat = statSync(full, { throwIfNoEntry: false });
  if (size === -1) return !stat?.isFile();
  if (!stat?.isFile() || stat.size !== size) return false;
  if (stat.mtimeMs === mtime) return true;
  if (hash === "") return false;
  try {
    return sha(readFileSync(full)) === hash;
  } catch {
    return false;
  }
}

/** The bundle's record when the bundle can run these sources as they are now; undefined otherwise. */
function currentRecord(dir, root) {
  let manifest;
  try {
    manifest = JSON.parse(readFileSync(path.join(dir, MANIFEST), "utf8"));
  } catch {
    return undefined;
  }
  if (manifest?.format !== FORMAT || manifest.node !== NODE_MAJOR || !Array.isArray(manifest.inputs) || !Array.isArray(manifest.outputs)) return undefined;
  // A record that lists nothing (no source read, no file made, no entry point) is a damaged one: it would vouch for any code.
  const made = new Set(manifest.outputs.map((output) => Array.isArray(output) && output[0]));
  if (manifest.inputs.length === 0 || !ENTRY_FILES.every((file) => made.has(file))) return undefined;
  if (!manifest.inputs.every((input) => unchanged(root, input))) return undefined;
  // Its own files whole: a truncated or half-deleted bundle is made again, never run. Each is
  // read and hashed only when its size or time is not the recorded one (reading the whole
  // bundle on every start was a regression of every command's start: bench/README.md, session 7).
  if (!manifest.outputs.every((output) => unchanged(dir, output))) return undefined;
  return manifest;
}

/** Every file of a folder, relative to it (links not followed: a bundle's node_modules is one). */
function filesOf(dir, prefix = "") {
  const files = [];
  for (const entry of readdirSync(path.join(dir, prefix), { withFileTypes: true })) {
    const rel = path.join(prefix, entry.name);
    if (entry.isDirectory()) files.push(...filesOf(dir, rel));
    else if (entry.isFile() && rel !== MANIFEST) files.push(rel);
  }
  return files;
}

/** What a bundle depends on besides the files esbuild read: see the comment at the top. */
function inputsOf(metafile, root) {
  const files = new Set([launcher, createRequire(launcher).resolve("esbuild/package.json")]);
  const read = Object.keys(metafile.inputs)
    .map((input) => path.resolve(root, input))
    .filter((file) => statSync(file, { throwIfNoEntry: false })?.isFile());
  const dirs = new Set();
  for (const file of read) {
    files.add(file);
    const parts = file.split(path.sep);
    const at = parts.lastIndexOf("node_modules");
    if (at >= 0) {
      // The package's package.json (its exports and fields decide what was read).
      const name = parts[at + 1]?.startsWith("@") ? 2 : 1;
      files.add([...parts.slice(0, at + 1 + name), "package.json"].join(path.sep));
    } else dirs.add(path.dirname(file));
  }
  // The tsconfig.json and package.json esbuild consulted for the sources: the nearest of each, and their absence on the way to it.
  for (const name of ["tsconfig.json", "package.json"]) {
    for (const start of dirs) {
      for (let dir = start; ; dir = path.dirname(dir)) {
        const file = path.join(dir, name);
        if (files.has(file)) break;
        files.add(file);
        if (existsSync(file) || path.dirname(dir) === dir) break;
      }
    }
  }
  files.add(path.join(root, "package.json"));
  // The lock file, in the site's folder or the nearest above it (a workspace's): the folders on the way are recorded without one.
  for (let dir = root; ; dir = path.dirname(dir)) {
    const locks = LOCK_FILES.map((name) => path.join(dir, name));
    for (const lock of locks) files.add(lock);
    if (locks.some((lock) => existsSync(lock)) || path.dirname(dir) === dir) break;
  }
  return [...files].sort();
}

/** A call `import(…)` or `require(…)` whose target is neither a written string nor a package's path (a relative path made at run time). */
function computedImport(file) {
  let source;
  try {
    source = readFileSync(file, "utf8");
  } catch {
    return true;
  }
  for (const [, target] of source.matchAll(/\b(?:import|require)\s*\(\s*([^)\s][^)]*)\)/g)) {
    const text = target.trim();
    // A written string esbuild resolved (it is in the graph), or a package's path built from a name (the lock file covers it).
    if (/^(["'])[^"'`]*\1$/.test(text) || /^`(?:node:|@?[a-z0-9][\w.-]*\/)[^`]*`$/i.test(text)) continue;
    return true;
  }
  return false;
}

/**
 * The graph of the code, as esbuild's metafile says it, for engine/incremental/code-keys.ts:
 * each file read (relative to the root) with its recorded state and the files it imports;
 * an import esbuild did not bundle is named as it was written (`external`), and one whose
 * target it could not tell (a dynamic import of a computed path that is not a package) is
 * marked `unknown`. `engine`: the engine's folder. `others`: the state of the inputs that
 * are no module (the launcher, the package.json files, the lock file, tsconfig.json).
 */
function moduleGraph(metafile, inputs, entryPoints, root) {
  const state = new Map(inputs.map(([file, size, mtime, hash]) => [file, hash || `${size}:${mtime}`]));
  const name = (input) => posix(path.relative(root, path.resolve(root, input)));
  const modules = {};
  for (const [input, meta] of Object.entries(metafile.inputs)) {
    // The modules that require React are not files: an import of one is an import of the package.
    if (requiring(input)) continue;
    const file = name(input);
    const imports = [];
    const external = [];
    let unknown = false;
    for (const edge of meta.imports) {
      if (requiring(edge.path)) external.push(edge.path.slice(REQUIRING.length + 1));
      else if (!edge.external) imports.push(name(edge.path));
      // A package (bare name) is covered by the lock file; a path esbuild left out is not.
      else if (/^(node:|[@a-z])/i.test(edge.path) && !edge.path.includes("${")) external.push(edge.path);
      else unknown = true;
    }
    // A dynamic import or require esbuild left as it was (a computed path) is in no metafile: read from the source.
    if (!inPackage(path.resolve(root, file)) && computedImport(path.resolve(root, file))) unknown = true;
    modules[file] = { state: state.get(file) ?? "absent", imports, ...(external.length ? { external } : {}), ...(unknown ? { unknown } : {}) };
  }
  const moduleFiles = new Set(Object.keys(modules));
  const others = inputs.filter(([file]) => !moduleFiles.has(file)).map(([file, size, mtime, hash]) => [file, hash || `${size}:${mtime}`]);
  const entries = Object.fromEntries(Object.entries(entryPoints).map(([key, file]) => [key, name(file)]));
  return { format: 1, node: NODE_MAJOR, engine: posix(path.relative(root, engineDir)) || ".", entries, modules, others };
}

/** The bundle of the site's code as it is now: a recent one that is still current, or a new one. */
async function bundle(root, siteModule, { force = false } = {}) {
  // Outside any site (to print why, or the help), nothing is written into the folder it was run in.
  const cache = cacheOf(siteModule ? root : engineHome());
  // One set of bundles per site and entry; the site's path is part of the name only when the cache is shared (CAFE_CACHE_DIR).
  const slot = path.join(
    cache,
    sha(JSON.stringify([inside(root, cache) ? "" : root, siteModule ? posix(path.relative(root, siteModule)) : "", posix(path.relative(root, engineDir))])).slice(0, 16),
  );
  if (!force) {
    const candidates = (() => {
      try {
        return readdirSync(slot, { withFileTypes: true })
          .filter((e) => e.isDirectory() && !e.name.includes("."))
          .map((e) => ({ dir: path.join(slot, e.name), used: statSync(path.join(slot, e.name), { throwIfNoEntry: false })?.mtimeMs ?? 0 }))
          .sort((a, b) => b.used - a.used)
          .slice(0, 3);
      } catch {
        return [];
      }
    })();
    for (const { dir } of candidates) {
      const manifest = currentRecord(dir, root);
      if (!manifest) continue;
      const now = new Date();
      utimesSync(dir, now, now);
      return { dir, manifest, fresh: false };
    }
  }
  const made = await make(root, siteModule, slot);
  prune(cache, slot, made.dir);
  return made;
}

/** Bundles the code into a folder of its own, records it, and renames it into place when complete. */
async function make(root, siteModule, slot) {
  // Noted as engine/lib/packages.ts notes a library loaded on demand: `--verbose` lists esbuild when it bundled the command.
  const start = performance.now();
  const { build } = await import("esbuild");
  if (performance.getEntriesByName("cafe:load esbuild", "measure").length === 0) performance.measure("cafe:load esbuild", { start, end: performance.now() });
  mkdirSync(slot, { recursive: true });
  const temp = path.join(slot, `new.${process.pid}.${Date.now()}.tmp`);
  const entryPoints = {
    cli: path.join(engineDir, "cli/main.ts"),
    "dev-builder": path.join(engineDir, "servers/dev-builder.ts"),
    // A worker thread of the pool: it loads site.js (the config and its theme) by path.
    worker: path.join(engineDir, "pipeline/worker.ts"),
  };
  if (siteModule) entryPoints.site = siteModule;
  let result;
  try {
    const options = {
      absWorkingDir: root,
      entryPoints,
      outdir: temp,
      bundle: true,
      splitting: true,
      format: "esm",
      platform: "node",
      target: "node20",
      // Pure-JavaScript packages are bundled too: loading a few files instead of hundreds of
      // small modules one by one is most of what a start costs. Packages with native code,
      // WebAssembly or files of their own stay in node_modules.
      external: KEEP_EXTERNAL,
      // ESM builds first: a UMD main (jsonc-parser) requires its parts by computed paths.
      mainFields: ["module", "main"],
      // Bundled CommonJS packages require Node's own modules.
      banner: { js: 'import { createRequire as __cafeRequire } from "node:module"; const require = __cafeRequire(import.meta.url);' },
      jsx: "automatic",
      sourcemap: "linked",
      sourcesContent: false,
      chunkNames: "chunks/[name]-[hash]",
      metafile: true,
      logLevel: "silent",
      plugins: [requireCommonJs],
    };
    result = await build({ ...options, plugins: [...options.plugins, zodEnglishOnly] });
    // Fails closed: code that names the locales (`z.config(z.locales.pt())`) gets zod whole.
    if (namesLocales(result.metafile, root)) {
      rmSync(temp, { recursive: true, force: true });
      result = await build(options);
    }
  } catch (error) {
    rmSync(temp, { recursive: true, force: true });
    // As file:line:column (relative to the site's folder), so the dev server's overlay points at the broken source.
    const text = error.errors
      ? error.errors.map((e) => `${e.location ? `${e.location.file}:${e.location.line}:${e.location.column + 1}: ` : ""}${e.text}${e.location ? `\n    ${e.location.lineText}` : ""}`).join("\n")
      : String(error?.stack ?? error);
    // Written whole before exiting: a pipe (the dev server reads this) is written asynchronously.
    await new Promise((resolve) => process.stderr.write(`${text}\n`, resolve));
    process.exit(1);
  }
  const inputs = inputsOf(result.metafile, root).map((file) => record(root, file));
  // The site's own code among them (its default theme folders): not a package's, not the engine's.
  const sources = Object.keys(result.metafile.inputs)
    .map((input) => path.resolve(root, input))
    .filter((file) => inside(root, file) && !inside(engineDir, file) && !file.split(path.sep).includes("node_modules") && existsSync(file))
    .map((file) => posix(path.relative(root, file)))
    .sort();
  // Which module imports which, for the engine to key each part of the theme by the modules it reaches (engine/incremental/code-keys.ts).
  writeFileSync(path.join(temp, MODULES), JSON.stringify(moduleGraph(result.metafile, inputs, entryPoints, root)));
  // [file, size, mtime, hash], as the inputs: the times are kept when the folder is renamed into place.
  const outputs = filesOf(temp).map((file) => {
    const full = path.join(temp, file);
    return [posix(file), statSync(full).size, statSync(full).mtimeMs, sha(readFileSync(full))];
  });
  const manifest = { format: FORMAT, node: NODE_MAJOR, inputs, outputs, sources };
  writeFileSync(path.join(temp, MANIFEST), `${JSON.stringify(manifest)}\n`);
  // Packages stay in node_modules: a bundle kept outside the site (CAFE_CACHE_DIR) finds them through a link.
  if (!inside(root, temp)) {
    const modules = nodeModulesOf(root);
    if (modules) symlinkSync(modules, path.join(temp, "node_modules"), "dir");
  }
  // Named by what it was made from: a run that made the same bundle at the same time keeps one.
  // (A package's file by its size and time: it has no hash.)
  const dir = path.join(slot, sha(JSON.stringify([NODE_MAJOR, inputs.map(([file, size, mtime, hash]) => [file, hash || [size, mtime]])])).slice(0, 20));
  try {
    renameSync(temp, dir);
  } catch {
    if (currentRecord(dir, root)) {
      // Another run made the same bundle first: it is the same code.
      rmSync(temp, { recursive: true, force: true });
    } else {
      // A damaged bundle of the same name: put aside (removed later), then replaced.
      try {
        renameSync(dir, path.join(slot, `damaged.${process.pid}.${Date.now()}.tmp`));
        renameSync(temp, dir);
      } catch {
        return { dir: temp, manifest, fresh: true };
      }
    }
  }
  return { dir, manifest, fresh: true };
}

/** The node_modules folder the site's packages are found in: its own, or the nearest above it. */
function nodeModulesOf(root) {
  for (let dir = root; ; dir = path.dirname(dir)) {
    const modules = path.join(dir, "node_modules");
    if (statSync(path.join(modules, "react"), { throwIfNoEntry: false })) return modules;
    if (path.dirname(dir) === dir) return undefined;
  }
}

/** Bundles not used for a day are removed (a running process may still use a recent one), and what failed runs left. */
function prune(cache, slot, keep) {
  const dayAgo = Date.now() - 24 * 3600 * 1000;
  const old = (dir) => (statSync(dir, { throwIfNoEntry: false })?.mtimeMs ?? 0) < dayAgo;
  const now = new Date();
  utimesSync(slot, now, now);
  for (const name of readdirSync(cache)) {
    const dir = path.join(cache, name);
    if (dir !== slot && old(dir)) rmSync(dir, { recursive: true, force: true });
  }
  for (const name of readdirSync(slot)) {
    const dir = path.join(slot, name);
    if (dir !== keep && (name.startsWith("damaged.") || old(dir))) rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Imports a module of the bundle. A bundle that passed its checks and still does not load
 * (a file damaged since) is made again once, never run broken on every start.
 */
async function load(made, file, again) {
  try {
    return await import(pathToFileURL(path.join(made.dir, file)).href);
  } catch (error) {
    const damaged = error instanceof SyntaxError || (error?.code === "ERR_MODULE_NOT_FOUND" && String(error.message).includes(made.dir));
    if (made.fresh || !damaged) throw error;
    const remade = await again();
    return { ...(await import(pathToFileURL(path.join(remade.dir, file)).href)), remade };
  }
}

const argv = process.argv.slice(2);
if (argv[0] === "--dev-builder") {
  // The dev server's builder process: the config (or theme) module it names runs from the bundle.
  const setup = JSON.parse(argv[1]);
  const rebundle = () => bundle(setup.projectRoot, setup.themeModule, { force: true });
  let made = await bundle(setup.projectRoot, setup.themeModule);
  // Frames in the bundles of this site (its folder of them: one made again lands there too) are shown at their sources.
  sourceStacks(path.dirname(made.dir));
  const builder = await load(made, "dev-builder.js", rebundle);
  if (builder.remade) made = builder.remade;
  // The bundle is named by everything it was made from: that name is the version of the code the persistent cache belongs to.
  builder.runBuilder({ ...setup, themeModule: path.join(made.dir, "site.js"), workerModule: path.join(made.dir, "worker.js"), code: path.basename(made.dir), modulesFile: path.join(made.dir, MODULES) });
} else {
  const { root, config } = findSite(argv);
  const rebundle = () => bundle(root, config, { force: true });
  let made = await bundle(root, config, { force: argv.includes("--force") });
  sourceStacks(path.dirname(made.dir));
  const cli = await load(made, "cli.js", rebundle);
  if (cli.remade) made = cli.remade;
  const code = await cli.main(argv, {
    root,
    configFile: config && path.relative(root, config),
    loadConfig: config && (() => import(pathToFileURL(path.join(made.dir, "site.js")).href)),
    sources: made.manifest.sources,
    launcher,
    engineDir,
    setupFile: path.join(made.dir, "setup.json"),
    workers: config && { worker: path.join(made.dir, "worker.js"), site: path.join(made.dir, "site.js") },
    code: path.basename(made.dir),
    modulesFile: path.join(made.dir, MODULES),
  });
  process.exit(code);
}
