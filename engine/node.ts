/**
 * What a site's build script imports: one call that builds a project the way `npm run build`
 * does (skips it when nothing changed, keeps the last good site on failure, publishes only
 * what changed). Themes import index.ts instead.
 *
 * React picks its development or production build when it is first loaded: a script should
 * set `NODE_ENV=production` before it imports its theme (the engine's command line does).
 */
import type { ProjectBuildOptions } from "./pipeline/project.js";

export type { ProjectBuildOptions } from "./pipeline/project.js";

/** Builds a project into its output folder and prints the outcome as the command line does; resolves to the exit code. */
export async function buildProject(options: ProjectBuildOptions): Promise<number> {
  // Set at the call, not on import; and before the engine (and React, unless the theme loaded it) is loaded.
  process.env.NODE_ENV ??= "production";
  const project = await import("./pipeline/project.js");
  return project.buildProject(options);
}
