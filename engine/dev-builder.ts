/**
 * The dev server's builder process: holds a SiteBuilder and rebuilds on request. It runs in
 * its own process so that an edit to a template or to the engine starts a fresh one (Node
 * caches modules), while content edits reuse everything already built.
 */
import { SiteBuilder, type BuildResult } from "./build.js";
import { formatError } from "./errors.js";
import { LiveWriter } from "./output.js";
import type { Theme } from "./theme.js";
import { pathToFileURL } from "node:url";
import { reportError, type BuilderReply, type BuilderRequest } from "./dev-protocol.js";

const [contentDir, projectRoot, outDir, themeModule] = process.argv.slice(2) as [string, string, string, string];
const { theme } = (await import(pathToFileURL(themeModule).href)) as { theme: Theme };
const builder = new SiteBuilder({ contentDir, projectRoot, theme, drafts: true });
const writer = new LiveWriter(outDir);
const send = (reply: BuilderReply) => process.send?.(reply);

let queue: Promise<void> = Promise.resolve();
process.on("message", (request: BuilderRequest) => {
  queue = queue.then(async () => {
    const started = performance.now();
    let result: BuildResult;
    try {
      result = request.type === "build" ? await builder.build(writer) : await builder.update(request.files, writer);
    } catch (error) {
      const message = `internal error while building: ${(error as Error).stack ?? error}`;
      send({ type: "result", ok: false, errors: [{ location: "build", message }], printed: message, warnings: [], written: [], pages: 0, ms: 0 });
      return;
    }
    send({
      type: "result",
      ok: result.ok,
      errors: result.errors.map(reportError),
      printed: result.errors.map(formatError).join("\n\n"),
      warnings: result.warnings.map((w) => `warning ${w.file}${w.line ? `:${w.line}` : ""}: ${w.message}`),
      written: result.written,
      pages: result.routes.length,
      ms: Math.round(performance.now() - started),
    });
  });
});
send({ type: "ready" });
