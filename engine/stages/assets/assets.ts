/**
 * Stage 7 — assets: the theme's scripts and stylesheets through esbuild with hashed file
 * names, its fonts cut to the letters the site shows, and its inline script. Returns the
 * files to write and the manifest templates read (`assetStage`).
 */
import path from "node:path";
import { readFile } from "node:fs/promises";
import { cacheKey, MediaCache } from "../../incremental/media-cache.js";
import { builtinModules, createRequire } from "node:module";
import { readFileSync } from "node:fs";
import type { BuildFailure, Metafile, Plugin } from "esbuild";
import { AssetCache, fileState } from "./asset-cache.js";
import { ContentError, staged, type ContentWarning, type Staged } from "../../lib/errors.js";
import { codeError } from "../../lib/code-location.js";
import { hashOf } from "../../lib/hash.js";
import { loadPackage } from "../../lib/packages.js";
import { fontCutter } from "./font-cut.js";
import type { AssetManifest, Theme, ThemeFont } from "../../theme.js";

export interface BuiltAssets {
  manifest: AssetManifest;
  /** Output path (relative to the site root) → contents. */
  files: Map<string, Uint8Array>;
  /** Every file esbuild read for them, relative to the site root, with its state (`sourceStates`). */
  inputs: [file: string, state: string][];
  /** esbuild's account of the bundles (what each source imported: the cache resolves it again). */
  metafiles: Metafile[];
  /** The entry points as esbuild was given them (the theme's, the islands' runtime, the inline script). */
  entries: string[];
}

/**
 * The state of each source file the assets were bundled from: the hash of its bytes, or, for
 * a package's file (rewritten only when it is installed again), its size and time. An absent
 * file's state is "" (asset-cache.ts, `fileState`).
 */
function sourceStates(projectRoot: string, files: readonly string[]): Promise<[file: string, state: string][]> {
  return Promise.all(files.map(async (file): Promise<[string, string]> => [file, await fileState(projectRoot, file)]));
}

export interface AssetOptions {
  /** The project folder the theme's asset paths are relative to. */
  projectRoot: string;
  theme: Theme;
  /** The validated site settings (fonts are cut to the text they give). */
  site: unknown;
  minify?: boolean;
  /** The engine's folder: the islands' runtime and hydration are bundled from its `client/`. */
  engineDir: string;
}

/**
 * A font cut to `text`, as WOFF2: a brand face shown in a few letters shrinks from ~25 KB to
 * ~1.5 KB. Cached on disk by font and text: starting the subsetter (harfbuzz, WebAssembly)
 * costs more than a small site's pages.
 */
async function cutFont(projectRoot: string, font: ThemeFont, site: unknown, cutter: ReturnType<typeof fontCutter>): Promise<Uint8Array> {
  const require = createRequire(path.join(projectRoot, "package.json"));
  const source = await readFile(require.resolve(font.source));
  const text = font.text(site);
  if (!text) return source;
  // In the same content-addressed cache as images and cards (media-cache.ts).
  const cache = new MediaCache<Record<string, never>>(projectRoot, "fonts");
  const key = cacheKey(["font-v1", source, text]);
  const hit = (await cache.get(key))?.files.get("font.woff2");
  if (hit) return hit;
  // Loaded only when a font is cut (lib/packages.ts), on a thread of its own: its WebAssembly is the biggest code a build loads.
  const subset = await cutter.cut(source, text);
  await cache.put(key, { meta: {}, files: new Map([["font.woff2", subset]]) });
  return subset;
}

/** The plugins the bundle is made with: the islands' entries (the engine writes them) and the theme's fonts, cut to the site's text. */
function bundlePlugins({ projectRoot, theme, site, engineDir }: AssetOptions): Plugin[] {
  const fonts = new Map<string, ThemeFont>((theme.assets.fonts ?? []).map((f) => [f.name, f]));
  const cutter = fontCutter();
  return [
    islandEntries(theme, projectRoot, engineDir).plugin,
    {
      name: "theme-fonts",
      setup(b) {
        b.onResolve({ filter: /^font:/ }, ({ path: name }) => ({ path: `${name.slice(5)}.woff2`, namespace: "theme-font" }));
        b.onLoad({ filter: /.*/, namespace: "theme-font" }, async ({ path: file }) => {
          const font = fonts.get(file.replace(/\.woff2$/, ""));
          if (!font) return { errors: [{ text: `the theme declares no font '${file}'` }] };
          return { contents: await cutFont(projectRoot, font, site, cutter), loader: "file" };
        });
      },
    },
  ];
}

