/**
 * The `cafe` command: build | dev | preview | new | check-links, in a site's folder, with
 * the site's config (cafe.config.ts). engine/launch.mjs finds the site and its config,
 * bundles them with the engine and calls `main`; a build script calls `runCommand` (node.ts).
 *
 * Every path it prints is relative to the site's folder: the command runs there (as
 * `git -C` does), after the paths given as flags were read from where they were typed.
 */
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseCommandLine, type CommandName } from "./flags.js";
import { CONFIG_FILES, resolveConfig, type SiteSetup } from "../config.js";
import { cacheRoot } from "../incremental/cache-root.js";
import { ContentError, formatError } from "../lib/errors.js";
import { codeError, shownFrom, siteCodePlace } from "../lib/code-location.js";
import { isUpToDate, projectInputs, type InputFingerprint } from "../incremental/fingerprint.js";
import { readFile } from "node:fs/promises";
import { existsSync } from "node:fs";
import { shownPath, writeFileAtomic } from "../lib/files.js";

/** What the launcher found and loaded: the site, its config, and where the engine is. */

/** check-links' exit code when no site answered at all (1 is dead links, 2 a wrong command line). */
const OFFLINE = 3;

export interface SiteLaunch {
  /** The site's folder. */
  root: string;
  /** The config file, relative to the root; undefined when there is none. */
  configFile?: string;
  /** Loads the config module (bundled by the launcher): only the commands that need the theme load it. */
  loadConfig?: () => Promise<unknown>;
  /** The site's own files the config imports, relative to the root (its default theme folders). */
  sources?: readonly string[];
  /** The launcher (engine/launch.mjs): the dev server starts its builder process through it. */
  launcher?: string;
  /** The engine's own folder (its sources). */
  engineDir?: string;
  /**
   * Where the config's folders are kept once read, beside the bundle of its code: `build`
   * finds out that nothing changed from them, before loading the theme (and React).
   */
  setupFile?: string;
  /** The modules a worker thread of the build loads (the bundle's worker.js and site.js). */
  workers?: import("../pipeline/threads.js").WorkerModules;
  /**
   * The version of the code: the bundle's name, made from everything esbuild read (the engine,
   * the theme, the bundled packages, the lock file). Read from the files when not given.
   */
  code?: string;
  /** The graph of the bundle's modules (modules.json beside it): the theme's parts are keyed by the modules they reach (incremental/code-keys.ts). */
  modulesFile?: string;
}

/** The engine's folder and launcher when the engine runs from its sources (a build script under tsx, the tests). */
const here = path.dirname(fileURLToPath(import.meta.url));

/** Runs a command line; resolves to the exit code (`preview` and `dev` run until stopped). */
export async function main(argv: readonly string[], launch: SiteLaunch): Promise<number> {
  const parsed = parseCommandLine(argv);
  if (parsed.kind === "help") {
    process.stdout.write(parsed.text);
    return 0;
  }
  if (parsed.kind === "error") {
    console.error(parsed.message);
    return 2;
  }
  try {
    return await run(parsed.command, parsed.values, parsed.positionals, launch);
  } catch (error) {
    if (error instanceof ContentError) {
      // A mistake of the theme's found while building (check-links builds the site too).
      console.error(formatError(shownFrom(launch.root, error)));
      return 1;
    }
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EADDRINUSE") console.error("That port is already in use: pass another with --port N");
    else if (code === "ENOENT") console.error(`not found: ${(error as NodeJS.ErrnoException).path} (run cafe build first?)`);
    else console.error(error);
    return 1;
  }
}

type Values = Record<string, string | boolean | string[] | undefined>;

