/**
 * Watch mode: a builder process (engine/servers/dev-builder.ts) keeps the site built in memory and
 * rebuilds only what an edit affects; this process serves the output, pushes reloads and
 * errors to open pages over server-sent events, and never dies on a content error.
 */
import { fork, type ChildProcess } from "node:child_process";
import type http from "node:http";
import path from "node:path";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { isForeignOrigin, refuse, serve } from "./static-server.js";
import { sharePreviewPage, type BuiltRoute } from "./share-preview.js";
import { watchFolders } from "./watch.js";
import { wordsFor } from "../lib/language.js";
import {
  changedRoutes,
  crashReply,
  reportCrash,
  type BuildReply,
  type BuilderReply,
  type BuildRequest,
  type BuilderRequest,
  type BuilderSetup,
  type ReportedError,
  type ReportedWarning,
} from "./dev-protocol.js";

export interface DevOptions {
  projectRoot: string;
  contentDir: string;
  /** Files copied into the site as they are (default: public/ of the project). */
  publicDir?: string;
  outDir: string;
  port: number;
  host: string;
  /** The persistent cache of watch mode (none: every start renders every page). */
  cacheDir?: string;
  /** The module that exports the site's config (`export default defineConfig(…)`) or its theme (`export const theme`); an edit to it restarts the builder. */
  themeModule: string;
  /** Folders of the theme's code, relative to the project root: an edit there restarts the builder. */
  themeFolders: string[];
  /** The engine's folder (default: the one this module is in): an edit there restarts the builder. */
  engineDir?: string;
  /** The launcher the builder process runs through (default: launch.mjs of the engine's folder). */
  launcher?: string;
  /** Keep the editors' schemas of the content (.vscode/schemas/) current: for the site's own content only. */
  editorSchemas?: boolean;
  /** What the site's editorial rules find is an error (`--strict`, CI), shown in the overlay, not a warning. */
  strict?: boolean;
  /** How many threads compute the entries (`--threads`); by default as a build decides. The pool lives as long as the builder: every save uses it. */
  threads?: number;
  /** Names also accepted in the Host header (`--allowed-host`); see engine/servers/static-server.ts. */
  allowedHosts?: readonly string[];
  /** Print to the terminal (tests silence it). */
  log?: (line: string) => void;
  /**
   * Stops the builder process when it aborts, even before the first build has finished (the
   * command line's Ctrl+C): a builder busy parsing never reads that its server is gone.
   */
  signal?: AbortSignal;
}

/** The engine's sources (the watch mode restarts the builder when one changes) and its launcher. */
const engineDir = (options: DevOptions) => path.resolve(options.engineDir ?? fileURLToPath(new URL("..", import.meta.url)));

export interface DevServer {
  url: string;
  close(): Promise<void>;
}

/** The share preview's address on the dev server (engine/servers/share-preview.ts); no site has it. */
export const SHARE_PREVIEW = "/__cafe/share";

/** Bundles the dev client (live reload and overlay) once per session. */
async function devClient(options: DevOptions): Promise<string> {
  const result = await build({
    entryPoints: [path.join(engineDir(options), "servers/dev-client.ts")],
    bundle: true,
    format: "esm",
    write: false,
    minify: true,
    logLevel: "silent",
  });
  return result.outputFiles[0]!.text;
}

