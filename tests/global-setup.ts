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
import { cp, mkdir, mkdtemp, rename, rm } from "node:fs/promises";
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

/**
 * The engine's content-addressed media caches (social cards, cut fonts, encoded images), kept
 * from one run to the next beside the engine's cache: drawing the real site's 15 cards and
 * encoding its images was most of what the setup cost. Each entry is keyed by everything that
 * makes it (the code, the fonts, the text, the bytes), so an entry of other code is never
 * used; a damaged one is made again. CAFE_TEST_COLD=1 starts from an empty cache.
 */
const KEPT_MEDIA = ["cards", "fonts", "images"];
const keptMediaDir = (projectRoot: string) => path.join(projectRoot, "node_modules/.cache/cafe-tests/media");

/** The run's cache starts with the kept media. */
async function seedMedia(projectRoot: string, cacheDir: string): Promise<void> {
  if (process.env.CAFE_TEST_COLD === "1") return;
  for (const kind of KEPT_MEDIA) await cp(path.join(keptMediaDir(projectRoot), kind), path.join(cacheDir, kind), { recursive: true }).catch(() => {});
}

/** Keeps the media the real site needed for the next run: exactly those (swapped in whole, so nothing stale piles up). */
async function keepMedia(projectRoot: string, cacheDir: string): Promise<void> {
  const kept = keptMediaDir(projectRoot);
  const next = `${kept}.${process.pid}.tmp`;
  try {
    await rm(next, { recursive: true, force: true });
    await mkdir(next, { recursive: true });
    for (const kind of KEPT_MEDIA) await cp(path.join(cacheDir, kind), path.join(next, kind), { recursive: true }).catch(() => {});
    await rm(kept, { recursive: true, force: true });
    await rename(next, kept);
  } catch {
    // Only a head start for the next run: it draws what it does not find.
    await rm(next, { recursive: true, force: true }).catch(() => {});
  }
}

async function startRun(projectRoot: string): Promise<Run> {
  const before = projectState(projectRoot);
  const cacheDir = await mkdtemp(path.join(tmpdir(), "cafe-test-cache-"));
  process.env.CAFE_CACHE_DIR = cacheDir;
  await seedMedia(projectRoot, cacheDir);
  const parent = await mkdtemp(path.join(tmpdir(), "cafe-real-site-"));
  const site = (async () => {
    const dir = path.join(parent, "dist");
    const writer = new FolderWriter(dir);
    await writer.begin();
    const result = await buildSite({ contentDir: path.join(projectRoot, "content"), projectRoot, theme, writer });
    // Before any test adds its own entries to the run's cache.
    if (result.ok) await keepMedia(projectRoot, cacheDir);
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