/** Bundles the theme's entries into /assets with content hashes. */
export async function buildAssets(options: AssetOptions): Promise<BuiltAssets> {
  const { projectRoot, theme, minify = true, engineDir } = options;
  const outdir = path.join(projectRoot, "assets-out");
  // Loaded only when the assets are bundled (lib/packages.ts), not by a build that takes them from the last one.
  const { build } = await loadPackage("esbuild", () => import("esbuild"));
  // The inline script runs before first paint: its own tiny bundle, no React.
  const inline = theme.assets.inline
    ? build({
        absWorkingDir: projectRoot,
        entryPoints: [theme.assets.inline],
        bundle: true,
        format: "iife",
        target: ["es2017"],
        minify: true,
        write: false,
        metafile: true,
        legalComments: "none",
        logLevel: "silent",
      })
    : undefined;
  const islands = islandEntries(theme, projectRoot, engineDir);
  const result = await build({
    absWorkingDir: projectRoot,
    entryPoints: { ...theme.assets.entries, ...islands.entries },
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
    plugins: bundlePlugins(options),
  });

  const files = new Map<string, Uint8Array>();
  const manifest: AssetManifest = { entries: {}, fonts: {}, inlineScript: "" };
  for (const [output, meta] of Object.entries(result.metafile.outputs)) {
    const file = result.outputFiles.find((f) => f.path === path.join(projectRoot, output));
    if (!file) continue;
    const rel = `assets/${path.relative(outdir, file.path).split(path.sep).join("/")}`;
    files.set(rel, file.contents);
    // An entry may be written relative to the site's folder or absolute; esbuild names it relative.
    const entry = meta.entryPoint && Object.entries(theme.assets.entries).find(([, source]) => path.resolve(projectRoot, source) === path.resolve(projectRoot, meta.entryPoint!));
    if (entry) manifest.entries[entry[0]] = `/${rel}`;
    if (meta.entryPoint === RUNTIME) manifest.islandRuntime = `/${rel}`;
    for (const input of Object.keys(meta.inputs)) {
      const font = /^theme-font:(.+)\.woff2$/.exec(input)?.[1];
      if (font) manifest.fonts[font] = `/${rel}`;
    }
  }
  const inlined = await inline;
  if (inlined) manifest.inlineScript = inlined.outputFiles[0]!.text.trim();
  // The sources read (the fonts' are named by the plugin's namespace: their key is their text).
  const read = new Set([...Object.keys(result.metafile.inputs), ...Object.keys(inlined?.metafile.inputs ?? {})].filter((input) => !input.includes(":")));
  for (const name of Object.keys(theme.assets.entries)) {
    if (!manifest.entries[name]) throw new Error(`the asset bundle has no output for the entry '${name}'`);
  }
  return {
    manifest,
    files,
    inputs: await sourceStates(projectRoot, [...read].sort()),
    metafiles: inlined ? [result.metafile, inlined.metafile] : [result.metafile],
    entries: [...Object.values(theme.assets.entries), ...Object.values(islands.entries), ...(theme.assets.inline ? [theme.assets.inline] : [])],
  };
}

const ISLAND = "cafe-island:";
/** The runtime's entry, which lists the chunks. */
const RUNTIME = `${ISLAND}\0runtime`;

/**
 * The theme's islands for esbuild: the entry `islands`, the engine's runtime (client/islands.ts)
 * started with a dynamic import of each island's chunk, and each chunk's code, written here:
 * the island's component, imported from its module, hydrated by client/hydrate.ts with
 * React as the site resolves it. Each chunk is its own file (`chunks/<name>-<hash>.js`),
 * loaded when its island wakes; shared code (React, a store two islands use) goes to chunks
 * of its own, loaded once.
 */
