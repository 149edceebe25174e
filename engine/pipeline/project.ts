/**
 * A whole build of a project, the way `npm run build` does it: skip it when nothing changed,
 * open the persistent cache, write into the standby build folder published only when complete, leave the
 * last good site on any error or interruption, and print what the author needs to read.
 */
import path from "node:path";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { SiteBuilder, type BuildResult } from "./site-builder.js";
import { openSiteCache } from "./build-record.js";
import { siteCodeKeys } from "../incremental/code-keys.js";
import { cacheDirOf, codeVersion, isUpToDate, projectInputs, recordBuild, type InputFingerprint } from "../incremental/fingerprint.js";
import { FolderWriter } from "../stages/write/writers.js";
import { outputConflict } from "../stages/write/output-folder.js";
import { readPublishedRoutes } from "../stages/routes/published-routes.js";
import { RECORD_FILE } from "../lib/site-paths.js";
import { fileFailure, printErrors, printWarnings } from "../lib/report.js";
import { ContentError } from "../lib/errors.js";
import { shownFrom } from "../lib/code-location.js";
import { shownPath } from "../lib/files.js";
import { loadedPackages } from "../lib/packages.js";
import type { Theme } from "../theme.js";
import type { AssetSource } from "../stages/assets/assets.js";
import type { WorkerModules } from "./threads.js";

/** The engine's folder, when it runs from its sources (a build script under tsx; the command line says where it is). */
const ENGINE_DIR = path.resolve(fileURLToPath(new URL("..", import.meta.url)));

export interface ProjectBuildOptions {
  /** The project folder: `content/`, `public/`, the theme's folders and `package-lock.json` are in it. */
  projectRoot: string;
  theme: Theme;
  /** Folders (relative to the project root) that hold the theme's code: an edit there is a new version of the code. */
  themeFolders: readonly string[];
  /** Where the engine's sources are, relative to the project root (default: the folder this engine runs from): an edit there is a new version of the code. */
  engineFolder?: string;
  /** Default: `<projectRoot>/content`. */
  contentDir?: string;
  /** Default: `<projectRoot>/dist`. */
  outDir?: string;
  /** Default: `<projectRoot>/public`. */
  publicDir?: string;
  /** Build everything again, without reading the cache (it is still written). */
  force?: boolean;
  /** No persistent cache at all. */
  noCache?: boolean;
  /** Print how long each stage took. */
  verbose?: boolean;
  /** The version of the code the cache belongs to, when the caller knows it (the launcher's bundle); else read from the code's files. */
  codeVersion?: string;
  /** The graph of the bundle's modules (the launcher's modules.json): the theme's parts are keyed by the modules they reach (incremental/code-keys.ts). */
  modulesFile?: string;
  /** The inputs' fingerprint, when the caller computed it already (to check before loading the engine). */
  inputs?: InputFingerprint;
  /**
   * Start a new record of published addresses (`published-routes.txt`) where it is missing
   * although the output was built before (otherwise that stops the build: it was deleted).
   */
  newPublishedRoutes?: boolean;
  /** The modules a worker thread loads (the launcher's bundle); none: one thread. */
  workers?: WorkerModules;
  /** How many threads compute (`--threads`); default: by the site's size. */
  threads?: number;
  /**
   * What the site's editorial rules (content/rules.yaml) find stops the build, as errors:
   * `--strict`, or CI=true. A build that passed without it is not "up to date" for it.
   */
  strict?: boolean;
  /**
   * Told once every page is written and checked, before the social cards are drawn and the
   * feed written (`cafe start` serves from then on): the folder the build writes into and
   * which of its files are this build's, whole. The build is published once the cards are drawn.
   */
  onPagesWritten?: (site: BuildingSite) => void;
}

/** A build's folder before it is published: what `cafe start` serves while the cards are drawn. */
export interface BuildingSite {
  dir: string;
  /** Whether this build wrote `file` (relative to `dir`, `/` between folders), whole. */
  holds(file: string): boolean;
}

/** What `--verbose` says of where the assets came from. */
const ASSET_SOURCES: Record<AssetSource, string> = {
  kept: "kept from the last build",
  cached: "taken from the assets cache (esbuild not run)",
  bundled: "bundled by esbuild",
};

/** The inputs' fingerprint as the up-to-date check compares it: a strict build is not the same build. */
const strictInputs = (inputs: string, strict: boolean | undefined) => (strict ? `${inputs} strict` : inputs);