async function run(command: CommandName, values: Values, positionals: string[], launch: SiteLaunch): Promise<number> {
  const { root } = launch;
  const engineDir = launch.engineDir ?? path.resolve(here, "..");
  const launcher = launch.launcher ?? path.join(engineDir, "launch.mjs");
  if (command === "init") return init(positionals, engineDir);
  if (!launch.configFile || !launch.loadConfig) {
    console.error(
      `There is no site here: no ${CONFIG_FILES[0]} (or ${CONFIG_FILES.slice(1).map((f) => path.extname(f)).join(", ")}) in ${root}${values.root === undefined ? " or above it" : ""}.\n` +
        `Run cafe in a site's folder, pass one with --root DIR, or start one here with: cafe init\n` +
        `(the engine's guide: ${docsPath(engineDir)})\n`,
    );
    return 2;
  }
  // Paths typed on the command line are read from where they were typed, before the command moves to the site.
  const typed = (name: string) => (typeof values[name] === "string" ? path.resolve(values[name] as string) : undefined);
  const contentFlag = typed("content");
  const outFlag = typed("out");
  process.chdir(root);
  const inputsOf = commandInputs(root);

  // React's production build, unless told otherwise: set before the config loads the theme (and React).
  process.env.NODE_ENV ??= "production";
  // Where `preview` and `start` serve: read (and refused when wrong) before any work.
  const serving = command === "preview" || command === "start" ? servingOf(values) : undefined;
  if (serving === null) return 2;
  if (serving && !(await checkHosts(serving.host, serving.allowedHosts))) return 2;
  if (command === "preview") {
    // Serving needs no theme, only the output folder: as the last command that read the config
    // with this code kept it (a build did), else from the config (which loads the theme).
    const setup = outFlag === undefined ? ((await readFolders(launch)) ?? (await loadSetup(launch))) : undefined;
    if (outFlag === undefined && !setup) return 1;
    return serveSite(root, outFlag ?? setup!.outDir, serving!);
  }

  // The editorial rules' findings are errors: asked for, or in continuous integration (CI=true, as CI services set it).
  const strict = values.strict === true || process.env.CI === "true";
  if ((command === "build" || command === "start") && !values.force && !strict) {
    // Nothing changed since the last build: said before the config loads the theme and React.
    const known = await readFolders(launch);
    const outDir = outFlag ?? known?.outDir;
    if (known && outDir && (await upToDate(root, contentFlag ?? known.contentDir, outDir, await inputsOf(contentFlag ?? known.contentDir, inputFoldersOf(root, known, engineDir))))) return serving ? serveSite(root, outDir, serving) : 0;
  }

  const setup = await loadSetup(launch);
  if (!setup) return 1;
  const contentDir = contentFlag ?? setup.contentDir;
  const ownContent = contentDir === setup.contentDir;
  const engineFolder = path.relative(root, engineDir);
  const { theme, themeFolders, publicDir } = setup;

  if (command !== "dev") {
    // The theme's own mistakes, before any work (dev shows them in the browser instead).
    const { checkTheme } = await import("../theme-check.js");
    const mistakes = checkTheme(theme, root);
    if (mistakes.length > 0) return themeFailed(mistakes);
  }

  switch (command) {
    case "build":
    case "start": {
      const outDir = outFlag ?? setup.outDir;
      const threads = threadsOf(values.threads);
      if (threads === null) return 2;
      const inputs = await inputsOf(contentDir, inputFoldersOf(root, setup, engineDir));
      if (!values.force && !strict && (await upToDate(root, contentDir, outDir, inputs))) return serving ? serveSite(root, outDir, serving) : 0;
      const { buildProject } = await import("../pipeline/project.js");
      // `start`: served as soon as every page is written and checked, while the social cards
      // are drawn; a card or the feed asked for meanwhile is answered once the build is published.
      let published!: (ok: boolean) => void;
      const done = new Promise<boolean>((resolve) => (published = resolve));
      let early: Promise<Served> | undefined;
      const code = await buildProject({
        projectRoot: root,
        theme,
        themeFolders,
        engineFolder,
        contentDir,
        outDir,
        publicDir,
        force: values.force === true,
        noCache: values["no-cache"] === true,
        verbose: values.verbose === true,
        inputs,
        newPublishedRoutes: values["new-published-routes"] === true,
        codeVersion: launch.code,
        modulesFile: launch.modulesFile,
        strict,
        workers: launch.workers,
        threads,
        onPagesWritten:
          serving &&
          ((site) => {
            early = startServing(root, outDir, serving, { ...site, done }, "; the social cards and the feed follow, once the build is done");
            early.catch(() => {});
          }),
      });
      published(code === 0);
      // A port that could not be taken is said once the build is over (the site is built all the same).
      const served = await early;
      if (code !== 0) {
        served?.server.close();
        return code;
      }
      if (ownContent) await updateEditorSchemas(root, contentDir, theme, { code: values["no-cache"] === true ? undefined : launch.code, verbose: values.verbose === true });
      // `start`: the site just built, served by this process (no second start of the command to load the code again).
      if (served) return new Promise<number>(() => {});
      return serving ? serveSite(root, outDir, serving) : code;
    }
    case "dev": {
      const port = portOf(values.port);
      if (port === undefined) return 2;
      const threads = threadsOf(values.threads);
      if (threads === null) return 2;
      const host = (values.host as string | undefined) ?? "127.0.0.1";
      const allowedHosts = (values["allowed-host"] as string[] | undefined) ?? [];
      if (!(await checkHosts(host, allowedHosts))) return 2;
      const { startDev } = await import("../servers/dev-server.js");
      const { cacheDirOf } = await import("../incremental/fingerprint.js");
      // Ctrl+C or SIGTERM from the start: the first build runs in the builder process, which
      // is stopped with the server (busy parsing, it would never notice that the server is gone).
      const stopping = new AbortController();
      let dev: Awaited<ReturnType<typeof startDev>> | undefined;
      const stop = () => {
        stopping.abort();
        void (dev?.close() ?? Promise.resolve()).then(() => process.exit(0));
      };
      process.once("SIGINT", stop);
      process.once("SIGTERM", stop);
      // Watch mode never writes into the published folder: drafts and half-finished edits
      // stay in a folder of their own under the cache.
      dev = await startDev({
        cacheDir: values["no-cache"] ? undefined : cacheDirOf(root, contentDir, "dev"),
        projectRoot: root,
        contentDir,
        publicDir,
        outDir: path.join(cacheRoot(root), "dev-site"),
        port,
        host,
        allowedHosts,
        themeModule: path.resolve(root, launch.configFile),
        themeFolders,
        engineDir,
        launcher,
        editorSchemas: ownContent,
        strict,
        threads,
        signal: stopping.signal,
      });
      return new Promise<number>(() => {});
    }
    case "new": {
      const { scaffoldArticle } = await import("../tools/new-article.js");
      try {
        const file = await scaffoldArticle(contentDir, positionals.join(" "), new Date(), theme.newArticle, theme.languages[0]);
        console.log(`Created ${shownPath(root, file)} (a draft: cafe dev shows it, cafe build leaves it out)`);
        return 0;
      } catch (error) {
        if (error instanceof ContentError) {
          console.error(formatError(error));
          return 1;
        }
        throw error;
      }
    }
    case "move": {
      const [from, to, ...extra] = positionals;
      if (!from || !to || extra.length > 0) {
        console.error("cafe move needs two things: the article's route (or its file) and its new route, e.g. cafe move /old-route /new-route (cafe move --help)");
        return 2;
      }
      const { moveArticle } = await import("../tools/move-article.js");
      try {
        const moved = await moveArticle({ projectRoot: root, contentDir, theme, from, to, publicDir, force: values.force === true });
        for (const line of moved.lines) console.log(line);
        console.log(`${moved.from} is now ${moved.to}; its old address redirects there. Check with cafe build, then commit.`);
        return 0;
      } catch (error) {
        if (!(error instanceof ContentError)) throw error;
        console.error(formatError(error));
        return 1;
      }
    }
    case "check-links": {
      // The site is built in memory (never into the output folder): the links are those it would publish.
      const { buildSite } = await import("../pipeline/site-builder.js");
      const { MemoryWriter } = await import("../stages/write/writers.js");
      const { printErrors } = await import("../lib/report.js");
      const writer = new MemoryWriter();
      const result = await buildSite({ contentDir, projectRoot: root, theme, writer, publicDir, themeFolders, engineDir });
      if (!result.ok) {
        printErrors(result.errors);
        console.error("The site does not build: fix the errors above, then check its links.");
        return 1;
      }
      const { checkSiteLinks } = await import("../tools/link-checker.js");
      console.log("Checking the external links of the site (needs a network connection)…");
      const report = await checkSiteLinks({
        pages: result.routes.map((r) => [r.path, writer.text(r.outFile)] as const),
        sourceDirs: [contentDir, ...themeFolders.map((d) => path.join(root, d))],
        relativeTo: root,
        options: {
          // --force asks every address again; --no-cache keeps nothing.
          cacheFile: values["no-cache"] ? undefined : path.join(root, "node_modules/.cache/check-links/answers.json"),
          readCache: !values.force,
          allowPrivate: values["allow-private"] === true,
        },
      });
      if (report.offline) {
        // Said first and alone: a list of every link as dead would be a list of nothing.
        console.error(report.summary);
        return OFFLINE;
      }
      for (const line of report.lines) console.log(line);
      console.log(report.summary);
      if (report.dead > 0 && !values["warn-only"]) {
        console.error("Dead links found: fix or remove them (--warn-only reports without failing).");
        return 1;
      }
      return 0;
    }
  }
}