function islandEntries(theme: Theme, projectRoot: string, engineDir: string): { entries: Record<string, string>; plugin: Plugin } {
  const byName = new Map((theme.assets.islands ?? []).map((island) => [island.island.name, island.island]));
  const plugin: Plugin = {
    name: "cafe-islands",
    setup(b) {
      b.onResolve({ filter: /^cafe-island:/ }, ({ path: entry }) => ({ path: entry.slice(ISLAND.length), namespace: "cafe-island" }));
      b.onLoad({ filter: /.*/, namespace: "cafe-island" }, ({ path: name }) => {
        if (`${ISLAND}${name}` === RUNTIME) {
          const chunks = [...byName.keys()].map((island) => `  ${JSON.stringify(island)}: () => import(${JSON.stringify(`${ISLAND}${island}`)}),`);
          return {
            contents: [`import { startIslands } from ${JSON.stringify(path.join(engineDir, "client/islands.ts"))};`, `startIslands(document, {`, ...chunks, `});`].join("\n"),
            resolveDir: projectRoot,
            loader: "js",
          };
        }
        const island = byName.get(name)!;
        const imported = island.export && island.export !== "default" ? `{ ${island.export} as Component }` : "Component";
        return {
          contents: [
            `import * as React from "react";`,
            `import { hydrateRoot } from "react-dom/client";`,
            `import { hydrator } from ${JSON.stringify(path.join(engineDir, "client/hydrate.ts"))};`,
            `import ${imported} from ${JSON.stringify(path.resolve(projectRoot, island.module))};`,
            `export const hydrate = hydrator(Component, React, hydrateRoot);`,
          ].join("\n"),
          resolveDir: projectRoot,
          loader: "js",
        };
      });
    },
  };
  return { entries: byName.size > 0 ? { islands: RUNTIME } : {}, plugin };
}

/** Islands declared so that they cannot have a chunk each: a name that is no file name, two of one name, one named after an entry. */
function islandMistakes(theme: Theme, projectRoot: string): ContentError[] {
  const seen = new Set<string>();
  return (theme.assets.islands ?? []).flatMap(({ island }) => {
    const at = (message: string, hint: string) => [codeError(island.place, projectRoot, { message, hint, fallback: "the theme" })];
    if (!/^[a-z0-9]+(-[a-z0-9]+)*$/.test(island.name)) return at(`the island name '${island.name}' is not lowercase words joined by hyphens`, "name it like `share` or `language-switch`: its chunk's file is named after it");
    if (seen.has(island.name)) return at(`two islands are named '${island.name}'`, "give each island of `assets.islands` a name of its own");
    seen.add(island.name);
    return [];
  });
}

/**
 * What to do about an error of the theme's code for the browser: a package it imports that is
 * not installed, a module of Node's (an island's module runs in the browser), anything else.
 */
function unresolvedHint(text: string): string {
  const name = /^Could not resolve "((?:@[^/"]+\/)?[^./"][^/"]*)/.exec(text)?.[1];
  if (!name) return "fix the theme's script or stylesheet named here";
  if (name.startsWith("node:") || builtinModules.includes(name)) {
    return `this code runs in the browser, which has no \`${name.replace(/^node:/, "")}\` module: read what it needs in the template, and hand it to the island as props`;
  }
  return `install it in the site's folder: npm install ${name}`;
}

/** esbuild's errors (a syntax error in a script or stylesheet of the theme) as content errors with their place. */
export function assetErrors(error: unknown, projectRoot: string, theme?: Theme): ContentError[] | undefined {
  const failure = error as Partial<BuildFailure>;
  if (!Array.isArray(failure.errors) || failure.errors.length === 0) return undefined;
  const reported = new Set<string>();
  return failure.errors.flatMap((e) => {
    const file = e.location?.file;
    // The entry the engine writes for an island: the error is its declaration's (its module, its export, React).
    if (file?.startsWith(ISLAND)) {
      const name = file.slice(ISLAND.length);
      const island = theme?.assets.islands?.find((i) => i.island.name === name)?.island;
      const react = /"(react|react-dom)[^"]*"/.exec(e.text);
      const message = `the island '${name}' cannot be bundled: ${e.text}`;
      if (reported.has(message)) return [];
      reported.add(message);
      return [
        codeError(island?.place, projectRoot, {
          message,
          hint: react
            ? `an island is hydrated with the site's own React: install it in the site's folder (npm install react react-dom)`
            : `check \`module: "${island?.module}"\` (a file from the site's folder) and \`export: "${island?.export ?? "default"}"\` (the name that file exports the component under)`,
          fallback: "the theme",
        }),
      ];
    }
    let source: string | undefined;
    try {
      source = file ? readFileSync(path.resolve(projectRoot, file), "utf8") : undefined;
    } catch {
      source = undefined;
    }
    return [new ContentError({
      file: file ? path.relative(projectRoot, path.resolve(projectRoot, file)) : "assets",
      line: e.location?.line,
      column: e.location ? e.location.column + 1 : undefined,
      source,
      message: e.text,
      hint: unresolvedHint(e.text),
    })];
  });
}

/** A build's assets: their key (the theme's entries and fonts' text), the state of the sources they were bundled from, manifest and file names. */
export interface AssetRecord {
  key: string;
  /** Each source file esbuild read, with its state: the assets are bundled again when one changed (a stylesheet, an island). */
  inputs?: [file: string, state: string][];
  manifest: AssetManifest;
  files: string[];
}

