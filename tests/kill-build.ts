/**
 * Builds a content folder into an output folder and kills itself (SIGKILL: no clean-up)
 * at the named moment of the output stage; tests/workflow.test.ts and tests/publish.test.ts
 * run it for each one. With CACHE, the build keeps a persistent cache there (as
 * `npm run build` does), so it takes unchanged pages from the last build. Run from the project's
 * folder, bundled once by the test file (`bundleScript` in tests/helpers.ts) or under tsx:
 *   node <bundle> CONTENT OUT [STEP] [CACHE]
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
// The project's folder and the engine's by the working folder: a bundle's own is a temporary one.
const projectRoot = process.cwd();
const result = await new SiteBuilder({ contentDir, projectRoot, theme, cache, engineDir: path.join(projectRoot, "engine") }).build(writer);
process.exit(result.ok ? 0 : 1);