/** The engine's guide, as a path the user can open: the README of the installed package. */
function docsPath(engineDir: string): string {
  return path.relative(process.cwd(), path.join(engineDir, "README.md")) || "README.md";
}

/** `cafe init [DIR]`: the starter site, and what to do next. */
async function init(positionals: string[], engineDir: string): Promise<number> {
  if (positionals.length > 1) {
    console.error(`cafe init takes one folder at most; got ${positionals.length}: ${positionals.join(" ")} (cafe init --help)`);
    return 2;
  }
  const { initSite } = await import("../tools/init-site.js");
  let report;
  try {
    report = await initSite(positionals[0] ?? ".", engineDir);
  } catch (error) {
    if (!(error instanceof ContentError)) throw error;
    console.error(formatError(error));
    return 1;
  }
  const where = path.relative(process.cwd(), report.dir);
  console.log(`Wrote a starter site into ${where || "this folder"}: ${report.written.join(", ")}`);
  if (report.packageJson !== "unchanged") console.log(`${report.packageJson === "created" ? "Created" : "Updated"} package.json: its npm scripts${report.added.length > 0 ? ` and the packages it needs (${report.added.join(", ")})` : ""}`);
  const steps = [where && `cd ${where}`, report.added.length > 0 && "npm install", "npx cafe dev"].filter(Boolean);
  console.log(`\nNext: ${steps.join(" && ")}   (then open the address it prints; README.md says what is where)`);
  return 0;
}

