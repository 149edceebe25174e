/**
 * A one-shot build (`npm run build`) asks the file system for the state of each of its files
 * once (issue 38): the load takes an article on the state the up-to-date check's fingerprint
 * read (its size, times and inode: the article's evidence), and the output's fingerprint is
 * made from what the writer found or made of each file. At 100,000 articles each pass of
 * `stat` over the articles or the pages cost a few percent of a one-article edit.
 *
 * A build's inputs are the ones its fingerprint read: a file edited after that is built by the
 * next build (the fingerprint recorded is the older one), and watch mode reads what it is told
 * changed, never the fingerprint's states.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import fs from "node:fs";
import { appendFile, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { syncBuiltinESMExports } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { editedFixture, projectRoot, testCode } from "./helpers.js";
import { buildProject } from "../engine/pipeline/project.js";
import { projectInputs, type SeenInputs } from "../engine/incremental/fingerprint.js";
import { SiteBuilder } from "../engine/pipeline/site-builder.js";
import { openSiteCache } from "../engine/pipeline/build-record.js";
import { MemoryWriter } from "../engine/stages/write/writers.js";
import { theme } from "../templates/theme.js";

/** The theme's folders, as build.ts names them; with the engine's and public/, the code a fingerprint reads. */
const THEME_FOLDERS = ["templates", "client"];

/** A file's times are kept as evidence only once no write to come can share them (3 s): the copies are left that long. */
const settle = () => sleep(3200);

/** `npm run build` of a content folder into `out`, in this process (its messages kept from the test's output). */
async function build(contentDir: string, out: string, more: { inputs?: string; seen?: SeenInputs } = {}): Promise<{ code: number; said: string }> {
  const said: string[] = [];
  const log = vi.spyOn(console, "log").mockImplementation((line: unknown) => void said.push(String(line)));
  const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
  try {
    const code = await buildProject({ projectRoot, theme, themeFolders: THEME_FOLDERS, contentDir, outDir: out, ...more });
    return { code, said: said.join("\n") };
  } finally {
    log.mockRestore();
    warn.mockRestore();
  }
}

/** The state functions of `node:fs` (sync, callback and promise), each call's path noted while `run` runs. */
async function statsDuring<T>(run: () => Promise<T>): Promise<{ result: T; paths: string[] }> {
  const spies = [
    ...(["statSync", "lstatSync", "stat", "lstat"] as const).map((name) => vi.spyOn(fs, name)),
    ...(["stat", "lstat"] as const).map((name) => vi.spyOn(fs.promises, name)),
  ];
  // The engine's `import { statSync } from "node:fs"` sees the spies only once the modules' bindings are synced.
  syncBuiltinESMExports();
  try {
    const result = await run();
    return { result, paths: spies.flatMap((spy) => spy.mock.calls.map((call) => path.resolve(String(call[0])))) };
  } finally {
    for (const spy of spies) spy.mockRestore();
    syncBuiltinESMExports();
  }
}

/** Every file below `dir`, relative to it. */
const filesBelow = async (dir: string) => (await readdir(dir, { recursive: true, withFileTypes: true })).filter((e) => e.isFile()).map((e) => path.relative(dir, path.join(e.parentPath, e.name)));

