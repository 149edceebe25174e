/**
 * The one way this project's code runs. Every npm script (build, preview, start, dev, new),
 * the dev server's builder process, the benchmarks and the tests that start the command line
 * run `node engine/launch.mjs <command> [flags]`.
 *
 * It bundles the command line (build.ts), the dev builder and the theme with esbuild into
 * node_modules/.cache/engine/cli/<key>/, where <key> is the hash of the content of every
 * source file (build.ts, engine/, templates/, client/, tsconfig.json) and of the lock file:
 * an edit, a checkout or an install makes a new bundle before the code runs, so no run ever
 * uses stale code, and a run with the same sources reuses it. Pure-JavaScript packages are
 * bundled with the code; those with native code or files of their own stay in node_modules.
 * Stack traces point at the sources (source maps).
 *
 * Why not tsx: it compiles every module on each start through a loader thread, about 70% of
 * a 15-page rebuild (bench/README.md); loading one bundle costs a fraction of that.
 */
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, renameSync, rmSync, statSync, symlinkSync, utimesSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
/** What is bundled: each entry's name in the bundle → its source. */
const ENTRIES = { build: "build.ts", "engine/servers/dev-builder": "engine/servers/dev-builder.ts", "templates/theme": "templates/theme.tsx" };
/** What the bundle is made from: its key is the hash of all of it. */
const SOURCES = ["build.ts", "engine", "templates", "client", "tsconfig.json", "package-lock.json"];
const CODE = /\.(tsx?|mts|mjs|js|json)$/;
/** Packages loaded from node_modules as they are: native code, WebAssembly, files beside their code; React and what renders with it (one copy, the one satori and the islands use). */
const KEEP_EXTERNAL = ["sharp", "esbuild", "@resvg/resvg-js", "satori", "subset-font", "chokidar", "fsevents", "piscina", "react", "react-dom", "lucide-react"];
// Beside the engine's other caches (CAFE_CACHE_DIR: the tests' own folder, as engine/incremental/cache-root.ts says).
const CACHE = path.join(process.env.CAFE_CACHE_DIR ? path.resolve(process.env.CAFE_CACHE_DIR) : path.join(root, "node_modules/.cache/engine"), "cli");

/** Every source file, relative to the root, in a stable order. */
function sourceFiles() {
  const files = [];
  for (const entry of SOURCES) {
    const full = path.join(root, entry);
    if (!statSync(full, { throwIfNoEntry: false })?.isDirectory()) {
      if (existsSync(full)) files.push(entry);
      continue;
    }
    for (const dirent of readdirSync(full, { withFileTypes: true, recursive: true })) {
      if (dirent.isFile() && CODE.test(dirent.name)) files.push(path.relative(root, path.join(dirent.parentPath, dirent.name)));
    }
  }
  return files.sort();
}

/** The bundle's key: the content of every source file, and Node's major version. */
function bundleKey() {
  const hash = createHash("sha256").update(process.versions.node.split(".")[0]);
  for (const file of sourceFiles()) hash.update(file).update("\0").update(readFileSync(path.join(root, file))).update("\0");
  return hash.digest("base64url").slice(0, 20);
}

/** The bundle of these sources: made once, in a folder of its own, renamed into place when complete. */
async function bundle() {
  const dir = path.join(CACHE, bundleKey());
  if (existsSync(path.join(dir, "engine/servers/dev-builder.js"))) {
    const now = new Date();
    utimesSync(dir, now, now);
    return dir;
  }
  const { build } = await import("esbuild");
  const temp = `${dir}.${process.pid}.tmp`;
  rmSync(temp, { recursive: true, force: true });
  try {
    await build({
      absWorkingDir: root,
      // A copy of the project without the command line (tests of the dev builder) bundles the rest.
      entryPoints: Object.fromEntries(Object.entries(ENTRIES).filter(([, source]) => existsSync(path.join(root, source)))),
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
      logLevel: "silent",
    });
  } catch (error) {
    rmSync(temp, { recursive: true, force: true });
    // As file:line:column, so the dev server's overlay points at the broken source.
    const text = error.errors
      ? error.errors.map((e) => `${e.location ? `${e.location.file}:${e.location.line}:${e.location.column + 1}: ` : ""}${e.text}${e.location ? `\n    ${e.location.lineText}` : ""}`).join("\n")
      : String(error?.stack ?? error);
    // Written whole before exiting: a pipe (the dev server reads this) is written asynchronously.
    await new Promise((resolve) => process.stderr.write(`${text}\n`, resolve));
    process.exit(1);
  }
  // Packages stay in the project's node_modules: a bundle kept elsewhere (CAFE_CACHE_DIR) finds them through a link.
  if (path.relative(root, temp).startsWith("..")) symlinkSync(path.join(root, "node_modules"), path.join(temp, "node_modules"), "dir");
  try {
    renameSync(temp, dir);
  } catch {
    // Another run made the same bundle first: it is the same code.
    rmSync(temp, { recursive: true, force: true });
  }
  prune(dir);
  return dir;
}

/** Bundles of other sources not used for a day are removed (a running process may still use a recent one). */
function prune(keep) {
  const dayAgo = Date.now() - 24 * 3600 * 1000;
  for (const name of readdirSync(CACHE)) {
    const dir = path.join(CACHE, name);
    if (dir !== keep && (statSync(dir, { throwIfNoEntry: false })?.mtimeMs ?? 0) < dayAgo) rmSync(dir, { recursive: true, force: true });
  }
}

process.setSourceMapsEnabled(true);
const [first, ...rest] = process.argv.slice(2);
const dir = await bundle();
if (first === "--dev-builder") {
  // The dev server's builder process: the theme it is given as a source is run from the bundle.
  const [contentDir, projectRoot, outDir, themeModule, ...more] = rest;
  const relative = path.relative(root, themeModule);
  const bundled = Object.entries(ENTRIES).find(([, source]) => source === relative.split(path.sep).join("/"));
  const theme = bundled ? path.join(dir, `${bundled[0]}.js`) : themeModule;
  const { runBuilder } = await import(pathToFileURL(path.join(dir, "engine/servers/dev-builder.js")).href);
  runBuilder([contentDir, projectRoot, outDir, theme, ...more]);
} else {
  const { main } = await import(pathToFileURL(path.join(dir, "build.js")).href);
  process.exit(await main(process.argv.slice(2), root));
}
