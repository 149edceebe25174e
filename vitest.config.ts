import { availableParallelism } from "node:os";
import { fileURLToPath } from "node:url";
import type { Plugin } from "vite";
import { defineConfig } from "vitest/config";

/** Tests that start servers, browsers or other processes: `npm test` runs them, `npm run test:unit` does not. */
const INTEGRATION = [
  "tests/browser/**",
  // Waits 3.2 s once for its files' times to settle (an article's evidence is kept only then).
  "tests/article-evidence.test.ts",
  "tests/cache.test.ts",
  "tests/check-links.test.ts",
  "tests/code-edits.test.ts",
  "tests/cli.test.ts",
  "tests/dev.test.ts",
  "tests/host-origin.test.ts",
  "tests/html-validity.test.ts",
  "tests/move-article.test.ts",
  "tests/identical-output.test.ts",
  "tests/launcher.test.ts",
  // Seven `node engine/launch.mjs build` runs and a bundle of the command (what a fresh process loads).
  "tests/lazy-loading.test.ts",
  "tests/nginx.test.ts",
  "tests/publish.test.ts",
  "tests/serve.test.ts",
  "tests/site-outside.test.ts",
  "tests/static-parity.test.ts",
  "tests/threads.test.ts",
  "tests/workflow.test.ts",
];

/**
 * The unit files' workers: every core (vitest's default leaves one to itself, which on a 2-core
 * machine ran them all in one worker), at least two; CAFE_TEST_WORKERS=N says how many.
 */
const UNIT_WORKERS = (() => {
  const told = process.env.CAFE_TEST_WORKERS;
  if (told === undefined || told === "") return Math.max(2, availableParallelism());
  if (!/^[1-9]\d*$/.test(told)) throw new Error(`CAFE_TEST_WORKERS is "${told}": give how many workers run the unit files, a whole number from 1 (e.g. CAFE_TEST_WORKERS=1), or leave it unset for every core.`);
  return Number(told);
})();

/** The unit files that run in a DOM (each also says so in its first line, `@vitest-environment happy-dom`). */
const DOM = ["tests/client/**/*.test.{ts,tsx}"];

/**
 * Resolves the packages as the command's bundle does, to their production builds: vitest's
 * own configuration adds Vite's `development|production` condition, read as `development` in a
 * test run (by Vite for the imports of the code it compiles, by Node in the workers, which
 * vitest starts with `--conditions development`); without it, `default` is taken.
 */
const productionPackages: Plugin = {
  name: "cafe:production-packages",
  configEnvironment(_name, config) {
    if (config.resolve?.conditions) config.resolve.conditions = config.resolve.conditions.filter((condition) => condition !== "development|production");
  },
};

/** What both unit projects share (`npm run test:unit` runs the two). */
const UNIT = {
  isolate: false,
  maxWorkers: UNIT_WORKERS,
  setupFiles: ["tests/setup-unit-worker.ts"],
  sequence: { groupOrder: 0 },
};

export default defineConfig({
  // The engine by its package name, as tsconfig.json's `paths` say (the notebook fixture imports it so).
  resolve: {
    alias: [
      { find: /^cafe-engine$/, replacement: fileURLToPath(new URL("./engine/index.ts", import.meta.url)) },
      { find: /^cafe-engine\/node$/, replacement: fileURLToPath(new URL("./engine/node.ts", import.meta.url)) },
    ],
  },
  test: {
    environment: "node",
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: "forks",
    // The real site, built once per run for every test that reads it.
    globalSetup: ["tests/global-setup.ts"],
    projects: [
      // The unit files share their workers' module cache (isolate: false): each file importing the
      // engine, the theme and React again was 13 s of a 34 s run. Their state lives in values
      // they make (builders, writers, temporary folders), not in the modules. They run on every
      // core, each worker with an engine cache of its own (tests/setup-unit-worker.ts), first:
      // vitest runs projects of different worker counts one after the other (groupOrder).
      //
      // They render as the command does (engine/cli/main.ts): React's production build
      // (NODE_ENV=production) and the theme's JSX compiled for it, not React's development build
      // that vitest's NODE_ENV=test picks, which builds a stack trace for every element it makes
      // (a fifth of a unit worker's time). No unit test reads what only that build logs; the
      // client's files below keep it (their hydration tests expect React to log nothing).
      //
      // And with the packages' production builds, as the command's bundle takes them (its esbuild
      // asks for no `development` condition; engine/launch.mjs): vitest starts its workers with
      // Node's `--conditions development` otherwise, which loads the Markdown parser's development
      // build (micromark's and mdast-util-from-markdown's `dev/`, assertions on every token): the
      // real articles parsed 1.4 to 2.8 times more slowly with it (bench/README.md, session 11).
      {
        extends: true,
        oxc: { jsx: { development: false } },
        plugins: [productionPackages],
        test: { name: "unit", include: ["tests/**/*.test.{ts,tsx}"], exclude: [...INTEGRATION, ...DOM], ...UNIT, env: { NODE_ENV: "production" } },
      },
      // The client's files, in a DOM (happy-dom), after the others: a worker is kept for the next
      // file only if that file wants the same environment, so mixed in one queue with the rest
      // they made vitest start a fresh worker (importing everything again) at each change of kind.
      // They build nothing: each worker's cache of its own starts empty (tests/setup-unit-worker.ts).
      // In threads, not processes: their workers start sooner (happy-dom's environment was most of
      // this project's time); each thread's folders are named by its process and thread id.
      { extends: true, test: { name: "unit-dom", include: DOM, environment: "happy-dom", ...UNIT, pool: "threads", sequence: { groupOrder: 1 }, env: { CAFE_TEST_EMPTY_CACHE: "1" } } },
      // Each file in a process of its own (vitest's default count of workers): they start servers, browsers and processes.
      { extends: true, test: { name: "integration", include: INTEGRATION.map((p) => (p.endsWith("**") ? `${p}/*.test.ts` : p)), sequence: { groupOrder: 2 } } },
    ],
  },
});
