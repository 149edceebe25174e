#!/usr/bin/env node
/**
 * `cafe`, the engine's command, and the one way its code runs: every npm script of this
 * project (build, preview, start, dev, new, check:links), the dev server's builder process,
 * the benchmarks and the tests that start the command line run `node engine/launch.mjs
 * <command> [flags]`; a site that installed the engine runs `npx cafe <command>`.
 *
 * It finds the site (`--root DIR`, else the nearest folder with a cafe.config file at or
 * above the working folder, else above the engine: the site it is installed or checked out
 * in) and runs two bundles made with esbuild:
 * - the engine's: the command line (engine/cli/main.ts), the dev builder, a worker thread of
 *   the pool, and what a site imports of the engine (its API, engine/index.ts, and zod). Made
 *   once per version of the engine, for every site it runs, and kept in the engine's folder
 *   (engine/.bundle/, as an installed package keeps what it was built to: a site's caches
 *   removed, the engine is not compiled again);
 * - the site's: its config with the theme it imports (site.js), in
 *   <site>/node_modules/.cache/engine/cli/. Its imports of the engine's API and of zod are
 *   imports of the engine's bundle (one copy of the engine's classes and contexts, and of zod's
 *   registry of `.describe()` texts); an import of any other module of the engine is refused.
 *   Editing the theme bundles some 35 files instead of the engine's 600 (310 ms against 20 ms
 *   of esbuild for this blog: bench/README.md, session 15).
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
import { accessSync, constants, existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, renameSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { setFlagsFromString } from "node:v8";
import { sourceStacks } from "./lib/source-stacks.mjs";

/**
 * V8 optimises a function (Turbofan, on a thread beside) once it has run `--interrupt-budget`
 * bytes of bytecode, 67,584 by default: sized for pages that run for minutes. A build runs for
 * seconds, and its optimising was a quarter of the CPU of the 4000-article cold build (perf, one
 * thread), much of it for functions that ran little more after; each worker thread compiles the
 * same code again. Four and a half times the default: the cold build 9% faster on the pool's
 * two threads and 11% less CPU, 7% faster on one thread (quiet series, bench/README.md,
 * "Session 17"); more than that made the build's own thread slower. Set before any of the
 * engine's code is loaded, for every thread of the process; a budget given to node is kept.
 */
const givenFlags = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? "").split(/\s+/)];
if (!givenFlags.some((flag) => flag.startsWith("--interrupt-budget"))) setFlagsFromString("--interrupt-budget=300000");
/**
 * WebAssembly compiled by V8's baseline compiler only (Liftoff), never optimised again by
 * Turbofan. A build runs three WebAssembly modules for moments: harfbuzz and the WOFF2 encoder
 * once per cut font, satori's layout engine per card. Turbofan's recompiling of the WOFF2
 * encoder alone raised the process's memory by ~43 MiB (3 MiB with Liftoff only), and the
 * 4000-article cold build's peak fell from 305 to 265 MiB in a quiet series; cards are drawn
 * as fast (bench/README.md, "Session 19"). A flag given to node is kept.
 */
if (!givenFlags.some((flag) => /^--(no-)?(liftoff-only|wasm-tier-up)\b/.test(flag))) setFlagsFromString("--liftoff-only");

const launcher = realpathSync(fileURLToPath(import.meta.url));
const engineDir = path.dirname(launcher);
/** The names of a site's config file, in the order they are looked for (engine/config.ts says the same; a test keeps them equal). */
const CONFIG_FILES = ["cafe.config.ts", "cafe.config.mts", "cafe.config.tsx", "cafe.config.js", "cafe.config.mjs"];
/** Lock files of the libraries (npm, yarn, pnpm, bun). */
const LOCK_FILES = ["package-lock.json", "npm-shrinkwrap.json", "yarn.lock", "pnpm-lock.yaml", "bun.lock", "bun.lockb"];
/** Packages loaded from node_modules as they are: native code, WebAssembly, files beside their code; React and what renders with it (one copy, the one satori and the islands use; React and react-dom required: `requireCommonJs`). */
const KEEP_EXTERNAL = ["sharp", "esbuild", "@resvg/resvg-js", "satori", "subset-font", "piscina", "react", "react-dom", "lucide-react"];
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
/**
 * The engine's entry points (in its folder), bundled once for every site that runs this
 * engine: the command line, the dev server's builder, a worker thread of the pool, and what a
 * site's config and theme import of the engine (`cafe-engine`, engine/index.ts) and of zod
 * (one copy for both: lib/zod.ts).
 */
