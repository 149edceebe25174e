/**
 * The command line: build | preview | dev | new. Thin: puts this site's theme and content
 * together, parses flags and calls the engine.
 *
 *   tsx build.ts build   [--content DIR] [--out DIR] [--force]
 *   tsx build.ts preview [--out DIR] [--port N] [--host H] [--allowed-host NAME]...
 *   tsx build.ts dev     [--content DIR] [--port N] [--host H] [--allowed-host NAME]...
 *   tsx build.ts new     "Título do artigo" [--content DIR]
 */
import { createHash } from "node:crypto";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { cacheRoot } from "./engine/cache-root.js";

// React's production build, unless told otherwise: set before the engine (and React) load.
// The engine is imported only by the commands that need it, so `build` can find out that
// nothing changed before loading any of it.
process.env.NODE_ENV ??= "production";

const projectRoot = path.dirname(fileURLToPath(import.meta.url));
/** This site's theme: the module that exports it, and the folders its code lives in. */
const THEME_MODULE = path.join(projectRoot, "templates/theme.tsx");
const THEME_FOLDERS = ["templates", "client"];
const USAGE = `usage: npm run build|preview|dev -- [--content DIR] [--out DIR] [--port N] [--host H] [--allowed-host NAME]...\n       npm run new -- "Título do artigo"`;

async function main(argv: string[]): Promise<number> {
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
      const started = performance.now();
      const { inputFingerprint, isUpToDate, recordBuild } = await import("./engine/fingerprint.js");
      const inputs = await inputFingerprint(projectRoot, contentDir, [...THEME_FOLDERS, "engine", "public"], JSON.stringify({ NODE_ENV: process.env.NODE_ENV }));
      if (!values.force && (await isUpToDate(outDir, inputs))) {
        console.log(`${path.relative(process.cwd(), outDir) || outDir} is up to date (nothing changed since the last build; --force rebuilds)`);
        return 0;
      }
      const { buildSite } = await import("./engine/build.js");
      const { theme } = (await import(THEME_MODULE)) as typeof import("./templates/theme.js");
      const { FolderWriter } = await import("./engine/output.js");
      const cache = await openCache(contentDir, "build", { read: !values.force, use: !values["no-cache"] });
      const { printErrors, printWarnings } = await import("./engine/report.js");
      const writer = new FolderWriter(outDir);
      // An interrupted build throws its half-written folder away; the last good site stays.
      // Every repeat of the signal is caught too (tsx relays it), so none cuts the clean-up short.
      const interrupted = () => void writer.abort().then(() => process.exit(130));
      process.on("SIGINT", interrupted);
      process.on("SIGTERM", interrupted);
      await writer.begin();
      console.log(`Building ${path.relative(process.cwd(), outDir) || outDir} (Ctrl+C stops it and keeps the last good site)`);
      const result = await buildSite({ contentDir, projectRoot, theme, writer, cache });
      printWarnings(result.warnings);
      if (!result.ok) {
        printErrors(result.errors);
        console.error(`Build failed; ${path.relative(process.cwd(), outDir) || outDir} was left as it was.`);
        return 1;
      }
      await recordBuild(outDir, inputs);
      const ms = Math.round(performance.now() - started);
      const unchanged = result.routes.length - result.rendered;
      console.log(
        `Built ${result.routes.length} pages into ${path.relative(process.cwd(), outDir) || outDir} in ${ms} ms${unchanged > 0 ? ` (${unchanged} unchanged, from the cache)` : ""}`,
      );
      return 0;
    }
    case "preview": {
      const { serve } = await import("./engine/serve.js");
      if (!(await checkHosts(values.host, allowedHosts))) return 2;
      const { url } = await serve({ root: outDir, port, host: values.host, allowedHosts });
      console.log(`Serving ${path.relative(process.cwd(), outDir) || outDir} at ${url}  (Ctrl+C to stop)`);
      return new Promise<number>(() => {});
    }
    case "dev": {
      const { startDev } = await import("./engine/dev.js");
      if (!(await checkHosts(values.host, allowedHosts))) return 2;
      // Watch mode never writes into the published folder: drafts and half-finished edits
      // stay in a folder of their own under the cache.
      const devOut = path.join(cacheRoot(projectRoot), "dev-site");
      const dev = await startDev({
        cacheDir: values["no-cache"] ? undefined : cacheDirOf(contentDir, "dev"),
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
      const { scaffoldArticle } = await import("./engine/scaffold.js");
      const { ContentError, formatError } = await import("./engine/errors.js");
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
    default:
      console.error(`unknown command '${command}'\n${USAGE}`);
      return 2;
  }
}

/** The cache of one content folder, for `build` or for `dev` (which includes drafts). */
function cacheDirOf(contentDir: string, mode: "build" | "dev"): string {
  const site = createHash("sha1").update(contentDir).digest("hex").slice(0, 12);
  return path.join(cacheRoot(projectRoot), `${site}-${mode}`);
}

/** Opens the persistent cache for this version of the code (`--force` starts it empty, `--no-cache` uses none). */
async function openCache(contentDir: string, mode: "build" | "dev", { read, use }: { read: boolean; use: boolean }) {
  if (!use) return undefined;
  const { BuildCache } = await import("./engine/cache.js");
  const { codeVersion } = await import("./engine/fingerprint.js");
  return BuildCache.open(cacheDirOf(contentDir, mode), await codeVersion(projectRoot, [...THEME_FOLDERS, "engine"]), { read });
}

/** --host and --allowed-host must be host names; says which is not. */
async function checkHosts(host: string, allowedHosts: string[]): Promise<boolean> {
  const { allowedHostnames } = await import("./engine/serve.js");
  try {
    allowedHostnames(host, allowedHosts);
    return true;
  } catch (error) {
    console.error(`--host/--allowed-host: ${(error as Error).message}\n${USAGE}`);
    return false;
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EADDRINUSE") console.error("That port is already in use: pass another with --port N");
    else if (code === "ENOENT") console.error(`not found: ${(error as NodeJS.ErrnoException).path} (run npm run build first?)`);
    else console.error(error);
    process.exit(1);
  },
);