export interface AssetStageInput extends AssetOptions {
  /** The assets of the last build, taken as they are when their key is the same. */
  previous?: AssetRecord;
  /** Bundle again even when the key is the same (watch mode: a file of the code changed). */
  force?: boolean;
  /** The sources are known to be as the last assets found them (watch mode, after article files only): not read again. */
  sourcesKnown?: boolean;
  /** Takes a file of the last build into this one; false when it cannot. */
  reuse(file: string): Promise<boolean>;
  /**
   * The content-addressed cache of bundles (asset-cache.ts), for a build that knows the
   * version of its code (`code.version`): none, every bundle is made by esbuild. `read: false`
   * (`--force`) stores the bundle without looking for one.
   */
  cache?: { codeVersion: string; read: boolean };
}

/** Where a build's assets came from: the last build's output, the content-addressed cache, or esbuild. */
export type AssetSource = "kept" | "cached" | "bundled";

/** What the assets stage gives: the assets' record, the files to write (none when kept), and where they came from. */
export interface AssetStageOutput {
  record: AssetRecord;
  files: Map<string, Uint8Array>;
  source: AssetSource;
}

/**
 * Stage 7 — the assets, taken from the last build when the code and the fonts' text are the
 * same, else from the content-addressed cache when everything they are made from is as it
 * was, otherwise bundled. Returns their record and the files to write (none when kept), where
 * they came from, or the errors esbuild found in the theme's code.
 */
export async function assetStage(input: AssetStageInput): Promise<Staged<AssetStageOutput | undefined>> {
  const { projectRoot, theme, site, previous, force, reuse } = input;
  const { entries, inline } = theme.assets;
  const key = hashOf(JSON.stringify([entries, inline ?? null, (theme.assets.fonts ?? []).map((f) => [f.name, f.source, f.text(site) ?? null])]));
  if (!force && previous?.key === key && previous.files.length > 0 && previous.inputs && (input.sourcesKnown || (await sameSources(projectRoot, previous.inputs)))) {
    let all = true;
    for (const file of previous.files) all &&= await reuse(file);
    if (all) return staged({ record: previous, files: new Map(), source: "kept" });
  }
  const misdeclared = islandMistakes(theme, projectRoot);
  if (misdeclared.length > 0) return staged(undefined, misdeclared);
  const options: AssetOptions = { projectRoot, theme, site, minify: input.minify, engineDir: input.engineDir };
  const cache = input.cache && (await assetCache(options, input.cache.codeVersion));
  const notes: ContentWarning[] = [];
  const cached = input.cache?.read ? await cache?.take(notes) : undefined;
  if (cached) return staged({ record: { key, inputs: cached.inputs, manifest: cached.manifest, files: [...cached.files.keys()] }, files: cached.files, source: "cached" }, [], notes);
  try {
    const built = await buildAssets(options);
    await cache?.keep(built);
    return staged({ record: { key, inputs: built.inputs, manifest: built.manifest, files: [...built.files.keys()] }, files: built.files, source: "bundled" }, [], notes);
  } catch (error) {
    const errors = assetErrors(error, projectRoot, theme);
    if (!errors) throw error;
    return staged(undefined, errors, notes);
  }
}

/**
 * The cache of this theme's bundles for code of this version: keyed also by esbuild's version
 * and every option the bundle is made with (the engine's folder relative to the site's, so a
 * copy of the site in another folder finds them too).
 */
async function assetCache(options: AssetOptions, codeVersion: string): Promise<AssetCache> {
  const { projectRoot, theme, site, minify = true, engineDir } = options;
  const { version } = await loadPackage("esbuild", () => import("esbuild"));
  const { entries, inline, fonts = [], islands = [] } = theme.assets;
  const recipe = {
    entries,
    inline: inline ?? null,
    fonts: fonts.map((f) => [f.name, f.source, f.text(site) ?? null]),
    islands: islands.map(({ island }) => [island.name, island.module, island.export ?? null]),
    minify,
    engine: path.relative(projectRoot, engineDir).split(path.sep).join("/"),
  };
  return new AssetCache(projectRoot, { codeVersion, esbuild: version, options: recipe }, bundlePlugins(options));
}

/** True when every source the last assets were bundled from is as it was. */
async function sameSources(projectRoot: string, inputs: readonly [string, string][]): Promise<boolean> {
  const now = await sourceStates(projectRoot, inputs.map(([file]) => file));
  return now.every(([, state], i) => state !== "" && state === inputs[i]![1]);
}
