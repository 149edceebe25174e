/**
 * Builds the real site once per test run, into a temporary folder that every test needing it
 * reads (vitest's globalSetup; tests reach it through `realSite()` in helpers.ts).
 *
 * And keeps the run out of the developer's project: the engine's cache goes to a folder of
 * the run's own (CAFE_CACHE_DIR, which the test processes and every command they start
 * inherit), and at the end the project's files, its dist/ and its cache must be exactly as
 * they were before the run (tests/project-state.ts), or the run fails, naming what changed.
 *
 * vitest calls this once for each project (unit, integration) and once for the root: the
 * first call does the work, the others share it, and the last teardown checks and cleans up.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type { TestProject } from "vitest/node";
import { buildSite } from "../engine/pipeline/site-builder.js";
import { FolderWriter } from "../engine/stages/write/writers.js";
import { theme } from "../templates/theme.js";
import { projectState, stateChanges, type ProjectState } from "./project-state.js";

export interface BuiltSite {
  dir: string;
  routes: { path: string; outFile: string; kind: string }[];
  errors: string[];
}

declare module "vitest" {
  export interface ProvidedContext {
    realSite: BuiltSite;
  }
}

interface Run {
  before: ProjectState;
  cacheDir: string;
  parent: string;
  site: Promise<BuiltSite>;
  users: number;
}
const RUN = Symbol.for("cafe-com-a-cris.test-run");
const shared = globalThis as unknown as { [RUN]?: Run };

async function startRun(projectRoot: string): Promise<Run> {
  const before = projectState(projectRoot);
  const cacheDir = await mkdtemp(path.join(tmpdir(), "cafe-test-cache-"));
  process.env.CAFE_CACHE_DIR = cacheDir;
  const parent = await mkdtemp(path.join(tmpdir(), "cafe-real-site-"));
  const site = (async () => {
    const dir = path.join(parent, "dist");
    const writer = new FolderWriter(dir);
    await writer.begin();
    const result = await buildSite({ contentDir: path.join(projectRoot, "content"), projectRoot, theme, writer });
    return {
      dir,
      routes: result.routes.map(({ path, outFile, kind }) => ({ path, outFile, kind })),
      errors: result.errors.map((e) => `${e.location}: ${e.message}`),
    };
  })();
  return { before, cacheDir, parent, site, users: 0 };
}

export default async function setup(project: TestProject) {
  const projectRoot = path.resolve(import.meta.dirname, "..");
  shared[RUN] ??= await startRun(projectRoot);
  const run = shared[RUN];
  run.users++;
  project.provide("realSite", await run.site);
  return async () => {
    if (--run.users > 0) return;
    delete shared[RUN];
    await rm(run.parent, { recursive: true, force: true });
    await rm(run.cacheDir, { recursive: true, force: true });
    // In watch mode the developer edits the project while the tests run: nothing to compare.
    if (project.vitest.config.watch) return;
    const changes = stateChanges(run.before, projectState(projectRoot));
    if (changes.length > 0) {
      // vitest reports a teardown's error but does not fail the run for it: this does.
      process.exitCode = 1;
      throw new Error(
        `The test run changed the project, its dist/ or its cache (tests must work on copies):\n${changes.slice(0, 30).join("\n")}` +
          (changes.length > 30 ? `\n…and ${changes.length - 30} more` : ""),
      );
    }
  };
}
