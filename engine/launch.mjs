#!/usr/bin/env node
/**
 * The command line as authors run it (`npm run build`, `npm start`…): `build.ts` and the
 * engine compiled to plain JavaScript once, then run by Node directly.
 *
 * Running the TypeScript through the tsx loader costs ~0.22 s (and ~40 MB) before the first
 * line of the build. So this launcher keeps a compiled copy in node_modules/.cafe-cli
 * (esbuild, ~0.2 s, made again only when a source file of the generator changes: the
 * newest modification time and the file count are the stamp) and imports it. Each version
 * has its own folder, so concurrent runs never see half a compile. The compiled copy is
 * the generator itself, like Eleventy's or Astro's published JavaScript: it does not
 * depend on the content and is not a build cache.
 *
 * Plain JavaScript on purpose: it runs before anything is compiled.
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const cacheDir = path.join(root, "node_modules", ".cafe-cli");
// Everything build.ts imports: the engine, the templates and the islands they render.
const SOURCE_DIRS = ["engine", "templates", "client"];
const SOURCE_FILES = ["build.ts", "package-lock.json", "tsconfig.json"];

/** The newest modification time and the number of the generator's source files. */
function stamp() {
  let newest = 0;
  let count = 0;
  const note = (file) => {
    const { mtimeMs } = statSync(file);
    if (mtimeMs > newest) newest = mtimeMs;
    count++;
  };
  for (const dir of SOURCE_DIRS) {
    for (const entry of readdirSync(path.join(root, dir), { withFileTypes: true, recursive: true })) {
      if (entry.isFile() && /\.(tsx?|mjs)$/.test(entry.name)) note(path.join(entry.parentPath, entry.name));
    }
  }
  for (const file of SOURCE_FILES) note(path.join(root, file));
  return `${newest}:${count}`;
}

/** Compiles into `<cache>/<stamp>`; each version has its own folder, so concurrent runs never mix. */
async function compile(target) {
  const { build } = await import("esbuild");
  const staging = `${target}.tmp-${process.pid}`;
  await build({
    absWorkingDir: root,
    entryPoints: { cli: "build.ts" },
    outdir: staging,
    outExtension: { ".js": ".mjs" },
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "node",
    target: "node20",
    // The Markdown toolchain is some two hundred small modules: loading them one by one cost
    // ~0.3 s per run, so they are bundled in. React stays a package of its own (lucide's
    // icons, loaded by name at build time, must share its one copy), and so do esbuild (a
    // native binary) and the font cutter (run by path, in a process of its own).
    external: ["esbuild", "react", "react-dom", "lucide-react", "subset-font", "chokidar"],
    // Bundled CommonJS (gray-matter and its YAML parser) requires Node's built-in modules.
    banner: { js: 'import { createRequire as __cafeRequire } from "node:module"; const require = __cafeRequire(import.meta.url);' },
    jsx: "automatic",
    logLevel: "error",
  });
  try {
    renameSync(staging, target);
  } catch (error) {
    // Another run compiled the same version at the same moment: use theirs.
    rmSync(staging, { recursive: true, force: true });
    if (!existsSync(target)) throw error;
    return;
  }
  // Older versions go; a run still using one has already loaded what it needs.
  for (const name of readdirSync(cacheDir)) {
    const dir = path.join(cacheDir, name);
    if (dir !== target && !name.includes(".tmp-")) rmSync(dir, { recursive: true, force: true });
  }
}

const version = createHash("sha256").update(stamp()).digest("hex").slice(0, 12);
const target = path.join(cacheDir, version);
if (!existsSync(path.join(target, "cli.mjs"))) {
  mkdirSync(cacheDir, { recursive: true });
  await compile(target);
}
process.env.CAFE_PROJECT_ROOT = root;
await import(pathToFileURL(path.join(target, "cli.mjs")).href);
