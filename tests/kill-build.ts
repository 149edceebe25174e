/**
 * Builds a content folder into an output folder and kills itself (SIGKILL: no clean-up)
 * at the named moment of the output stage; tests/workflow.test.ts runs it for each one.
 *   tsx tests/kill-build.ts CONTENT OUT [STEP]
 */
import path from "node:path";
import { buildSite } from "../engine/build.js";
import { FolderWriter } from "../engine/output.js";
import { theme } from "../templates/theme.js";

const [contentDir, outDir, killAt] = process.argv.slice(2) as [string, string, string | undefined];
const writer = new FolderWriter(outDir, (step) => {
  if (step === killAt) process.kill(process.pid, "SIGKILL");
});
await writer.begin();
const result = await buildSite({ contentDir, projectRoot: path.resolve(import.meta.dirname, ".."), theme, writer });
process.exit(result.ok ? 0 : 1);
