/**
 * Gives each worker of the unit project an engine cache of its own (vitest's setupFiles, run
 * in the worker before each of its files). The unit files run on every core at once, and
 * tests count what a build draws, encodes or finds in the cache: two workers sharing one
 * cache would see each other's entries come and go. Each worker's cache starts as the run's
 * (the real site's kept media, tests/global-setup.ts) with what the last run's workers used
 * (the fixtures' cards and images), copied once per worker; the worker notes each entry its
 * builds read or store, for the next run to keep (`keepWorkerMedia` in tests/global-setup.ts).
 */
import { appendFileSync, cpSync, mkdirSync } from "node:fs";
import path from "node:path";
import { inject } from "vitest";
import { noteMediaUse, workerTag } from "./media-use.js";

const run = inject("runCache");
const mine = path.join(run.workersDir, `worker-${workerTag()}`);
if (process.env.CAFE_CACHE_DIR !== mine) {
  if (process.env.CAFE_TEST_EMPTY_CACHE === "1") {
    // The client's files (the unit-dom project says so) build nothing: their workers' caches
    // start empty. Copying the run's into each cost up to 1.5 s before their first file, on the
    // run's critical path (they run after the others).
    mkdirSync(mine, { recursive: true });
  } else {
    cpSync(run.cacheDir, mine, { recursive: true });
    if (run.workerMedia) {
      try {
        cpSync(run.workerMedia, mine, { recursive: true, force: false });
      } catch {
        // None kept yet (a first or cold run): the builds make them.
      }
    }
  }
  process.env.CAFE_CACHE_DIR = mine;
  // The worker's temporary folders (the tests' fixtures, copies, outputs; the commands they start
  // inherit it) in the run's folder, removed with it when the run ends: in the system's, a
  // unit run left some two hundred folders behind each time, and esbuild reads the listing of
  // every folder above a site it bundles (with ten thousand of them, a few tenths of a second
  // a bundle for every site copied there).
  const temp = path.join(run.workersDir, `tmp-${workerTag()}`);
  mkdirSync(temp, { recursive: true });
  process.env.TMPDIR = temp;
  // Each entry its builds read or store, noted once per worker (the module is shared by its files).
  const used = path.join(run.workersDir, `used-${workerTag()}.txt`);
  noteMediaUse((folder) => appendFileSync(used, `${folder}\n`));
}