/** The config, checked and resolved; undefined (after printing why) when it is wrong. Its folders are kept for the next run's up-to-date check. */
async function loadSetup(launch: SiteLaunch): Promise<SiteSetup | undefined> {
  let exported;
  try {
    exported = await launch.loadConfig!();
  } catch (error) {
    // The config or its theme threw while loading: where, in the site's code, and what.
    const place = siteCodePlace((error as Error)?.stack);
    const problem = codeError(place, launch.root, {
      message: `the config could not be loaded: ${(error as Error)?.message ?? String(error)}`,
      hint: "fix the code at this line (the config and the theme it imports run when a command starts)",
      fallback: launch.configFile!,
    });
    console.error(formatError(problem));
    return undefined;
  }
  const setup = resolveConfig(exported, launch.root, launch.configFile!, launch.sources);
  if (setup instanceof ContentError) {
    console.error(formatError(setup));
    return undefined;
  }
  if (launch.setupFile) {
    const folders = JSON.stringify(foldersOf(setup));
    const kept = await readFile(launch.setupFile, "utf8").catch(() => undefined);
    if (kept !== folders) await writeFileAtomic(launch.setupFile, folders).catch(() => {});
  }
  return setup;
}

type Folders = Pick<SiteSetup, "contentDir" | "publicDir" | "outDir" | "themeFolders">;

