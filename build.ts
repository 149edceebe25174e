/**
 * The command line: build | preview | dev | new | move | check-links. Thin: puts this site's theme and content
 * together, parses flags and calls the engine. It runs bundled, through engine/launch.mjs
 * (what every npm script runs):
 *
 *   node engine/launch.mjs build   [--content DIR] [--out DIR] [--force] [--no-cache] [--verbose] [--new-published-routes]
 *   node engine/launch.mjs preview [--out DIR] [--port N] [--host H] [--allowed-host NAME]...
 *   node engine/launch.mjs dev     [--content DIR] [--port N] [--host H] [--allowed-host NAME]...
 *   node engine/launch.mjs new     "Título do artigo" [--content DIR]
 *   node engine/launch.mjs move    /old-route /new-route [--content DIR]
 *   node engine/launch.mjs check-links [--content DIR] [--warn-only] [--force] [--no-cache] [--allow-private]
 */
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { cacheRoot } from "./engine/incremental/cache-root.js";

// React's production build, unless told otherwise: set before the engine (and React) load
// (engine/index.ts does the same for any other site's build script). The engine is imported
// only by the commands that need it, so `build` can find out that nothing changed before
// loading any of it.
process.env.NODE_ENV ??= "production";

/** This site's theme: the module that exports it (bundled beside this file), and the folders its code lives in. */
const THEME_MODULE = fileURLToPath(new URL("./templates/theme.js", import.meta.url));
const THEME_FOLDERS = ["templates", "client"];
const USAGE = `usage: npm run build|preview|dev -- [--content DIR] [--out DIR] [--port N] [--host H] [--allowed-host NAME]...\n       npm run build -- [--force] [--no-cache] [--verbose] [--new-published-routes]\n       npm run new -- "Título do artigo"\n       npm run move -- /old-route /new-route\n       npm run check:links -- [--warn-only] [--force] [--allow-private]`;

/** check-links' exit code when no site answered at all (1 is dead links, 2 a wrong command line). */
const OFFLINE = 3;

/** Runs a command; resolves to the exit code (`preview` and `dev` run until stopped). */
export async function main(argv: string[], projectRoot: string): Promise<number> {
  try {
    return await run(argv, projectRoot);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EADDRINUSE") console.error("That port is already in use: pass another with --port N");
    else if (code === "ENOENT") console.error(`not found: ${(error as NodeJS.ErrnoException).path} (run npm run build first?)`);
    else console.error(error);
    return 1;
  }
}