/** Builds the project and prints the outcome; resolves to the exit code (0 built or up to date, 1 content errors). */
export async function buildProject(options: ProjectBuildOptions): Promise<number> {
  const started = performance.now();
  const { projectRoot, theme } = options;
  const contentDir = options.contentDir ?? path.join(projectRoot, "content");
  const outDir = options.outDir ?? path.join(projectRoot, "dist");
  const shownOut = shownPath(projectRoot, outDir);
  const codeFolders = [...options.themeFolders, options.engineFolder ?? path.relative(projectRoot, ENGINE_DIR)];
  const publicDir = options.publicDir ?? path.join(projectRoot, "public");
  const inputFolders = [...codeFolders, path.relative(projectRoot, publicDir)];
  // An output that would replace the site, its content or its code is refused before anything is read or written.
  const conflict = outputConflict(outDir, { root: projectRoot, contentDir, publicDir, codeFolders }, shownOut);
  if (conflict) {
    console.error(`Build failed: ${conflict}.`);
    return 1;
  }
  const fingerprint = options.inputs ?? (await projectInputs(projectRoot, contentDir, inputFolders));
  const inputs = strictInputs(fingerprint.value, options.strict);
  if (!options.force && (await isUpToDate(outDir, inputs))) {
    console.log(`${shownOut} is up to date (nothing changed since the last build; --force rebuilds)`);
    return 0;
  }
  const code = await siteCodeKeys(options.modulesFile, theme.modules, async () => options.codeVersion ?? (await codeVersion(projectRoot, codeFolders)));
  for (const note of code.notes) console.warn(`warning: ${note}`);
  const cacheDir = cacheDirOf(projectRoot, contentDir, "build");
  const cache = options.noCache ? undefined : await openSiteCache(cacheDir, code.version, { read: !options.force });
  if (cache?.ignored) console.warn(`note: the build cache in ${shownPath(projectRoot, cacheDir)} was not used (${cache.ignored}): this build makes it again`);
  // No listener for Ctrl+C or SIGTERM (lib/signals.ts): one would wait while the thread parses or renders.
  // The default action ends the build at once; the last good site stays, and the next build puts right what this one left.
  const writer = new FolderWriter(outDir);
  try {
    await writer.begin();
  } catch (error) {
    // Another build writing the same folder, a folder that cannot be written: said in a line, no stack.
    await writer.abort();
    console.error(`Build failed: ${(error as Error).message}`);
    return 1;
  }
  // The record of published addresses keeps every published address answering. Missing where
  // this output was built before, it was deleted (with an article, say): a build would start a
  // new one from today's addresses and let the others go without a word. Only on purpose.
  const recordFile = path.join(contentDir, RECORD_FILE);
  if (writer.hadSite && !options.newPublishedRoutes && existsSync(contentDir) && !existsSync(recordFile)) {
    await writer.abort();
    const shown = shownPath(projectRoot, recordFile);
    console.error(
      `Build failed: ${shown} is missing, but ${shownOut} has been built before: that file records every address the site has published, so that none stops answering unnoticed. ` +
        `Restore it (git checkout -- ${shown}), or start a new record from this build's addresses on purpose: build with --new-published-routes (npm run build -- --new-published-routes). ${shownOut} was left as it was.`,
    );
    return 1;
  }
  // Emptied or cut short (`: > published-routes.txt`, a bad merge), it would let the addresses it lost go as a missing one would.
  const shortRecord = writer.hadSite && !options.newPublishedRoutes ? recordShortOf(recordFile, writer.publishedFiles) : undefined;
  if (shortRecord) {
    await writer.abort();
    const shown = shownPath(projectRoot, recordFile);
    console.error(
      `Build failed: ${shown} lists ${shortRecord.listed} address${shortRecord.listed === 1 ? "" : "es"}, but ${shownOut} publishes ${shortRecord.pages} pages; it leaves out ${shortRecord.missing.length} (${shortRecord.missing.slice(0, 3).join(", ")}${shortRecord.missing.length > 3 ? ", …" : ""}): that file records every address the site has published, so that none stops answering unnoticed, and it was emptied or cut short. ` +
        `Restore it (git checkout -- ${shown}), or start a new record from this build's addresses on purpose: build with --new-published-routes (npm run build -- --new-published-routes). ${shownOut} was left as it was.`,
    );
    return 1;
  }
  console.log(`Building ${shownOut} (Ctrl+C stops it and keeps the last good site)`);
  // Between the start and the stages: the inputs' fingerprint (a stat of every input), the code's keys, the cache's
  // store opened and read, the output's folders taken (at 4000 articles ~100 ms that no other line showed).
  const opened = performance.now() - started;
  let result: BuildResult;
  try {
    const { workers, threads } = options;
    const early = options.onPagesWritten;
    const onPagesWritten = early && (() => early({ dir: writer.folder, holds: (file: string) => writer.holds(file) }));
    const builder = new SiteBuilder({
      contentDir, projectRoot, theme, publicDir, cache, themeFolders: options.themeFolders, workers, threads, strict: options.strict,
      engineDir: path.resolve(projectRoot, codeFolders.at(-1)!), code: code.parts, codeVersion: options.noCache ? undefined : code.version, readAssets: !options.force, onPagesWritten,
      // The articles as the fingerprint stat'ed them, taken by the load (which does not stat them again).
      takeStated: fingerprint.takeStated,
    });
    try {
      // Its only run: nothing is kept for a next one.
      result = await builder.build(writer, { last: true });
    } finally {
      await builder.close();
    }
  } catch (error) {
    await writer.abort();
    // A mistake of the theme's found while rendering (a listing it does not have, a template that throws): an error like the content's.
    if (error instanceof ContentError) {
      printErrors([shownFrom(projectRoot, error)]);
      console.error(`Build failed; ${shownOut} was left as it was.`);
      return 1;
    }
    // A file that cannot be written (a read-only build folder, a full disk): one line, no stack.
    const failure = fileFailure(error);
    if (!failure) throw error;
    console.error(
      writer.published
        ? `${shownOut} is built and published, but then the build could not finish: ${failure.message}.`
        : `Build failed: ${failure.message}. ${shownOut} is still the last good site: make ${failure.folder ?? "the folder"} writable (or remove it) and build again.`,
    );
    return 1;
  }
  printWarnings(result.warnings);
  if (options.verbose) {
    // Before the build: Node's start, the command's, the site's code loaded (the process's clock starts with it).
    for (const [stage, ms] of [["start-up", started] as const, ["inputs, cache", opened] as const, ...(result.timings ?? [])]) console.log(`  ${stage.padEnd(16)} ${ms.toFixed(1).padStart(8)} ms`);
    // What this build made again and what it kept (facts, not times): each Markdown body, each page.
    if (result.bodies) console.log(`  ${"bodies".padEnd(16)} ${result.bodies.parsed} parsed, ${result.bodies.kept} kept`);
    if (result.rules) console.log(`  ${"editorial rules".padEnd(16)} ${result.rules.read} article${result.rules.read === 1 ? "" : "s"} read, ${result.rules.kept} kept`);
    console.log(`  ${"pages".padEnd(16)} ${result.rendered} rendered, ${result.routes.length - result.rendered} kept`);
    console.log(`  ${"threads".padEnd(16)} ${result.threads ?? 1}`);
    if (result.assets) console.log(`  ${"assets".padEnd(16)} ${ASSET_SOURCES[result.assets]}`);
    // The libraries loaded for this build's work (lib/packages.ts), and how long each took to load.
    const loaded = loadedPackages().map(({ name, ms }) => `${name} (${ms.toFixed(1)} ms)`);
    console.log(`  ${"loaded".padEnd(16)} ${loaded.length > 0 ? loaded.join(", ") : "none of the libraries loaded on demand"}`);
  }
  if (!result.ok) {
    printErrors(result.errors);
    console.error(`Build failed; ${shownOut} was left as it was.`);
    return 1;
  }
  const record = shownPath(projectRoot, recordFile);
  if (result.published?.length) {
    // New addresses joined the record of published addresses (commit it): the content changed.
    // The first ten: a site's first build publishes every address it has, thousands of them.
    const shown = result.published.slice(0, 10).join(", ");
    const rest = result.published.length - 10;
    console.log(`Recorded ${result.published.length} new published address${result.published.length === 1 ? "" : "es"} in ${record}: ${shown}${rest > 0 ? ` and ${rest} more (the file lists them all)` : ""}`);
  }
  if (result.retired?.length) console.log(`Took the retired page${result.retired.length === 1 ? "" : "s"} ${result.retired.join(", ")} out of ${record}`);
  try {
    // The record of published addresses changed (commit it): so did the content, by that file alone (`again`).
    // The output's fingerprint from what the writer left in it: the folder is not listed again.
    await recordBuild(outDir, result.published?.length || result.retired?.length ? strictInputs(fingerprint.again(), options.strict) : inputs, writer.publishedSite);
  } catch (error) {
    // Only the up-to-date check's note: the site is published; the next build just does not skip.
    const failure = fileFailure(error);
    if (!failure) throw error;
    console.warn(`warning: ${shownOut} is built, but ${failure.message}: the next build cannot tell that nothing changed, and builds again`);
  }
  const ms = Math.round(performance.now() - started);
  const unchanged = result.routes.length - result.rendered;
  console.log(`Built ${result.routes.length} pages into ${shownOut} in ${ms} ms${unchanged > 0 ? ` (${unchanged} unchanged, from the cache)` : ""}`);
  return 0;
}

/**
 * When the record of published addresses lists fewer than half as many addresses as the
 * published site has pages (its build record's `.html` files, the 404 aside), it was emptied
 * or cut short: how many pages, how many listed, and the pages it leaves out. Undefined when
 * it is long enough (another content folder built into the same output is not judged here),
 * missing (said apart) or the published site's files are not known.
 */
function recordShortOf(recordFile: string, published: readonly string[] | undefined): { pages: number; listed: number; missing: string[] } | undefined {
  if (!published || !existsSync(recordFile)) return undefined;
  const pages = published.filter((f) => f.endsWith(".html") && f !== "404.html").map((f) => (f === "index.html" ? "/" : `/${f.slice(0, -".html".length)}`));
  const listed = new Set(readPublishedRoutes(recordFile).routes.map((r) => r.route));
  if (pages.length === 0 || listed.size * 2 >= pages.length) return undefined;
  return { pages: pages.length, listed: listed.size, missing: pages.filter((route) => !listed.has(route)).sort() };
}