/** A config's folders as kept beside its bundle: relative to the site's folder. */
function foldersOf(setup: SiteSetup): Record<string, unknown> {
  const rel = (dir: string) => path.relative(setup.root, dir);
  return { content: rel(setup.contentDir), public: rel(setup.publicDir), out: rel(setup.outDir), themeFolders: setup.themeFolders };
}

/** The folders the config gave the last time it was read with this code; undefined when not known. */
async function readFolders(launch: SiteLaunch): Promise<Folders | undefined> {
  if (!launch.setupFile) return undefined;
  try {
    const kept = JSON.parse(await readFile(launch.setupFile, "utf8")) as { content: string; public: string; out: string; themeFolders: string[] };
    const dir = (rel: string) => path.resolve(launch.root, rel);
    return { contentDir: dir(kept.content), publicDir: dir(kept.public), outDir: dir(kept.out), themeFolders: kept.themeFolders };
  } catch {
    return undefined;
  }
}

/** The folders, relative to the site's, whose files are the inputs of a build besides the content: the theme's, the engine's, public/. */
const inputFoldersOf = (root: string, folders: Pick<Folders, "themeFolders" | "publicDir">, engineDir: string) => [...folders.themeFolders, path.relative(root, engineDir), path.relative(root, folders.publicDir)];

/**
 * The inputs' fingerprint of a command (fingerprint.ts), made once for each content folder and
 * set of folders: the check before the config loads and the build after it would otherwise
 * each stat every input file (at 100,000 articles, a second of a one-article rebuild). The
 * first one made is the older: a file edited since makes the recorded fingerprint differ from
 * the next build's, which then builds again.
 */
function commandInputs(root: string): (contentDir: string, folders: readonly string[]) => Promise<InputFingerprint> {
  // One command's: a later command in the same process (a build script, a test) stats them again.
  const made = new Map<string, Promise<InputFingerprint>>();
  return (contentDir, folders) => {
    const key = JSON.stringify([contentDir, folders]);
    let inputs = made.get(key);
    if (!inputs) made.set(key, (inputs = projectInputs(root, contentDir, folders)));
    return inputs;
  };
}

/** True (and said) when `outDir` holds the build of exactly these inputs. */
async function upToDate(root: string, contentDir: string, outDir: string, inputs: InputFingerprint): Promise<boolean> {
  if (!(await isUpToDate(outDir, inputs.value))) return false;
  console.log(`${shownPath(root, outDir)} is up to date (nothing changed since the last build; --force rebuilds)`);
  return true;
}

async function themeFailed(mistakes: ContentError[]): Promise<number> {
  const { printErrors } = await import("../lib/report.js");
  printErrors(mistakes);
  console.error("The theme cannot build a site: fix it, then run the command again.");
  return 1;
}

/** `--threads N`: undefined when not given; null (said why) when it is not a whole number from 1 to 64. */
function threadsOf(value: unknown): number | undefined | null {
  if (typeof value !== "string") return undefined;
  const threads = Number(value);
  if (value.trim() !== "" && Number.isInteger(threads) && threads >= 1 && threads <= 64) return threads;
  console.error(`--threads must be a whole number from 1 to 64; got '${value}'`);
  return null;
}

interface Serving {
  port: number;
  host: string;
  allowedHosts: string[];
}

/** Where to serve (`--port`, `--host`, `--allowed-host`); null (said why) when the port is wrong. */
function servingOf(values: Values): Serving | null {
  const port = portOf(values.port);
  if (port === undefined) return null;
  return { port, host: (values.host as string | undefined) ?? "127.0.0.1", allowedHosts: (values["allowed-host"] as string[] | undefined) ?? [] };
}

