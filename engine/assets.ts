/**
 * Stage 5 — assets: the client islands and the stylesheet through esbuild, with hashed file
 * names, plus the inline boot script. Returns files to write and the manifest templates use.
 */
import path from "node:path";
import { spawn } from "node:child_process";
import { build } from "esbuild";
import { createHash } from "node:crypto";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import type { AssetManifest } from "../templates/page-context.js";
import { sfntToWoff2 } from "./woff2.js";

export interface BuiltAssets {
  manifest: AssetManifest;
  /** Output path (relative to the site root) → contents. */
  files: Map<string, Uint8Array>;
}

export interface AssetOptions {
  /** The project folder holding client/ and templates/. */
  projectRoot: string;
  minify?: boolean;
  /** The text set in the script face (brand name, author's initial); the font is cut to it. */
  brandText?: string;
}

const BRAND_FONT = "@fontsource/dancing-script/files/dancing-script-latin-700-normal.woff2";
/** The same face as WOFF 1 (zlib), which the subsetter reads without a WebAssembly decoder. */
const BRAND_FONT_SOURCE = BRAND_FONT.replace(/\.woff2$/, ".woff");

/**
 * The script font cut to the letters it shows: about 1.5 KB instead of 25 KB. Cached on disk
 * by font and text, since starting the subsetter (WebAssembly) costs more than a build's
 * worth of pages on a small site.
 */
async function brandFont(projectRoot: string, text: string | undefined): Promise<Uint8Array> {
  const require = createRequire(path.join(projectRoot, "package.json"));
  if (!text) return readFile(require.resolve(BRAND_FONT));
  const font = await readFile(require.resolve(BRAND_FONT_SOURCE));
  const key = createHash("sha256").update(font).update(text).digest("hex").slice(0, 16);
  const cached = path.join(projectRoot, "node_modules/.cache/cafe-com-a-cris", `brand-${key}.woff2`);
  const hit = await readFile(cached).catch(() => undefined);
  if (hit) return hit;
  const subset = sfntToWoff2(await subsetInProcess(require.resolve("subset-font"), font, text));
  await mkdir(path.dirname(cached), { recursive: true });
  await writeFile(cached, subset);
  return subset;
}

/**
 * The subsetter (harfbuzz's hb-subset) is WebAssembly. Run in this process, even in a worker
 * thread that ends when the font is cut, it left ~45 MB behind for the rest of the build
 * (the allocator keeps what a thread freed). So it runs in a short-lived Node process of its
 * own: the font goes in on stdin, TrueType comes out on stdout, and its memory goes with it.
 * `sfntToWoff2` then compresses it with Node's Brotli (the WebAssembly WOFF2 encoder alone
 * held ~40 MB). Plain CommonJS, so it runs the same under tsx and compiled.
 */
const SUBSET_PROCESS = `
const chunks = [];
process.stdin.on("data", (chunk) => chunks.push(chunk)).on("end", () => {
  require(process.argv[1])(Buffer.concat(chunks), process.argv[2], { targetFormat: "truetype" }).then(
    (subset) => process.stdout.write(subset),
    (error) => {
      process.stderr.write(String((error && error.stack) || error));
      process.exitCode = 1;
    },
  );
});`;

function subsetInProcess(module: string, font: Uint8Array, text: string): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["-e", SUBSET_PROCESS, module, text], { stdio: ["pipe", "pipe", "pipe"] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on("data", (chunk: Buffer) => out.push(chunk));
    child.stderr.on("data", (chunk: Buffer) => err.push(chunk));
    child.once("error", (error) => reject(new Error(`could not cut the brand font: ${error.message}`)));
    child.once("close", (code) => {
      const subset = Buffer.concat(out);
      if (code === 0 && subset.length > 0) resolve(subset);
      else reject(new Error(`could not cut the brand font: ${Buffer.concat(err).toString("utf8").trim() || `exit code ${code}`}`));
    });
    child.stdin.end(font);
  });
}

/** Bundles client/main.ts and templates/styles.css into /assets with content hashes. */
export async function buildAssets({ projectRoot, minify = true, brandText }: AssetOptions): Promise<BuiltAssets> {
  const outdir = path.join(projectRoot, "assets-out");
  // The font is cut while esbuild bundles: the bundle waits for it only where it loads it.
  const font = brandFont(projectRoot, brandText);
  font.catch(() => {});
  // The boot script runs inline before first paint: its own tiny bundle, no React.
  const boot = build({
    absWorkingDir: projectRoot,
    entryPoints: ["client/boot.ts"],
    bundle: true,
    format: "iife",
    target: ["es2017"],
    minify: true,
    write: false,
    legalComments: "none",
    logLevel: "silent",
  });
  boot.catch(() => {});
  const bundled = build({
    absWorkingDir: projectRoot,
    entryPoints: { main: "client/main.ts", styles: "templates/styles.css" },
    bundle: true,
    splitting: true,
    format: "esm",
    target: ["es2020", "chrome100", "firefox100", "safari15"],
    minify,
    write: false,
    metafile: true,
    outdir,
    entryNames: "[name]-[hash]",
    chunkNames: "chunks/[name]-[hash]",
    assetNames: "fonts/[name]-[hash]",
    loader: { ".woff2": "file", ".woff": "file" },
    jsx: "automatic",
    define: { "process.env.NODE_ENV": '"production"' },
    legalComments: "none",
    logLevel: "silent",
    plugins: [
      {
        name: "brand-font",
        setup(b) {
          b.onResolve({ filter: /^cafe:brand-font$/ }, () => ({ path: "brand-script.woff2", namespace: "brand-font" }));
          b.onLoad({ filter: /.*/, namespace: "brand-font" }, async () => ({ contents: await font, loader: "file" }));
        },
      },
    ],
  });
  // When the font could not be cut, say that rather than how esbuild saw it.
  const result = await bundled.catch(async (error: unknown) => {
    await font;
    throw error;
  });

  const files = new Map<string, Uint8Array>();
  const manifest: Partial<AssetManifest> = {};
  for (const file of result.outputFiles) {
    const rel = `assets/${path.relative(outdir, file.path).split(path.sep).join("/")}`;
    files.set(rel, file.contents);
    const url = `/${rel}`;
    if (/^assets\/main-[^/]+\.js$/.test(rel)) manifest.js = url;
    else if (/^assets\/styles-[^/]+\.css$/.test(rel)) manifest.css = url;
    else if (/brand-script-[^/]*\.woff2$/.test(rel)) manifest.brandFont = url;
  }

  manifest.bootScript = (await boot).outputFiles[0]!.text.trim();

  if (!manifest.js || !manifest.css || !manifest.brandFont) {
    throw new Error(`asset bundle is missing an entry: ${JSON.stringify(manifest)}`);
  }
  return { manifest: manifest as AssetManifest, files };
}