export async function startDev(options: DevOptions): Promise<DevServer> {
  const log = options.log ?? ((line: string) => console.log(line));
  /** The open pages' event streams, each with the route of its page (the dev client says it: `?page=`). */
  const clients = new Map<http.ServerResponse, string | undefined>();
  /** The routes open in a browser: rendered first by a rebuild, and reloaded as soon as they are written. */
  const openRoutes = () => [...new Set([...clients.values()].filter((route): route is string => route !== undefined))].slice(0, 20);
  /** The routes a rebuild already reloaded while it went on (`written`): its final reload leaves them out. */
  let reloaded = new Set<string>();
  let lastErrors: ReportedError[] | undefined;
  /** The routes of the last build that succeeded: the share preview lists them. */
  let lastRoutes: BuiltRoute[] = [];
  let lastPrinted = "";
  /** The site's language, as the last builder that loaded the theme said (the overlay speaks it); English until then. */
  let language = "en";
  /** The warnings of the last build: the pages show them in a panel of their own (the overlay is for errors). */
  let lastWarnings: ReportedWarning[] = [];
  const clientScript = await devClient(options);

  const send = (res: http.ServerResponse, event: string, data: unknown) => res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  const broadcast = (event: string, data: unknown) => {
    for (const res of clients.keys()) send(res, event, data);
  };

  // The builder process; a fresh one when code it has loaded (theme, engine) changes, or
  // when the last one died.
  let builder: BuilderProcess | undefined;
  const startBuilder = async () => {
    // The old one's work is saved first: the new one starts from it, and renders again only
    // the bodies and pages whose code changed (a template's save, its pages).
    if (builder?.alive) await builder.save();
    builder?.stop();
    builder = new BuilderProcess(options, (changed) => {
      // A page open in a browser is written: reloaded now, not when every page is.
      const routes = changedRoutes(changed).filter((route) => !reloaded.has(route));
      for (const route of routes) reloaded.add(route);
      if (routes.length > 0) broadcast("ok", { routes });
    });
    if (options.signal?.aborted) builder.stop();
  };
  options.signal?.addEventListener("abort", () => builder?.stop(), { once: true });
  /** Asks the builder; prints what a rebuild changed (`quiet`: the first build, whose line is "N pages ready"). */
  const request = async (message: BuildRequest, reason: string, { quiet = false, saved }: { quiet?: boolean; saved?: readonly string[] } = {}) => {
    reloaded = new Set();
    const first = openRoutes();
    const reply = await builder!.request(first.length > 0 ? { ...message, first } : message);
    if (reply.language) language = reply.language;
    // The terminal shows the warnings of the files just saved (all of them at the start); the pages, every one.
    const shown = saved ? reply.warnings.filter((w) => saved.includes(w.file)) : reply.warnings;
    for (const warning of shown) log(warning.printed);
    settle(reply, reason, quiet);
    // After the build's own event (its reload or overlay comes first), and only when they changed.
    if (JSON.stringify(reply.warnings) !== JSON.stringify(lastWarnings)) broadcast("warnings", { warnings: reply.warnings, language });
    lastWarnings = reply.warnings;
    return reply;
  };
  /** The errors, or the pages a build changed: the overlay, or a reload of the open pages it touched. */
  const settle = (reply: BuildReply, reason: string, quiet: boolean) => {
    if (!reply.ok) {
      lastErrors = reply.errors;
      lastPrinted = reply.printed;
      log(`\n${reason}: ${reply.errors.length} problem${reply.errors.length === 1 ? "" : "s"}\n\n${reply.printed}\n\nFix the file and save: the page reloads by itself.`);
      broadcast("build-error", { errors: reply.errors, language });
      return;
    }
    const recovered = lastErrors !== undefined;
    lastErrors = undefined;
    if (reply.routes) lastRoutes = reply.routes;
    // Nothing written and nothing to clear (a save that changed no byte): the pages are as they were.
    if (reply.changed.length === 0 && !recovered) return;
    // The pages reloaded as they were written (`written`) are not reloaded again (nothing is sent when they were all); the overlay cleared is every page's.
    const routes = changedRoutes(reply.changed).filter((route) => recovered || !reloaded.has(route));
    if (routes.length > 0 || recovered || reloaded.size === 0) broadcast("ok", { routes });
    const pages = reply.changed.filter((f) => f.endsWith(".html")).length;
    // How many were rendered, when not all: a template's save renders only the pages whose template reaches it.
    const kept = reply.rendered < reply.pages ? ` (${reply.rendered} of ${reply.pages} rendered, the others kept)` : "";
    if (!quiet) log(`${reason}: ${pages} page${pages === 1 ? "" : "s"} updated in ${reply.ms} ms${onThreads(reply)}${kept}`);
  };

  await startBuilder();
  const first = await request({ type: "build" }, "start", { quiet: true });
  if (first.ok) {
    const cached = first.pages - first.rendered;
    log(`start: ${first.pages} pages ready in ${first.ms} ms${onThreads(first)}${cached > 0 ? ` (${cached} unchanged since the last session, from the cache)` : ""}`);
  }

  const { url, server } = await serve({
    root: options.outDir,
    port: options.port,
    host: options.host,
    allowedHosts: options.allowedHosts,
    dev: true,
    injectHtml: (html) => html.replace("</body>", '<script type="module" src="/__cafe/dev-client.js"></script></body>'),
    before(req, res) {
      if (req.url?.split("?")[0] === "/__cafe/events") {
        // Drafts and error frames go down this channel: only to pages of this server (the
        // Host check has run already), never to a page of another origin that opens it.
        if (isForeignOrigin(req)) {
          refuse(res, 403, `Forbidden: the live-reload channel answers only pages of this server, not ones from ${JSON.stringify(String(req.headers.origin).slice(0, 100))}.`);
          return true;
        }
        res.writeHead(200, { "Content-Type": "text/event-stream", "Cache-Control": "no-cache", Connection: "keep-alive" });
        res.write(": connected\n\n");
        clients.set(res, routeOfPage(new URL(req.url, "http://localhost").searchParams.get("page")));
        if (lastErrors) send(res, "build-error", { errors: lastErrors, language });
        if (lastWarnings.length > 0) send(res, "warnings", { warnings: lastWarnings, language });
        // The response closes when the page goes away (the request "closes" once read).
        res.on("close", () => clients.delete(res));
        return true;
      }
      if (req.url?.split("?")[0] === SHARE_PREVIEW && (req.method === "GET" || req.method === "HEAD")) {
        // Drawn from the pages as they are now: a save that rebuilt them changes it too.
        sharePreviewPage(options.outDir, lastRoutes, "/__cafe/dev-client.js").then(
          (html) => {
            res.writeHead(200, { "Content-Type": "text/html; charset=utf-8", "Cache-Control": "no-cache" });
            res.end(req.method === "HEAD" ? undefined : html);
          },
          (error: unknown) => refuse(res, 500, `The share preview failed: ${(error as Error).message}`),
        );
        return true;
      }
      if (req.url === "/__cafe/dev-client.js") {
        res.writeHead(200, { "Content-Type": "text/javascript; charset=utf-8", "Cache-Control": "no-cache" });
        res.end(clientScript);
        return true;
      }
      // No page was ever built (the first build failed): a page that shows why, with the overlay.
      if (lastErrors && req.method === "GET" && !existsSync(path.join(options.outDir, "index.html"))) {
        res.writeHead(500, { "Content-Type": "text/html; charset=utf-8", "Cache-Control": "no-cache" });
        res.end(errorPage(lastPrinted, language));
        return true;
      }
      return false;
    },
  });

  const codeDirs = [...options.themeFolders.map((d) => path.join(options.projectRoot, d)), engineDir(options)];
  const isCode = (file: string) =>
    file === options.themeModule || (codeDirs.some((d) => file === d || file.startsWith(d + path.sep)) && /\.(tsx?|[mc]ts|[mc]?jsx?)$/.test(file));
  let timer: NodeJS.Timeout | undefined;
  const changed = new Set<string>();
  let chain: Promise<unknown> = Promise.resolve();
  const rebuild = (files: string[]) => {
    const reason = files.map((f) => path.relative(options.projectRoot, f)).join(", ");
    chain = chain.then(async () => {
      const saved = files.map((f) => path.relative(options.projectRoot, f));
      if (files.some(isCode) || !builder?.alive) {
        await startBuilder();
        await request({ type: "build" }, reason, { saved });
      } else {
        await request({ type: "update", files }, reason, { saved });
      }
    });
  };
  const queue = (file: string) => {
    changed.add(file);
    clearTimeout(timer);
    timer = setTimeout(() => {
      const batch = [...changed];
      changed.clear();
      rebuild(batch);
    }, 2);
  };
  const publicDir = options.publicDir ?? path.join(options.projectRoot, "public");
  // Every save is seen (engine/servers/watch.ts), and each batch reads the files as they are
  // then: an editor's atomic save (a temporary file renamed over) is one change.
  const watcher = await watchFolders(
    [options.contentDir, publicDir, options.themeModule, ...options.themeFolders.map((d) => path.join(options.projectRoot, d)), engineDir(options)],
    // Editors' swap, backup and temporary files are not content.
    {
      ignored: (file: string) => /^\.|~$|\.(swp|swx|tmp)$/.test(path.basename(file)),
      onChange: queue,
      onError: (folder, error) => log(`warning: cannot watch ${path.relative(options.projectRoot, folder) || "."}: ${error.message}. Saves in it are not seen until the dev server starts again; ${watchHint(error)}`),
    },
  );
  // Said once the watcher has looked at every folder: a save made from then on is never missed.
  log(`dev server: ${url} (drafts included; rebuilds on save; Ctrl+C to stop)`);
  log(`share preview: ${url}${SHARE_PREVIEW} (each page as WhatsApp, LinkedIn and X show it)`);

  return {
    url,
    async close() {
      await watcher.close();
      for (const res of clients.keys()) res.end();
      builder?.stop();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The route of a page as its address names it (`/guia/`, `/guia.html` and `/guia` are one page); undefined for none. */
function routeOfPage(page: string | null): string | undefined {
  if (!page?.startsWith("/")) return undefined;
  let route = page.replace(/(\/index)?\.html$/, "");
  if (route.length > 1 && route.endsWith("/")) route = route.slice(0, -1);
  return route || "/";
}

/** What to do when the system would not watch a folder. */
function watchHint(error: NodeJS.ErrnoException): string {
  if (error.code === "ENOSPC" || error.code === "EMFILE") return "raise the system's limit of watched folders (on Linux: sudo sysctl fs.inotify.max_user_watches=524288) and start it again.";
  if (error.code === "EACCES" || error.code === "EPERM") return "give your user the right to read that folder and start it again.";
  return "start it again.";
}

/** The page served while no page could be built: the errors as text, and the overlay, in the site's language. */
function errorPage(printed: string, language: string): string {
  const escaped = printed.replace(/[&<>]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;" })[c]!);
  const words = wordsFor(language);
  const lang = language.replace(/[^A-Za-z0-9-]/g, "");
  return `<!DOCTYPE html><html lang="${lang}"><head><meta charset="utf-8"><title>${words.overlayLabel}</title></head><body><main><h1>${words.notBuilt}</h1><pre>${escaped}</pre></main><script type="module" src="/__cafe/dev-client.js"></script></body></html>`;
}

/**
 * One builder process and its lifecycle. Each request gets a reply: the build's, or, when
 * the process dies before giving one (however it dies), the crash as an error with its file,
 * line and frame, so no request waits for a process that is gone.
 */
class BuilderProcess {
  private readonly child: ChildProcess;
  private readonly pending: ((reply: BuildReply | { type: "saved" }) => void)[] = [];
  private readonly ready: Promise<void>;
  private stderr = "";
  private ended?: BuildReply;

  /** `onWritten`: a page of a request's `first` written while its build goes on. */
  constructor(
    options: DevOptions,
    private readonly onWritten: (changed: string[]) => void = () => {},
  ) {
    // Through the launcher, as every command runs: a new builder runs the code as it is now.
    const setup: BuilderSetup = {
      contentDir: options.contentDir,
      projectRoot: options.projectRoot,
      publicDir: options.publicDir,
      outDir: options.outDir,
      themeModule: options.themeModule,
      themeFolders: options.themeFolders,
      engineFolder: path.relative(options.projectRoot, engineDir(options)),
      cacheDir: options.cacheDir,
      editorSchemas: options.editorSchemas ?? false,
      strict: options.strict,
      threads: options.threads,
    };
    this.child = fork(options.launcher ?? path.join(engineDir(options), "launch.mjs"), ["--dev-builder", JSON.stringify(setup)], {
      execArgv: [],
      stdio: ["ignore", "inherit", "pipe", "ipc"],
    });
    // Shown in the terminal as it comes, and kept: it explains a builder that dies.
    this.child.stderr!.on("data", (chunk: Buffer) => {
      process.stderr.write(chunk);
      this.stderr = (this.stderr + chunk.toString("utf8")).slice(-16_000);
    });
    this.ready = new Promise((resolve) => {
      this.child.on("message", (reply: BuilderReply) => {
        if (reply.type === "ready") resolve();
        else if (reply.type === "written") this.onWritten(reply.changed);
        else this.pending.shift()?.(reply);
      });
      // "close", not "exit": the process may be gone before its last words on stderr are read.
      this.child.on("close", (code, signal) => {
        const why = this.stderr.trim() || `the builder process exited (${signal ?? `code ${code}`})`;
        this.ended = crashReply(reportCrash(why, options.projectRoot));
        for (const reply of this.pending.splice(0)) reply(this.ended);
        resolve();
      });
    });
  }

  get alive(): boolean {
    return this.ended === undefined;
  }

  async request(message: BuildRequest): Promise<BuildReply> {
    await this.ready;
    if (this.ended) return this.ended;
    return new Promise((resolve) => {
      // Replies come in the order of the requests: this one's is a build's.
      this.pending.push((reply) => resolve(reply as BuildReply));
      this.child.send(message);
    });
  }

  /** Has the builder write its persistent cache; resolves once it has (or is gone, or could not). */
  async save(): Promise<void> {
    await this.ready;
    if (this.ended) return;
    await new Promise<void>((resolve) => {
      this.pending.push(() => resolve());
      this.child.send({ type: "save" } satisfies BuilderRequest);
    });
  }

  stop(): void {
    this.child.kill("SIGTERM");
  }
}

/** " on N threads" after a run's time when the pool computed some of it: nothing on one thread. */
function onThreads(reply: Pick<BuildReply, "threads">): string {
  return reply.threads > 1 ? ` on ${reply.threads} threads` : "";
}