describe("a one-shot build after one article is edited", () => {
  let contentDir: string;
  let out: string;
  let article: string;
  beforeAll(async () => {
    contentDir = await editedFixture("basic", {});
    out = path.join(await mkdtemp(path.join(tmpdir(), "cafe-one-stat-")), "dist");
    article = path.join(contentDir, "articles/primeiro.md");
    // Settled before the first build, which keeps every article's evidence.
    await settle();
    expect((await build(contentDir, out)).code).toBe(0);
  }, 30_000);
  afterAll(async () => {
    await rm(contentDir, { recursive: true, force: true });
    await rm(path.dirname(out), { recursive: true, force: true });
  });

  it("asks for the state of each content file and of each output file once", async () => {
    await appendFile(article, "\nUma frase escrita depois do primeiro build.\n");
    const { result, paths } = await statsDuring(() => build(contentDir, out));
    expect(result.code).toBe(0);
    expect(result.said).toMatch(/Built 4 pages/);
    expect(await readFile(path.join(out, "primeiro.html"), "utf8")).toContain("Uma frase escrita depois do primeiro build.");
    const counted = (names: string[], places: (name: string) => string[]) => Object.fromEntries(names.map((name) => [name, paths.filter((p) => places(name).includes(p)).length]));
    const content = (await filesBelow(contentDir)).sort();
    expect(counted(content, (name) => [path.join(contentDir, name)])).toEqual(Object.fromEntries(content.map((name) => [name, 1])));
    // An output file is named through `dist` (a link to the folder published) or in its build folder.
    const output = (await filesBelow(path.join(out, "."))).filter((name) => name !== ".cafe-build.json").sort();
    expect(output).toContain("primeiro.html");
    const builds = `${out}.builds`;
    const places = (name: string) => [path.join(out, name), path.join(builds, "a", name), path.join(builds, "b", name)];
    expect(counted(output, places)).toEqual(Object.fromEntries(output.map((name) => [name, 1])));
  }, 30_000);

  it("builds an article edited after its fingerprint was read in the next build, which is not taken as up to date", async () => {
    const folders = [...THEME_FOLDERS, "engine", "public"];
    const seen: SeenInputs = { at: 0, files: new Map() };
    const inputs = await projectInputs(projectRoot, contentDir, folders, seen);
    expect(seen.files.get(article)).toBeDefined();
    // Edited between the fingerprint and the build's load (the config and the theme load in between).
    await writeFile(article, (await readFile(article, "utf8")).replace("Primeiro artigo", "Artigo editado no meio"));
    expect((await build(contentDir, out, { inputs, seen })).code).toBe(0);
    const next = await build(contentDir, out);
    expect(next.said).toMatch(/Built 4 pages/);
    expect(await readFile(path.join(out, "primeiro.html"), "utf8")).toContain("Artigo editado no meio");
    expect((await build(contentDir, out)).said).toContain("is up to date");
  }, 30_000);
});

describe("watch mode after a build handed the fingerprint's states", () => {
  it("reads what changed, the whole content included, however the fingerprint saw it", async () => {
    const contentDir = await editedFixture("basic", {});
    const cacheDir = await mkdtemp(path.join(tmpdir(), "cafe-one-stat-cache-"));
    try {
      await settle();
      const article = path.join(contentDir, "articles/primeiro.md");
      const seen: SeenInputs = { at: 0, files: new Map() };
      await projectInputs(projectRoot, contentDir, [...THEME_FOLDERS, "engine", "public"], seen);
      const writer = new MemoryWriter();
      const builder = new SiteBuilder({ codeVersion: testCode(), contentDir, projectRoot, theme, publishedRoutes: false, cache: await openSiteCache(cacheDir, testCode()) });
      try {
        expect((await builder.build(writer, seen)).ok).toBe(true);
        // A settings file saved with an article: the whole content is read again, the article's state too (not the fingerprint's).
        await writeFile(article, (await readFile(article, "utf8")).replace("Primeiro artigo", "Primeira edição"));
        const site = path.join(contentDir, "site.yaml");
        await writeFile(site, await readFile(site, "utf8"));
        expect((await builder.update([article, site], writer)).ok).toBe(true);
        expect(writer.text("primeiro.html")).toContain("Primeira edição");
        await writeFile(article, (await readFile(article, "utf8")).replace("Primeira edição", "Segunda edição"));
        expect((await builder.update([article], writer)).ok).toBe(true);
        expect(writer.text("primeiro.html")).toContain("Segunda edição");
      } finally {
        await builder.close();
      }
    } finally {
      await rm(contentDir, { recursive: true, force: true });
      await rm(cacheDir, { recursive: true, force: true });
    }
  }, 30_000);
});
