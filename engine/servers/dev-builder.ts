/**
 * The dev server's builder process: holds a SiteBuilder and rebuilds on request. It runs in
 * its own process so that an edit to a template or to the engine starts a fresh one (Node
 * caches modules), while content edits reuse everything already built.
 *
 * It runs through engine/launch.mjs like every command (`--dev-builder`): a new process
 * bundles the code as it is now. The engine and the theme are imported inside a try: code
 * that does not load becomes a reply with its file, line and frame, which the dev server
 * shows in the overlay, instead of a process that dies before it is ready (a syntax error
 * the bundler finds is printed as file:line:column and reported the same way).
 */
import path from "node:path";
import { pathToFileURL } from "node:url";
import { ContentError } from "../lib/errors.js";
import { shownFrom } from "../lib/code-location.js";
import { changedRoutes, crashReply, reportCrash, reportError, reportWarning, type BuilderReply, type BuilderRequest, type BuilderSetup } from "./dev-protocol.js";

const send = (reply: BuilderReply) => process.send?.(reply);

/**
 * Runs the builder for `setup`; its `themeModule` is the module to load (the launcher gives
 * the bundled one), exporting the site's config (default export) or its theme (`theme`).
 */
export function runBuilder(setup: BuilderSetup): void {
  const { contentDir, projectRoot, outDir, themeModule, themeFolders, cacheDir, publicDir } = setup;
  const crash = (error: unknown) => crashReply(reportCrash(error instanceof Error ? `${error.message}\n${error.stack}` : String(error), projectRoot));

  const load = async () => {
    const [{ SiteBuilder }, { formatError }, { LiveWriter }, { openSiteCache }, { codeVersion }, { checkTheme }, { siteCodeKeys }, site] = await Promise.all([
      import("../pipeline/site-builder.js"),
      import("../lib/errors.js"),
      import("../stages/write/writers.js"),
      import("../pipeline/build-record.js"),
      import("../incremental/fingerprint.js"),
      import("../theme-check.js"),
      import("../incremental/code-keys.js"),
      import(pathToFileURL(themeModule).href) as Promise<{ default?: { theme?: import("../theme.js").Theme }; theme?: import("../theme.js").Theme }>,
    ]);
    const theme = site.default?.theme ?? site.theme;
    if (!theme) throw new Error(`${themeModule} exports no theme: its default export should be defineConfig({ theme })`);
    // The theme's own mistakes, shown like content errors until it is fixed (an edit to it starts a new builder).
    const mistakes = checkTheme(theme, projectRoot);
    // Started from the cache: the pages of the last session that nothing changed are not rendered again.
    // Kept across a theme edit too: a new builder keeps the bodies and pages whose parts' code did not change (incremental/code-keys.ts).
    const code = await siteCodeKeys(setup.modulesFile, theme.modules, async () => setup.code ?? (await codeVersion(projectRoot, [...themeFolders, setup.engineFolder])));
    const cache = cacheDir ? await openSiteCache(cacheDir, code.version) : undefined;
    const workers = setup.workerModule ? { worker: setup.workerModule, site: themeModule } : undefined;
    const builder = new SiteBuilder({ contentDir, projectRoot, theme, drafts: true, cache, publicDir, themeFolders, workers, threads: setup.threads, strict: setup.strict, engineDir: path.resolve(projectRoot, setup.engineFolder), code: code.parts, codeVersion: cacheDir ? code.version : undefined });
    // The editors' schemas follow a theme edit here too (this process restarts on one); best effort.
    if (setup.editorSchemas) {
      void import("../tools/editor-schemas.js").then((m) => m.writeEditorSchemas({ projectRoot, contentDir, model: theme, themeName: theme.name })).catch(() => {});
    }
    return { builder, writer: new LiveWriter(outDir), formatError, mistakes, language: theme.languages[0] };
  };

  // The cache is written once the builder has been idle a moment, not on every save; at once
  // when the dev server is about to replace this builder (a code edit: the new one starts from it).
  let saving: NodeJS.Timeout | undefined;
  const saveWhenIdle = (builder: { saveCache(): Promise<void> }) => {
    clearTimeout(saving);
    saving = setTimeout(() => void builder.saveCache().catch(() => {}), 1000);
  };
  const saveNow = async () => {
    clearTimeout(saving);
    const { builder } = await loaded;
    await builder.saveCache();
  };

  const loaded = load();
  loaded.catch(() => {});

  /** The routes of the last successful build the dev server was sent: a reply lists them again only when one was added, removed or moved. */
  let sent: readonly { path: string; outFile: string; kind: string }[] | undefined;
  const newRoutes = (routes: readonly { path: string; outFile: string; kind: string }[]) => {
    const same = sent !== undefined && sent.length === routes.length && routes.every((r, i) => r.path === sent![i]!.path && r.outFile === sent![i]!.outFile && r.kind === sent![i]!.kind);
    if (same) return undefined;
    sent = routes;
    return routes.map((r) => ({ path: r.path, file: r.outFile, kind: r.kind }));
  };

  let queue: Promise<void> = Promise.resolve();
  process.on("message", (request: BuilderRequest) => {
    queue = queue.then(async () => {
      if (request.type === "save") {
        // Best effort: a cache that cannot be written costs the next builder work, never a result.
        await saveNow().catch(() => {});
        send({ type: "saved" });
        return;
      }
      const started = performance.now();
      try {
        const { builder, writer, formatError, mistakes, language } = await loaded;
        // The pages open in a browser: each told as soon as it is written, so it reloads while the others are made.
        const first = new Set(request.first);
        writer.onWritten = first.size === 0 ? undefined : (file) => void (changedRoutes([file]).some((route) => first.has(route)) && send({ type: "written", changed: [file] }));
        const result =
          mistakes.length > 0
            ? { ok: false, errors: mistakes, warnings: [], changed: [], routes: [], rendered: 0 }
            : await (request.type === "build" ? builder.build(writer, { first: request.first }) : builder.update(request.files, writer, { first: request.first })).catch((error: unknown) => {
                // A mistake of the theme's found while rendering (a listing it does not have): an error like the content's.
                if (error instanceof ContentError) return { ok: false, errors: [shownFrom(projectRoot, error)], warnings: [], changed: [], routes: [], rendered: 0 };
                throw error;
              });
        writer.onWritten = undefined;
        if (result.ok && request.type === "update") saveWhenIdle(builder);
        send({
          type: "result",
          ok: result.ok,
          errors: result.errors.map(reportError),
          printed: result.errors.map(formatError).join("\n\n"),
          warnings: result.warnings.map(reportWarning),
          changed: result.changed,
          pages: result.routes.length,
          routes: result.ok ? newRoutes(result.routes) : [],
          rendered: result.rendered,
          ms: Math.round(performance.now() - started),
          threads: result.threads ?? 1,
          language,
        });
      } catch (error) {
        send(crash(error));
      }
    });
  });
  send({ type: "ready" });
}
