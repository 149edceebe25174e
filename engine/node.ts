/**
 * What a site's build script imports: one call that builds a project the way `cafe build`
 * does (skips it when nothing changed, keeps the last good site on failure, publishes only
 * what changed), and the `cafe` command itself for a script that hands it its config.
 * Themes import index.ts instead.
 *
 * React picks its development or production build when it is first loaded: a script should
 * set `NODE_ENV=production` before it imports its theme (the engine's command line does).
 */
import type { ProjectBuildOptions } from "./pipeline/project.js";
import type { SiteConfig } from "./config.js";

export type { ProjectBuildOptions } from "./pipeline/project.js";
export type { SiteConfig } from "./config.js";

/** Builds a project into its output folder and prints the outcome as the command line does; resolves to the exit code. */
export async function buildProject(options: ProjectBuildOptions): Promise<number> {
  // Set at the call, not on import; and before the engine (and React, unless the theme loaded it) is loaded.
  process.env.NODE_ENV ??= "production";
  // The theme's own mistakes (a template it must have, an asset that is not there) before any work.
  const { checkTheme } = await import("./theme-check.js");
  const mistakes = checkTheme(options.theme, options.projectRoot);
  if (mistakes.length > 0) {
    const { printErrors } = await import("./lib/report.js");
    printErrors(mistakes);
    console.error("The theme cannot build a site: fix it, then build again.");
    return 1;
  }
  const project = await import("./pipeline/project.js");
  return project.buildProject(options);
}

/**
 * Runs a `cafe` command line (`build`, `dev --port 4000`…) for the site in `root` with its
 * config, as the `cafe` command does: `process.exitCode = await runCommand(process.argv.slice(2), { root, config, configFile })`.
 * `configFile` (relative to `root`) is the module `cafe dev`'s builder process loads.
 */
export async function runCommand(argv: readonly string[], site: { root: string; config: SiteConfig; configFile: string }): Promise<number> {
  const { main } = await import("./cli/main.js");
  return main(argv, { root: site.root, configFile: site.configFile, loadConfig: async () => ({ default: site.config }) });
}
