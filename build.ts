/**
 * This blog's build script: its config (cafe.config.ts) handed to the engine's command, for
 * running it from code. The npm scripts run the same command through the launcher, which
 * reads the config itself (`npm run build` is `node engine/launch.mjs build`):
 *
 *   npx tsx build.ts build|dev|preview|new|check-links [options]   (npx tsx build.ts --help lists them)
 */
import { runCommand } from "./engine/node.js";

// React's production build: set before the config loads the theme, and React with it.
process.env.NODE_ENV ??= "production";
const { default: config } = await import("./cafe.config.js");
process.exitCode = await runCommand(process.argv.slice(2), { root: import.meta.dirname, config, configFile: "cafe.config.ts" });
