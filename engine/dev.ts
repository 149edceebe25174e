/**
 * Watch mode: the same build, re-run when content/, templates/, client/ or public/ change,
 * served by the same server. A broken edit prints its errors and the last good site stays
 * served; the watcher keeps running.
 */
import path from "node:path";
import { watch } from "chokidar";
import { buildSite } from "./build.js";
import { FolderWriter } from "./output.js";
import { serve } from "./serve.js";
import { printErrors, printWarnings } from "./report.js";

export interface DevOptions {
  projectRoot: string;
  contentDir: string;
  outDir: string;
  port: number;
  host: string;
}

export async function startDev(options: DevOptions): Promise<void> {
  const rebuild = async (reason: string) => {
    const started = performance.now();
    const writer = new FolderWriter(options.outDir);
    await writer.begin();
    try {
      const result = await buildSite({
        contentDir: options.contentDir,
        projectRoot: options.projectRoot,
        writer,
        drafts: true,
      });
      printWarnings(result.warnings);
      if (!result.ok) {
        printErrors(result.errors);
        console.error("Fix the file and save: the site rebuilds by itself. The last good build is still served.");
        return;
      }
      console.log(`${reason}: rebuilt ${result.routes.length} pages in ${Math.round(performance.now() - started)} ms`);
    } catch (error) {
      await writer.abort();
      console.error(`rebuild failed: ${(error as Error).stack ?? error}`);
    }
  };

  await rebuild("start");
  const { url } = await serve({ root: options.outDir, port: options.port, host: options.host, dev: true });
  console.log(`dev server: ${url} (watching for changes; Ctrl+C to stop)`);

  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  const changed = new Set<string>();
  const watched = ["content", "templates", "client", "public"].map((d) =>
    d === "content" ? options.contentDir : path.join(options.projectRoot, d),
  );
  watch(watched, { ignoreInitial: true, awaitWriteFinish: { stabilityThreshold: 30, pollInterval: 10 } }).on(
    "all",
    (_event, file) => {
      changed.add(path.relative(options.projectRoot, file));
      clearTimeout(timer);
      timer = setTimeout(() => {
        const reason = [...changed].join(", ");
        changed.clear();
        running = running.then(() => rebuild(reason));
      }, 50);
    },
  );
}
