/**
 * Gives each worker of the unit project an engine cache of its own (vitest's setupFiles, run
 * in the worker before each of its files). The unit files run on every core at once, and
 * tests count what a build draws, encodes or finds in the cache: two workers sharing one
 * cache would see each other's entries come and go. Each worker's cache starts as the run's
 * (the real site's kept media, tests/global-setup.ts), copied once per worker.
 */
import { cpSync } from "node:fs";
import path from "node:path";
import { inject } from "vitest";

const run = inject("runCache");
const mine = path.join(run.workersDir, `worker-${process.pid}`);
if (process.env.CAFE_CACHE_DIR !== mine) {
  cpSync(run.cacheDir, mine, { recursive: true });
  process.env.CAFE_CACHE_DIR = mine;
}
