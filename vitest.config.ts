import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

/** Tests that start servers, browsers or other processes: `npm test` runs them, `npm run test:unit` does not. */
const INTEGRATION = [
  "tests/browser/**",
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
  "tests/nginx.test.ts",
  "tests/publish.test.ts",
  "tests/serve.test.ts",
  "tests/site-outside.test.ts",
  "tests/static-parity.test.ts",
  "tests/threads.test.ts",
  "tests/workflow.test.ts",
];

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
      // they make (builders, writers, temporary folders), not in the modules.
      { extends: true, test: { name: "unit", include: ["tests/**/*.test.{ts,tsx}"], exclude: INTEGRATION, isolate: false } },
      { extends: true, test: { name: "integration", include: INTEGRATION.map((p) => (p.endsWith("**") ? `${p}/*.test.ts` : p)) } },
    ],
  },
});