/** Serves a built folder as a static host would, until stopped (`preview`, and `start` once its build is done). */
async function serveSite(root: string, outDir: string, serving: Serving): Promise<number> {
  await startServing(root, outDir, serving);
  return new Promise<number>(() => {});
}

type Served = Awaited<ReturnType<typeof import("../servers/static-server.js").serve>>;

/** Serves the output folder (or, `finishing`, a build's folder until it is published) and says where. */
async function startServing(root: string, outDir: string, { port, host, allowedHosts }: Serving, finishing?: import("../servers/static-server.js").Finishing, note = ""): Promise<Served> {
  const { serve } = await import("../servers/static-server.js");
  const served = await serve({ root: outDir, port, host, allowedHosts, finishing });
  console.log(`Serving ${shownPath(root, outDir)} at ${served.url}  (Ctrl+C to stop)${note}`);
  return served;
}

function portOf(value: unknown): number | undefined {
  const text = typeof value === "string" ? value : "4321";
  const port = Number(text);
  if (text.trim() !== "" && Number.isInteger(port) && port >= 0 && port <= 65535) return port;
  console.error(`--port must be a number from 0 to 65535; got '${text}'`);
  return undefined;
}

/**
 * The JSON Schemas editors read for the content's YAML files (.vscode/schemas/ of the site),
 * from the theme: rewritten when the theme's schemas changed. Only for the site's own
 * content folder (a build of another folder, a test's, leaves the editor settings alone);
 * a failure to write them is a warning, never a failed build.
 */
async function updateEditorSchemas(root: string, contentDir: string, theme: SiteSetup["theme"], { code, verbose }: { code?: string; verbose: boolean }): Promise<void> {
  try {
    // Made from the theme's schemas only: with the same code, and the files as the last build left them, there is nothing to write.
    const { schemasKept, schemasRecordFile, recordSchemas } = await import("../tools/editor-schemas-record.js");
    const recordFile = schemasRecordFile(cacheRoot(root));
    const key = code && JSON.stringify([code, root, path.relative(root, contentDir), existsSync(path.join(contentDir, "rules.yaml")), theme.name]);
    if (key && (await schemasKept(recordFile, key))) {
      if (verbose) console.log(`  ${"editor schemas".padEnd(16)} kept (the code and the files as the last build left them)`);
      return;
    }
    const [{ writeEditorSchemas }, { withSignalsHeld }] = await Promise.all([import("../tools/editor-schemas.js"), import("../lib/signals.js")]);
    // Files of the project (committed): Ctrl+C waits for them rather than leave a temporary file beside one.
    const { written, files, problems } = await withSignalsHeld(() => writeEditorSchemas({ projectRoot: root, contentDir, model: theme, themeName: theme.name }));
    for (const problem of problems) console.warn(`warning ${problem}`);
    if (verbose) console.log(`  ${"editor schemas".padEnd(16)} made from the theme's schemas, ${written.length} file${written.length === 1 ? "" : "s"} written`);
    if (written.length > 0) console.log(`Updated the editors' schemas of the YAML files: ${written.join(", ")}`);
    // A problem (a settings file that is not JSON) is said again by the next build: not recorded.
    if (key && problems.length === 0) await recordSchemas(recordFile, key, files).catch(() => {});
  } catch (error) {
    console.warn(`warning: the editors' schemas (.vscode/schemas) could not be written: ${(error as Error).message}`);
  }
}

/** --host and --allowed-host must be host names; says which is not. */
async function checkHosts(host: string, allowedHosts: string[]): Promise<boolean> {
  const { allowedHostnames } = await import("../servers/static-server.js");
  try {
    allowedHostnames(host, allowedHosts);
    return true;
  } catch (error) {
    console.error(`--host/--allowed-host: ${(error as Error).message}`);
    return false;
  }
}