async function run(argv: string[], projectRoot: string): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        content: { type: "string", default: "content" },
        out: { type: "string", default: "dist" },
        port: { type: "string", default: "4321" },
        host: { type: "string", default: "127.0.0.1" },
        // Repeatable: names the servers answer to besides localhost, 127.0.0.1, [::1] and --host.
        "allowed-host": { type: "string", multiple: true, default: [] },
        force: { type: "boolean", default: false },
        "no-cache": { type: "boolean", default: false },
        verbose: { type: "boolean", default: false },
        // build: start a new content/published-routes.txt where it is missing although the site was built before.
        "new-published-routes": { type: "boolean", default: false },
        "warn-only": { type: "boolean", default: false },
        // check-links: ask loopback, private and link-local addresses too (refused by default).
        "allow-private": { type: "boolean", default: false },
      },
    });
  } catch (error) {
    console.error(`${(error as Error).message}\n${USAGE}`);
    return 2;
  }
  const { values, positionals } = parsed;
  const command = positionals[0] ?? "build";
  const contentDir = path.resolve(values.content);
  const outDir = path.resolve(values.out);
  const allowedHosts = values["allowed-host"];
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    console.error(`--port must be a number from 0 to 65535; got '${values.port}'`);
    return 2;
  }

  switch (command) {
    case "build": {
      // Nothing changed since the last build: said before the engine and React are loaded.
      const { isUpToDate, projectInputs } = await import("./engine/incremental/fingerprint.js");
      const inputs = await projectInputs(projectRoot, contentDir, [...THEME_FOLDERS, "engine", "public"]);
      if (!values.force && (await isUpToDate(outDir, inputs))) {
        console.log(`${path.relative(process.cwd(), outDir) || outDir} is up to date (nothing changed since the last build; --force rebuilds)`);
        return 0;
      }
      const { buildProject } = await import("./engine/node.js");
      const { theme } = (await import(THEME_MODULE)) as typeof import("./templates/theme.js");
      const code = await buildProject({ projectRoot, theme, themeFolders: THEME_FOLDERS, contentDir, outDir, force: values.force, noCache: values["no-cache"], verbose: values.verbose, inputs, newPublishedRoutes: values["new-published-routes"] });
      if (code === 0) await updateEditorSchemas(projectRoot, contentDir, theme);
      return code;
    }
    case "preview": {
      const { serve } = await import("./engine/servers/static-server.js");
      if (!(await checkHosts(values.host, allowedHosts))) return 2;
      const { url } = await serve({ root: outDir, port, host: values.host, allowedHosts });
      console.log(`Serving ${path.relative(process.cwd(), outDir) || outDir} at ${url}  (Ctrl+C to stop)`);
      return new Promise<number>(() => {});
    }
    case "dev": {
      const { startDev } = await import("./engine/servers/dev-server.js");
      if (!(await checkHosts(values.host, allowedHosts))) return 2;
      // Watch mode never writes into the published folder: drafts and half-finished edits
      // stay in a folder of their own under the cache.
      const devOut = path.join(cacheRoot(projectRoot), "dev-site");
      const dev = await startDev({
        cacheDir: values["no-cache"] ? undefined : (await import("./engine/incremental/fingerprint.js")).cacheDirOf(projectRoot, contentDir, "dev"),
        projectRoot,
        contentDir,
        outDir: devOut,
        port,
        host: values.host,
        allowedHosts,
        themeModule: THEME_MODULE,
        themeFolders: THEME_FOLDERS,
      });
      const stop = () => void dev.close().then(() => process.exit(0));
      process.once("SIGINT", stop);
      process.once("SIGTERM", stop);
      return new Promise<number>(() => {});
    }
    case "new": {
      const { scaffoldArticle } = await import("./engine/tools/new-article.js");
      const { ContentError, formatError } = await import("./engine/lib/errors.js");
      const title = positionals.slice(1).join(" ");
      try {
        const file = await scaffoldArticle(contentDir, title);
        console.log(`Created ${path.relative(process.cwd(), file)} (a draft: npm run dev shows it, npm run build leaves it out)`);
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
      const [from, to] = positionals.slice(1);
      if (!from || !to) {
        console.error(`npm run move needs the article's route (or file) and its new route\n${USAGE}`);
        return 2;
      }
      const { moveArticle } = await import("./engine/tools/move-article.js");
      const { ContentError, formatError } = await import("./engine/lib/errors.js");
      const { theme } = (await import(THEME_MODULE)) as typeof import("./templates/theme.js");
      try {
        const moved = await moveArticle({ projectRoot, contentDir, theme, from, to });
        for (const line of moved.lines) console.log(line);
        console.log(`${moved.from} is now ${moved.to}; its old address redirects there. Check with npm run build, then commit.`);
        return 0;
      } catch (error) {
        if (!(error instanceof ContentError)) throw error;
        console.error(formatError(error));
        return 1;
      }
    }
    case "check-links": {
      // The site is built in memory (never into --out): the links are those it would publish.
      const { buildSite } = await import("./engine/pipeline/site-builder.js");
      const { theme } = (await import(THEME_MODULE)) as typeof import("./templates/theme.js");
      const { MemoryWriter } = await import("./engine/stages/write/writers.js");
      const { printErrors } = await import("./engine/lib/report.js");
      const writer = new MemoryWriter();
      const result = await buildSite({ contentDir, projectRoot, theme, writer, themeFolders: THEME_FOLDERS });
      if (!result.ok) {
        printErrors(result.errors);
        console.error("The site does not build: fix the errors above, then check its links.");
        return 1;
      }
      const { checkSiteLinks } = await import("./engine/tools/link-checker.js");
      console.log("Checking the external links of the site (needs a network connection)…");
      const report = await checkSiteLinks({
        pages: result.routes.map((r) => [r.path, writer.text(r.outFile)] as const),
        sourceDirs: [contentDir, ...THEME_FOLDERS.map((d) => path.join(projectRoot, d))],
        relativeTo: process.cwd(),
        options: {
          // --force asks every address again; --no-cache keeps nothing.
          cacheFile: values["no-cache"] ? undefined : path.join(projectRoot, "node_modules/.cache/check-links/answers.json"),
          readCache: !values.force,
          allowPrivate: values["allow-private"],
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
    default:
      console.error(`unknown command '${command}'\n${USAGE}`);
      return 2;
  }
}

/**
 * The JSON Schemas editors read for the content's YAML files (.vscode/schemas/), from the
 * theme: rewritten when the theme's schemas changed. Only for this project's own content/
 * (a build of another folder, a test's, leaves the project's editor settings alone); a
 * failure to write them is a warning, never a failed build.
 */
async function updateEditorSchemas(projectRoot: string, contentDir: string, theme: import("./engine/theme.js").Theme): Promise<void> {
  if (contentDir !== path.join(projectRoot, "content")) return;
  try {
    const { writeEditorSchemas } = await import("./engine/tools/editor-schemas.js");
    const { written, problems } = await writeEditorSchemas({ projectRoot, contentDir, model: theme, themeName: theme.name });
    for (const problem of problems) console.warn(`warning ${problem}`);
    if (written.length > 0) console.log(`Updated the editors' schemas of the YAML files: ${written.join(", ")}`);
  } catch (error) {
    console.warn(`warning: the editors' schemas (.vscode/schemas) could not be written: ${(error as Error).message}`);
  }
}

/** --host and --allowed-host must be host names; says which is not. */
async function checkHosts(host: string, allowedHosts: string[]): Promise<boolean> {
  const { allowedHostnames } = await import("./engine/servers/static-server.js");
  try {
    allowedHostnames(host, allowedHosts);
    return true;
  } catch (error) {
    console.error(`--host/--allowed-host: ${(error as Error).message}\n${USAGE}`);
    return false;
  }
}