const ENGINE_ENTRIES = { cli: "cli/main.ts", "dev-builder": "servers/dev-builder.ts", worker: "pipeline/worker.ts", index: "index.ts", zod: "lib/zod.ts" };
/** The files each kind of bundle has (its entry points): a record without them is damaged. */
const ENGINE_FILES = Object.keys(ENGINE_ENTRIES).map((name) => `${name}.js`);
const SITE_FILES = ["site.js"];
/** The record's format: a launcher that records otherwise changes it. */
const FORMAT = 5;
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

/** The bundle's record when the bundle (whose entry files are `entryFiles`) can run these sources as they are now; undefined otherwise. */
function currentRecord(dir, root, entryFiles) {
  let manifest;
  try {
    manifest = JSON.parse(readFileSync(path.join(dir, MANIFEST), "utf8"));
  } catch {
    return undefined;
  }
  if (manifest?.format !== FORMAT || manifest.node !== NODE_MAJOR || !Array.isArray(manifest.inputs) || !Array.isArray(manifest.outputs)) return undefined;
  // A record that lists nothing (no source read, no file made, no entry point) is a damaged one: it would vouch for any code.
  const made = new Set(manifest.outputs.map((output) => Array.isArray(output) && output[0]));
  if (manifest.inputs.length === 0 || !entryFiles.every((file) => made.has(file))) return undefined;
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
 * `links`: the site's imports of the engine's bundle (`file:` URLs), each with the engine's
 * module it stands for. `printed`: the state of a module by the code esbuild makes of it
 * (`printedStates`), where it has one, instead of its file's hash.
 */
function moduleGraph(metafile, inputs, entryPoints, root, links = new Map(), printed = new Map()) {
  const state = new Map(inputs.map(([file, size, mtime, hash]) => [file, printed.get(file) ?? (hash || `${size}:${mtime}`)]));
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
      // An import of the engine's bundle (the site's bundle): the engine's module it is.
      else if (links.has(edge.path)) imports.push(links.get(edge.path));
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

/**
 * Where the engine's bundles are kept. In the engine's own folder (`.bundle/`), as a package
 * keeps what it was built to: a site's caches removed, the engine is not compiled again, and
 * every site run by this engine shares it. With CAFE_CACHE_DIR (the tests' own folder), there,
 * one folder per engine; where the engine's folder cannot be written (installed read-only),
 * beside the site's bundles.
 */
function engineStore(root) {
  const beside = path.join(cacheOf(root), `engine-${sha(engineDir).slice(0, 16)}`);
  for (const store of process.env.CAFE_CACHE_DIR ? [beside] : [path.join(engineDir, ".bundle"), beside]) {
    try {
      mkdirSync(store, { recursive: true });
      accessSync(store, constants.W_OK);
      return store;
    } catch {}
  }
  return beside;
}

/** The bundles of a slot (each a folder named by what it was made from), the most recently used first. */
function recentIn(slot) {
  try {
    return readdirSync(slot, { withFileTypes: true })
      .filter((e) => e.isDirectory() && !e.name.includes("."))
      .map((e) => ({ dir: path.join(slot, e.name), used: statSync(path.join(slot, e.name), { throwIfNoEntry: false })?.mtimeMs ?? 0 }))
      .sort((a, b) => b.used - a.used)
      .slice(0, 3)
      .map((e) => e.dir);
  } catch {
    return [];
  }
}

/** Marks a bundle as used now (a bundle not used for a day is removed: `prune`). */
function touch(dir) {
  const now = new Date();
  utimesSync(dir, now, now);
}

/**
 * The code to run as it is now: the engine's bundle (cli.js, dev-builder.js, worker.js and
 * what a site imports of it) and, in a site, the bundle of its config and theme (site.js),
 * whose imports of the engine are imports of the engine's bundle. Each is a recent one still
 * current, or a new one. The engine's is made once per version of the engine (its sources, its
 * packages, this launcher), whatever the site; the site's once per version of its code and of
 * the engine's bundle. `force` makes both again.
 */
async function codeOf(root, siteModule, { force = false } = {}) {
  const home = engineHome();
  // Outside any site (to print why, or the help), nothing is written into the folder it was run in: a store beside bundles is the engine's project's.
  const store = engineStore(siteModule ? root : home);
  if (!siteModule) return { engine: await engineBundle(home, store, { locales: false, force }) };
  const cache = cacheOf(root);
  // One set of bundles per site and entry; the site's path is part of the name only when the cache is shared (CAFE_CACHE_DIR).
  const slot = path.join(cache, sha(JSON.stringify([inside(root, cache) ? "" : root, posix(path.relative(root, siteModule)), posix(path.relative(root, engineDir))])).slice(0, 16));
  if (!force) {
    for (const dir of recentIn(slot)) {
      const manifest = currentRecord(dir, root, SITE_FILES);
      // The engine's bundle it imports, still current.
      const engineDirOf = typeof manifest?.engine === "string" ? path.join(store, manifest.engine) : undefined;
      const engineManifest = engineDirOf && currentRecord(engineDirOf, home, ENGINE_FILES);
      if (!engineManifest) continue;
      for (const used of [dir, engineDirOf, store]) touch(used);
      return { engine: { dir: engineDirOf, manifest: engineManifest, fresh: false }, site: { dir, manifest, fresh: false } };
    }
  }
  let engine = await engineBundle(home, store, { locales: false, force });
  let site = await makeSite(root, siteModule, slot, engine, home);
  // Fails closed: a site whose code names zod's locales (`z.config(z.locales.pt())`) gets an engine's bundle with zod whole.
  if (site.locales) {
    rmSync(site.dir, { recursive: true, force: true });
    engine = await engineBundle(home, store, { locales: true, force });
    site = await makeSite(root, siteModule, slot, engine, home);
  }
  prune(cache, slot, site.dir);
  return { engine, site };
}

/** The engine's bundle: a recent one that is still current (with zod's locales or without), or a new one. */
async function engineBundle(home, store, { locales, force }) {
  // The store is in use (beside the site's bundles, a folder unused for a day is removed).
  touch(store);
  if (!force) {
    for (const dir of recentIn(store)) {
      const manifest = currentRecord(dir, home, ENGINE_FILES);
      if (!manifest || manifest.locales !== locales) continue;
      touch(dir);
      return { dir, manifest, fresh: false };
    }
  }
  const entryPoints = Object.fromEntries(Object.entries(ENGINE_ENTRIES).map(([name, file]) => [name, path.join(engineDir, file)]));
  const temp = tempIn(store);
  const result = await esbuildOrExit(
    { ...bundleOptions(home, entryPoints, temp), plugins: locales ? [requireCommonJs] : [requireCommonJs, zodEnglishOnly] },
    temp,
  );
  const inputs = inputsOf(result.metafile, home).map((file) => record(home, file));
  writeFileSync(path.join(temp, MODULES), JSON.stringify(moduleGraph(result.metafile, inputs, entryPoints, home)));
  const made = seal(temp, store, home, { format: FORMAT, node: NODE_MAJOR, locales, inputs, outputs: outputsOf(temp) }, [NODE_MAJOR, locales], ENGINE_FILES);
  pruneSlot(store, made.dir);
  return made;
}

/**
 * Bundles the site's config and theme (site.js) against the engine's bundle `engine`: their
 * imports of the engine's API (`cafe-engine`, engine/index.ts) and of zod are imports of the
 * engine's bundle, so that one copy of each runs. Any other module of the engine is refused: a
 * theme reaches the engine through its API. `locales` when the site's code names zod's.
 */
async function makeSite(root, siteModule, slot, engine, home) {
  const temp = tempIn(slot);
  const entryPoints = { site: siteModule };
  const url = (file) => pathToFileURL(path.join(engine.dir, file)).href;
  /** Each import of the engine's bundle, with the engine's module it stands for (relative to the site's folder). */
  const links = new Map(Object.entries(ENGINE_ENTRIES).map(([name, file]) => [url(`${name}.js`), posix(path.relative(root, path.join(engineDir, file)))]));
  const api = path.join(engineDir, ENGINE_ENTRIES.index);
  // A module of the engine: in its folder, not a package of its own, not the site's (a site in the engine's folder, as its starter).
  const engineModule = (file) => !!file && inside(engineDir, file) && !inPackage(path.relative(engineDir, file)) && !(inside(engineDir, root) && inside(root, file));
  const resolving = Symbol("engine-imports");
  /**
   * Each import that may be the engine's is resolved by esbuild here, to be told apart: its API is
   * the engine's bundle, any other module of it is refused. esbuild's resolver, asked from a
   * plugin, starts again without what it knows of the folders (evanw/esbuild#3795): asked for
   * every import of the site, it was most of a template edit's bundle (~250 of ~300 ms, session
   * 25). `every`: every relative, absolute and `cafe-engine` import is asked; otherwise only
   * `cafe-engine` and the paths into the engine's folder as written, and a bundle that took in a
   * module of the engine all the same (a path through a link) is made again with `every`.
   */
  const engineImports = (every) => ({
    name: "engine-imports",
    setup(build) {
      build.onResolve({ filter: /^zod$/ }, () => ({ path: url("zod.js"), external: true }));
      build.onResolve({ filter: /^(\.|\/|[a-zA-Z]:|cafe-engine(\/|$))/ }, async (args) => {
        if (args.pluginData === resolving) return undefined;
        if (!every && !args.path.startsWith("cafe-engine") && !engineModule(path.resolve(args.resolveDir, args.path))) return undefined;
        const found = await build.resolve(args.path, { kind: args.kind, importer: args.importer, resolveDir: args.resolveDir, pluginData: resolving });
        if (found.errors.length > 0 || !engineModule(found.path)) return undefined;
        if (found.path === api) return { path: url("index.js"), external: true };
        return { errors: [{ text: `${posix(path.relative(root, found.path))} is a module of the engine: a site's config and theme import the engine only through its API, "cafe-engine" (engine/index.ts).` }] };
      });
    },
  });
  const bundle = (every) => esbuildOrExit({ ...bundleOptions(root, entryPoints, temp), plugins: [requireCommonJs, engineImports(every)] }, temp);
  let result = await bundle(false);
  if (Object.keys(result.metafile.inputs).some((input) => !requiring(input) && engineModule(path.resolve(root, input)))) {
    rmSync(temp, { recursive: true, force: true });
    result = await bundle(true);
  }
  const locales = !engine.manifest.locales && namesLocales(result.metafile, root) !== undefined;
  const inputs = inputsOf(result.metafile, root).map((file) => record(root, file));
  // The site's own code among them (its default theme folders): not a package's, not the engine's.
  const sources = Object.keys(result.metafile.inputs)
    .map((input) => path.resolve(root, input))
    .filter((file) => inside(root, file) && !inside(engineDir, file) && !file.split(path.sep).includes("node_modules") && existsSync(file))
    .map((file) => posix(path.relative(root, file)))
    .sort();
  // Which module imports which, the engine's and the site's, for the engine to key each part of the theme by the modules it reaches (engine/incremental/code-keys.ts).
  const siteGraph = moduleGraph(result.metafile, inputs, entryPoints, root, links, await printedStates(root, sources));
  writeFileSync(path.join(temp, MODULES), JSON.stringify(joinGraphs(readEngineGraph(engine.dir, home, root), siteGraph)));
  const name = path.basename(engine.dir);
  const manifest = { format: FORMAT, node: NODE_MAJOR, engine: name, inputs, outputs: outputsOf(temp), sources };
  return { ...seal(temp, slot, root, manifest, [NODE_MAJOR, name], SITE_FILES), locales };
}

/** The site's own modules whose code esbuild makes (scripts): a stylesheet or a data file imported is recorded by its hash. */
const SCRIPT = /\.(?:[cm]?[jt]s|[jt]sx)$/;

/** What stands for esbuild's mark of a call without side effects in `printedStates`' code (an expression, so that it survives the comments' removal). */
const PURE = "__cafePure__";

/**
 * The state of each of the site's own script modules (`files`, relative to the site's folder)
 * by the code esbuild makes of it, not by its file's bytes: an edit to a comment, a blank line
 * or a line's indentation leaves the code as it was, and so every key of the code
 * (engine/incremental/code-keys.ts) and every page and body made with it. The code: the module
 * made on its own as the bundle makes it (its options, the tsconfig.json esbuild finds, no
 * bundling), then printed again without its comments and layout (`minifyWhitespace`; names are
 * kept). What esbuild keeps of a comment stays in it: a call marked `@__PURE__` (which a bundle
 * drops when its value is unused) as an expression of its own before the call, a legal comment
 * as it is, a JSX pragma's effect in the calls it makes. A module it cannot print so (the
 * call failed; `@__NO_SIDE_EFFECTS__`, which marks a function, not a call; a mark where an
 * expression cannot stand; code that names PURE itself) keeps its file's hash: its keys change
 * with any edit, as before.
 */
async function printedStates(root, files) {
  const scripts = files.filter((file) => SCRIPT.test(file));
  if (scripts.length === 0) return new Map();
  const { build, transform } = await import("esbuild");
  let result;
  try {
    result = await build({
      absWorkingDir: root,
      entryPoints: scripts,
      outbase: root,
      outdir: path.join(root, "cafe-printed"),
      bundle: false,
      write: false,
      format: "esm",
      platform: "node",
      target: "node20",
      jsx: "automatic",
      metafile: true,
      logLevel: "silent",
    });
  } catch {
    return new Map();
  }
  const byOutput = new Map(result.outputFiles.map((output) => [posix(path.relative(root, output.path)), output.text]));
  const states = new Map();
  await Promise.all(
    Object.entries(result.metafile.outputs).map(async ([output, meta]) => {
      const text = byOutput.get(posix(path.relative(root, path.resolve(root, output))));
      const file = meta.entryPoint && posix(path.relative(root, path.resolve(root, meta.entryPoint)));
      if (text === undefined || !file || !scripts.includes(file) || text.includes(PURE) || text.includes("__NO_SIDE_EFFECTS__")) return;
      try {
        const { code } = await transform(text.replaceAll("/* @__PURE__ */ ", `${PURE}+`), { loader: "js", minifyWhitespace: true, logLevel: "silent" });
        states.set(file, `printed:${sha(`${code}\0${JSON.stringify(meta.imports)}`)}`);
      } catch {}
    }),
  );
  return states;
}

/** The engine's graph of modules (relative to `home`), its paths made relative to the site's folder. */
function readEngineGraph(dir, home, root) {
  const graph = JSON.parse(readFileSync(path.join(dir, MODULES), "utf8"));
  const rel = (file) => posix(path.relative(root, path.resolve(home, file)));
  const modules = Object.fromEntries(Object.entries(graph.modules).map(([file, m]) => [rel(file), { ...m, imports: m.imports.map(rel) }]));
  return { ...graph, entries: Object.fromEntries(Object.entries(graph.entries).map(([key, file]) => [key, rel(file)])), modules, others: graph.others.map(([file, state]) => [rel(file), state]) };
}

/** The engine's graph and the site's as one (both relative to the site's folder). */
function joinGraphs(engine, site) {
  const others = new Map([...engine.others, ...site.others]);
  return { ...site, entries: { ...engine.entries, ...site.entries }, modules: { ...engine.modules, ...site.modules }, others: [...others].sort(([a], [b]) => (a < b ? -1 : 1)) };
}

/** esbuild's options for a bundle of `entryPoints` into `outdir`. */
function bundleOptions(absWorkingDir, entryPoints, outdir) {
  return {
    absWorkingDir,
    entryPoints,
    outdir,
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
  };
}

/** A new folder for a bundle being made in `slot`. */
function tempIn(slot) {
  mkdirSync(slot, { recursive: true });
  return path.join(slot, `new.${process.pid}.${Date.now()}.tmp`);
}

/** esbuild's bundle, or its errors shown and the command ended. */
async function esbuildOrExit(options, temp) {
  // Noted as engine/lib/packages.ts notes a library loaded on demand: `--verbose` lists esbuild when it bundled the command.
  const start = performance.now();
  const { build } = await import("esbuild");
  if (performance.getEntriesByName("cafe:load esbuild", "measure").length === 0) performance.measure("cafe:load esbuild", { start, end: performance.now() });
  try {
    return await build(options);
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
}

/** [file, size, mtime, hash] of each file of a bundle being made, as the inputs: the times are kept when the folder is renamed into place. */
function outputsOf(temp) {
  return filesOf(temp).map((file) => {
    const full = path.join(temp, file);
    const stat = statSync(full);
    return [posix(file), stat.size, stat.mtimeMs, sha(readFileSync(full))];
  });
}

/**
 * Writes a bundle's record (last), and renames the bundle into its slot, named by what it was
 * made from (`salt` and its inputs): a run that made the same bundle at the same time keeps one.
 */
function seal(temp, slot, root, manifest, salt, entryFiles) {
  writeFileSync(path.join(temp, MANIFEST), `${JSON.stringify(manifest)}\n`);
  // Packages stay in node_modules: a bundle kept outside its project finds them through a link.
  if (!inside(root, temp)) {
    const modules = nodeModulesOf(root);
    if (modules) symlinkSync(modules, path.join(temp, "node_modules"), "dir");
  }
  // (A package's file by its size and time: it has no hash.)
  const dir = path.join(slot, sha(JSON.stringify([...salt, manifest.inputs.map(([file, size, mtime, hash]) => [file, hash || [size, mtime]])])).slice(0, 20));
  try {
    renameSync(temp, dir);
  } catch {
    if (currentRecord(dir, root, entryFiles)) {
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

const dayAgo = () => Date.now() - 24 * 3600 * 1000;
const unusedForADay = (dir) => (statSync(dir, { throwIfNoEntry: false })?.mtimeMs ?? 0) < dayAgo();

/** The site's bundles not used for a day are removed (a running process may still use a recent one), other sites' slots too, and what failed runs left. */
function prune(cache, slot, keep) {
  touch(slot);
  for (const name of readdirSync(cache)) {
    const dir = path.join(cache, name);
    if (dir !== slot && unusedForADay(dir)) rmSync(dir, { recursive: true, force: true });
  }
  pruneSlot(slot, keep);
}

/** In one slot, the bundles not used for a day and what failed runs left, `keep` aside. */
function pruneSlot(slot, keep) {
  for (const name of readdirSync(slot)) {
    const dir = path.join(slot, name);
    if (dir !== keep && (name.startsWith("damaged.") || unusedForADay(dir))) rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Imports a module of the engine's bundle. Code that passed its checks and still does not load
 * (a file damaged since) is made again once, never run broken on every start.
 */
async function load(code, file, again) {
  try {
    return await import(pathToFileURL(path.join(code.engine.dir, file)).href);
  } catch (error) {
    const made = [code.engine, code.site].filter(Boolean);
    const damaged = error instanceof SyntaxError || (error?.code === "ERR_MODULE_NOT_FOUND" && made.some((bundle) => String(error.message).includes(bundle.dir)));
    if (made.some((bundle) => bundle.fresh) || !damaged) throw error;
    const remade = await again();
    return { ...(await import(pathToFileURL(path.join(remade.engine.dir, file)).href)), remade };
  }
}

/** The version of the code the persistent cache belongs to: the bundles are named by everything they were made from (the site's by the engine's too). */
const versionOf = (code) => path.basename((code.site ?? code.engine).dir);

const argv = process.argv.slice(2);
if (argv[0] === "--dev-builder") {
  // The dev server's builder process: the config (or theme) module it names runs from the site's bundle.
  const setup = JSON.parse(argv[1]);
  const again = () => codeOf(setup.projectRoot, setup.themeModule, { force: true });
  let code = await codeOf(setup.projectRoot, setup.themeModule);
  // Frames in the bundles (their folders: one made again lands there too) are shown at their sources.
  sourceStacks(path.dirname(code.engine.dir), path.dirname(code.site.dir));
  const builder = await load(code, "dev-builder.js", again);
  if (builder.remade) code = builder.remade;
  builder.runBuilder({
    ...setup,
    themeModule: path.join(code.site.dir, "site.js"),
    workerModule: path.join(code.engine.dir, "worker.js"),
    code: versionOf(code),
    modulesFile: path.join(code.site.dir, MODULES),
  });
} else {
  const { root, config } = findSite(argv);
  const again = () => codeOf(root, config, { force: true });
  let code = await codeOf(root, config, { force: argv.includes("--force") });
  sourceStacks(path.dirname(code.engine.dir), ...(code.site ? [path.dirname(code.site.dir)] : []));
  const cli = await load(code, "cli.js", again);
  if (cli.remade) code = cli.remade;
  const site = code.site;
  const exit = await cli.main(argv, {
    root,
    configFile: config && path.relative(root, config),
    loadConfig: site && (() => import(pathToFileURL(path.join(site.dir, "site.js")).href)),
    sources: site?.manifest.sources ?? [],
    launcher,
    engineDir,
    setupFile: site && path.join(site.dir, "setup.json"),
    workers: site && { worker: path.join(code.engine.dir, "worker.js"), site: path.join(site.dir, "site.js") },
    code: versionOf(code),
    modulesFile: path.join((site ?? code.engine).dir, MODULES),
  });
  process.exit(exit);
}
