/**
 * Builds a content folder into an output folder and kills itself (SIGKILL: no clean-up)
 * at the named moment of the output stage; tests/workflow.test.ts and tests/publish.test.ts
 * run it for each one. With CACHE, the build keeps a persistent cache there (as
 * `npm run build` does), so it takes unchanged pages from the last build.
 *   tsx tests/kill-build.ts CONTENT OUT [STEP] [CACHE]
 */
import path from "node:path";
import { SiteBuilder } from "../engine/pipeline/site-builder.js";
import { openSiteCache } from "../engine/pipeline/build-record.js";
import { FolderWriter } from "../engine/stages/write/writers.js";
import { theme } from "../templates/theme.js";

const [contentDir, outDir, killAt, cacheDir] = process.argv.slice(2) as [string, string, string | undefined, string | undefined];
const writer = new FolderWriter(outDir, (step) => {
  if (step === killAt) process.kill(process.pid, "SIGKILL");
});
await writer.begin();
const cache = cacheDir ? await openSiteCache(cacheDir, "kill-build") : undefined;
const result = await new SiteBuilder({ contentDir, projectRoot: path.resolve(import.meta.dirname, ".."), theme, cache }).build(writer);
process.exit(result.ok ? 0 : 1);
