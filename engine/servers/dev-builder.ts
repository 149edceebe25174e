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
import { crashReply, reportCrash, reportError, type BuilderReply, type BuilderRequest } from "./dev-protocol.js";

const send = (reply: BuilderReply) => process.send?.(reply);

/**
 * Runs the builder: `args` are the content folder, the project root, the output folder, the
 * theme's module, its code folders (comma-separated) and the cache folder ("" for none).
 */
export function runBuilder(args: string[]): void {
  const [contentDir, projectRoot, outDir, themeModule, themeFolders, cacheDir] = args as [string, string, string, string, string, string];
  const crash = (error: unknown) => crashReply(reportCrash(error instanceof Error ? `${error.message}\n${error.stack}` : String(error), projectRoot));

  const load = async () => {
    const [{ SiteBuilder }, { formatError, formatWarning }, { LiveWriter }, { BuildCache }, { codeVersion }, { theme }] = await Promise.all([
      import("../pipeline/site-builder.js"),
      import("../lib/errors.js"),
      import("../stages/write/writers.js"),
      import("../incremental/build-cache.js"),
      import("../incremental/fingerprint.js"),
      import(pathToFileURL(themeModule).href) as Promise<{ theme: import("../theme.js").Theme }>,
    ]);
    // Started from the cache: the pages of the last session that nothing changed are not rendered again.
    const cache = cacheDir ? await BuildCache.open(cacheDir, await codeVersion(projectRoot, [...themeFolders.split(","), "engine"])) : undefined;
    const builder = new SiteBuilder({ contentDir, projectRoot, theme, drafts: true, cache, themeFolders: themeFolders.split(",") });
    // The editors' schemas follow a theme edit here too (this process restarts on one); best effort.
    if (contentDir === path.join(projectRoot, "content")) {
      void import("../tools/editor-schemas.js").then((m) => m.writeEditorSchemas({ projectRoot, contentDir, model: theme, themeName: theme.name })).catch(() => {});
    }
    return { builder, writer: new LiveWriter(outDir), formatError, formatWarning };
  };

  // The cache is written once the builder has been idle a moment, not on every save.
  let saving: NodeJS.Timeout | undefined;
  const saveWhenIdle = (builder: { saveCache(): Promise<void> }) => {
    clearTimeout(saving);
    saving = setTimeout(() => void builder.saveCache().catch(() => {}), 1000);
  };

  const loaded = load();
  loaded.catch(() => {});

  let queue: Promise<void> = Promise.resolve();
  process.on("message", (request: BuilderRequest) => {
    queue = queue.then(async () => {
      const started = performance.now();
      try {
        const { builder, writer, formatError, formatWarning } = await loaded;
        const result = request.type === "build" ? await builder.build(writer) : await builder.update(request.files, writer);
        if (result.ok && request.type === "update") saveWhenIdle(builder);
        send({
          type: "result",
          ok: result.ok,
          errors: result.errors.map(reportError),
          printed: result.errors.map(formatError).join("\n\n"),
          warnings: result.warnings.map(formatWarning),
          changed: result.changed,
          pages: result.routes.length,
          routes: result.routes.map((r) => ({ path: r.path, file: r.outFile, kind: r.kind })),
          rendered: result.rendered,
          ms: Math.round(performance.now() - started),
        });
      } catch (error) {
        send(crash(error));
      }
    });
  });
  send({ type: "ready" });
}
