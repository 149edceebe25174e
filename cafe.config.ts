/**
 * This blog as a site of the engine: its theme and the folders of its code. `cafe` reads it
 * (`npm run build`, `dev`, `preview`, `new`, `check:links` run `node engine/launch.mjs <command>`,
 * the engine's `cafe` command); content/, public/ and dist/ are the defaults.
 */
import { defineConfig } from "./engine/index.js";
import { theme } from "./templates/theme.js";

export default defineConfig({
  theme,
  // The templates and the islands (client/, bundled by the theme's asset entries): an edit there is a new version of the code.
  themeFolders: ["templates", "client"],
});
