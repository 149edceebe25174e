/**
 * Builds the real site once per test run, into a temporary folder that every test needing it
 * reads (vitest's globalSetup; tests reach it through `realSite()` in helpers.ts).
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type { TestProject } from "vitest/node";
import { buildSite } from "../engine/build.js";
import { FolderWriter } from "../engine/output.js";
import { theme } from "../templates/theme.js";

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

export default async function setup(project: TestProject) {
  const projectRoot = path.resolve(import.meta.dirname, "..");
  const parent = await mkdtemp(path.join(tmpdir(), "cafe-real-site-"));
  const dir = path.join(parent, "dist");
  const writer = new FolderWriter(dir);
  await writer.begin();
  const result = await buildSite({ contentDir: path.join(projectRoot, "content"), projectRoot, theme, writer });
  project.provide("realSite", {
    dir,
    routes: result.routes.map(({ path, outFile, kind }) => ({ path, outFile, kind })),
    errors: result.errors.map((e) => `${e.location}: ${e.message}`),
  });
  return async () => {
    await rm(parent, { recursive: true, force: true });
  };
}
