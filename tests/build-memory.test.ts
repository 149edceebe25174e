/**
 * What a build holds alive (issue 38: 100,000 articles in bounded memory). At that size every
 * object a build makes for each article or page is megabytes: these tests show the ones that
 * are no longer made, or no longer kept once the last reader is done with them.
 */
import { afterAll, describe, expect, it } from "vitest";
import { cp, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { readdirSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fixture, projectRoot, testCode } from "./helpers.js";
import { SiteBuilder } from "../engine/pipeline/site-builder.js";
import { openSiteCache } from "../engine/pipeline/build-record.js";
import { MemoryWriter } from "../engine/stages/write/writers.js";
import { readRecord, writeRecord, type FolderRecord, type HeldFile, type Slot } from "../engine/stages/write/build-folders.js";
import { loadContent } from "../engine/stages/load/content.js";
import { buildRoutes } from "../engine/stages/routes/routes.js";
import { siteValues } from "../engine/lib/site-values.js";
import { markdownStage, type MarkdownEntry } from "../engine/stages/markdown/markdown-stage.js";
import type { PageEntry } from "../engine/stages/checks/rendered-links.js";
import { theme } from "../templates/theme.js";

const made: string[] = [];
afterAll(() => Promise.all(made.map((dir) => rm(dir, { recursive: true, force: true }))));

/** A copy of the `basic` fixture (with `more` short articles of its own) and a cache folder its first build was saved into. */
async function builtOnce(more = 0): Promise<{ dir: string; cacheDir: string; writer: MemoryWriter; cache: Awaited<ReturnType<typeof openSiteCache>> }> {
  const root = await mkdtemp(path.join(tmpdir(), "build-memory-"));
  made.push(root);
  const dir = path.join(root, "content");
  const cacheDir = path.join(root, "cache");
  await cp(fixture("basic"), dir, { recursive: true });
  for (let i = 0; i < more; i++) await writeFile(path.join(dir, `articles/guia/mais-${i}.md`), `---\ntitle: Mais ${i}\n---\n\nUm artigo curto, o ${i}.\n`);
  const cache = await openSiteCache(cacheDir, testCode());
  const builder = new SiteBuilder({ codeVersion: testCode(), contentDir: dir, projectRoot, theme, cache });
  const writer = new MemoryWriter();
  try {
    expect((await builder.build(writer)).ok).toBe(true);
  } finally {
    await builder.close();
  }
  return { dir, cacheDir, writer, cache };
}

/** Builds `dir` with `builder` into `writer`, and again without a cache: what the build from scratch wrote. */
async function withScratch(builder: SiteBuilder, writer: MemoryWriter, dir: string): Promise<MemoryWriter> {
  const scratch = new SiteBuilder({ codeVersion: testCode(), contentDir: dir, projectRoot, theme });
  const cold = new MemoryWriter();
  try {
    expect((await builder.build(writer)).ok).toBe(true);
    expect((await scratch.build(cold)).ok).toBe(true);
  } finally {
    await builder.close();
    await scratch.close();
  }
  return cold;
}

describe("the bodies the cache kept", () => {
  it("are each held without lists of their own: the bodies that read the same values share one list of them, and one empty list of errors", async () => {
    const { dir, cacheDir } = await builtOnce();
    const cache = await openSiteCache(cacheDir, testCode());
    const content = (await loadContent(dir, theme, { projectRoot, previous: cache.files })).content!;
    const table = buildRoutes(content, theme).value;
    const asked: number[] = [];
    const stage = await markdownStage({ content, table, values: siteValues(content, theme), previous: new Map(), cached: cache.files }, async (articles) => {
      asked.push(articles.length);
      return [];
    });
    // Every body is the cache's: none rendered.
    expect(asked.every((n) => n === 0)).toBe(true);
    const kept = [...stage.value.bodies.values()];
    expect(kept.length).toBe(content.articles.length);
    expect(kept.length).toBeGreaterThan(1);
    // Each still says what it read, and that it has no errors.
    for (const { deps, result } of kept) {
      expect([...result.reads].sort()).toEqual(Object.keys(deps).sort());
      expect(result.errors).toEqual([]);
    }
    // One list for all the bodies that read the same values, one list of no errors for all: never written to.
    const bySignature = new Map<string, Set<unknown>>();
    for (const { deps, result } of kept) {
      const signature = Object.keys(deps).join("\n");
      (bySignature.get(signature) ?? bySignature.set(signature, new Set()).get(signature)!).add(result.reads);
    }
    expect([...bySignature.values()].every((lists) => lists.size === 1)).toBe(true);
    expect(bySignature.size).toBeLessThan(kept.length);
    expect(new Set(kept.map(({ result }) => result.errors)).size).toBe(1);
    expect(Object.isFrozen(kept[0]!.result.errors) && Object.isFrozen(kept[0]!.result.reads)).toBe(true);
  });
});

describe("the bodies a build makes", () => {
  it("are written to the store as they are made and held without their HTML until the save: the pages read them back, and are the pages a build without a cache writes", async () => {
    const root = await mkdtemp(path.join(tmpdir(), "build-memory-"));
    made.push(root);
    const dir = path.join(root, "content");
    const cacheDir = path.join(root, "cache");
    await cp(fixture("basic"), dir, { recursive: true });
    for (let i = 0; i < 6; i++) await writeFile(path.join(dir, `articles/guia/mais-${i}.md`), `---\ntitle: Mais ${i}\n---\n\nUm artigo curto, o ${i}.\n`);
    const cache = await openSiteCache(cacheDir, testCode());
    let held: MarkdownEntry[] = [];
    let written = 0;
    // Once the pages are written and checked, before the store is saved.
    const onPagesWritten = () => {
      held = [...builder["previous"].markdown.values()];
      const packs = readdirSync(cacheDir, { recursive: true, encoding: "utf8" }).filter((name) => /texts\.[0-9a-f]{16}\.pack\.\d+\.tmp$/.test(name));
      written = packs.reduce((sum, name) => sum + statSync(path.join(cacheDir, name)).size, 0);
    };
    const builder = new SiteBuilder({ codeVersion: testCode(), contentDir: dir, projectRoot, theme, cache, onPagesWritten });
    const writer = new MemoryWriter();
    const cold = await withScratch(builder, writer, dir);
    expect(held.length).toBeGreaterThan(6);
    // No body's HTML held; every one of them in the store already, as it was made (the pack is named once the store is saved).
    expect(held.filter((entry) => entry.result.html !== undefined)).toEqual([]);
    const texts = await cache.readTexts(Object.keys(Object.fromEntries(cache.files)));
    expect(texts.size).toBe(held.length);
    expect(written).toBe([...texts.values()].reduce((sum, text) => sum + Buffer.byteLength(text), 0));
    expect(writer.files).toEqual(cold.files);
  });

  it("hold one value for what the bodies made hold alike (each came from its thread as a copy of its own): an empty list, what they read and its hashes, frozen", async () => {
    const root = await mkdtemp(path.join(tmpdir(), "build-memory-"));
    made.push(root);
    const dir = path.join(root, "content");
    await cp(fixture("basic"), dir, { recursive: true });
    for (let i = 0; i < 6; i++) await writeFile(path.join(dir, `articles/guia/mais-${i}.md`), `---\ntitle: Mais ${i}\n---\n\nUm artigo curto, o ${i}.\n`);
    const builder = new SiteBuilder({ codeVersion: testCode(), contentDir: dir, projectRoot, theme, cache: await openSiteCache(path.join(root, "cache"), testCode()), threads: 2 });
    try {
      expect((await builder.build(new MemoryWriter())).ok).toBe(true);
      const short = [...builder["previous"].markdown].filter(([file]) => file.includes("/mais-")).map(([, entry]) => entry);
      expect(short.length).toBe(6);
      // Each short body has no heading, link, image, warning or error, and read the same values as the others.
      for (const field of ["headings", "links", "images", "warnings", "errors"] as const) {
        expect(short.map((entry) => entry.result[field])).toEqual(short.map(() => []));
        expect(new Set(short.map((entry) => entry.result[field])).size).toBe(1);
        expect(Object.isFrozen(short[0]!.result[field])).toBe(true);
      }
      expect(new Set(short.map((entry) => entry.result.reads)).size).toBe(1);
      expect(new Set(short.map((entry) => entry.deps)).size).toBe(1);
      expect(Object.isFrozen(short[0]!.deps) && Object.isFrozen(short[0]!.result.reads)).toBe(true);
      // A body with headings holds its own.
      expect([...builder["previous"].markdown.values()].some((entry) => entry.result.headings.length > 0 && !Object.isFrozen(entry.result.headings))).toBe(true);
    } finally {
      await builder.close();
    }
  });
});

describe("the pages the cache kept", () => {
  it("are taken without reading what each one read: a one-article edit reads the values of the pages it renders again only", async () => {
    const { dir, cacheDir, writer } = await builtOnce(6);
    const file = path.join(dir, "articles/guia/mais-2.md");
    await writeFile(file, `${await readFile(file, "utf8")}\nUma frase a mais.\n`);
    const cache = await openSiteCache(cacheDir, testCode());
    const record = cache.lastRecord().pages;
    const routes = Object.keys(record);
    let read: string[] = [];
    // Once the pages are written and checked, before the store is saved (which reads the whole shard it writes again).
    const onPagesWritten = () => (read = routes.filter((route) => record[route]!.deps !== undefined));
    const builder = new SiteBuilder({ codeVersion: testCode(), contentDir: dir, projectRoot, theme, cache, onPagesWritten });
    try {
      const result = await builder.build(writer);
      expect(result.ok).toBe(true);
      if (!result.ok) return;
      // Some pages taken as they were, some rendered again: only those had their values read.
      expect(result.rendered).toBeGreaterThan(0);
      expect(result.rendered).toBeLessThan(routes.length);
      expect(read.length).toBeLessThanOrEqual(result.rendered);
      expect(read).toContain("/guia/mais-2");
    } finally {
      await builder.close();
    }
  });
});

describe("a page taken on its sum", () => {
  // A guard of the sums' completeness (passes before and after): each edit, built by a new builder
  // over the cache folder as `npm run build` does (every kept page taken on its sum), writes the
  // pages a build from scratch writes.
  it("is rendered again after an edit to any value it read: a data file, a site setting, a body, a title (listings, cards)", async () => {
    const { dir, cacheDir, writer } = await builtOnce(6);
    const edits: [string, (text: string) => string][] = [
      ["data/tools.json", (text) => text.replace("Obsidian", "Obsidiana")],
      ["site.yaml", (text) => text.replace("name: Café com a Cris", "name: Café com a Cristina")],
      ["articles/guia/mais-1.md", (text) => `${text}\nMais uma frase.\n`],
      ["articles/guia/mais-3.md", (text) => text.replace("title: Mais 3", "title: Mais três")],
    ];
    const pages = (files: ReadonlyMap<string, string | Uint8Array>) => new Map([...files].filter(([file]) => file.endsWith(".html")).map(([file, html]) => [file, String(html)]));
    for (const [file, edit] of edits) {
      const at = path.join(dir, file);
      const before = await readFile(at, "utf8");
      expect(edit(before)).not.toBe(before);
      await writeFile(at, edit(before));
      const cache = await openSiteCache(cacheDir, testCode());
      // Every page of the record read without what it read.
      expect(Object.values(cache.lastRecord().pages).every((entry) => entry.deps === undefined && entry.sum !== undefined)).toBe(true);
      const cold = await withScratch(new SiteBuilder({ codeVersion: testCode(), contentDir: dir, projectRoot, theme, cache }), writer, dir);
      expect(pages(writer.files)).toEqual(pages(cold.files));
    }
  });
});

describe("the pages' records a build makes", () => {
  it("hold what a link to the page loses when shared, said, for the pages that lose some, not every page's title and description", async () => {
    const { cache, dir } = await builtOnce(6);
    const long = "Um título longo demais para caber inteiro no cartão que o X mostra quando alguém compartilha";
    await writeFile(path.join(dir, "articles/guia/longo.md"), `---\ntitle: ${long}\n---\n\nUm artigo de título longo.\n`);
    const builder = new SiteBuilder({ codeVersion: testCode(), contentDir: dir, projectRoot, theme, cache });
    try {
      const result = await builder.build(new MemoryWriter());
      expect(result.ok).toBe(true);
      const pages = cache.lastRecord().pages as Record<string, PageEntry & { share?: unknown }>;
      expect(Object.values(pages).filter((page) => page.share !== undefined)).toEqual([]);
      const says = Object.entries(pages).flatMap(([route, page]) => (page.shareSays === undefined ? [] : [[route, page.shareSays]]));
      // The long title's page, and what the build said of it.
      expect(says.map(([route]) => route)).toContain("/guia/longo");
      expect(says.length).toBeLessThan(Object.keys(pages).length / 2);
      for (const [route, message] of says) expect(result.warnings.map((w) => w.message), route).toContain(message);
    } finally {
      await builder.close();
    }
  });

  it("say what each page read with its own route, card and body written relative to it: the pages of articles that read alike name the same ids, and none names its own path", async () => {
    const { cache } = await builtOnce(6);
    const pages = cache.lastRecord().pages;
    const short = Array.from({ length: 6 }, (_, i) => pages[`/guia/mais-${i}`]!);
    const keys = short.map((page) => Object.keys(page.deps).join(" "));
    expect(new Set(keys).size).toBe(1);
    expect(keys[0]).toContain("body:@");
    for (const [i, page] of short.entries()) expect(Object.keys(page.deps).filter((id) => id.includes(`mais-${i}`))).toEqual([]);
    // What they read is what they list (`reads`), and each page's own hashes are its own.
    expect(short.every((page) => page.reads!.join(" ") === keys[0])).toBe(true);
    expect(new Set(short.map((page) => page.deps["route:~"])).size).toBe(6);
  });

  it("hold one list of links, ids, files and scripts for the pages that have the same (each page's came from its thread as a copy of its own), frozen", async () => {
    const { cache } = await builtOnce(6);
    // The record this build made, in memory (not read back from the store, whose shards hold each list once).
    const pages = Object.values(cache.lastRecord().pages) as PageEntry[];
    expect(pages.length).toBeGreaterThan(6);
    for (const field of ["links", "ids", "files", "scripts"] as const) {
      const byText = new Map<string, unknown[]>();
      for (const page of pages) {
        const list = page[field];
        if (list === undefined) continue;
        const same = byText.get(JSON.stringify(list));
        if (same) expect(list, field).toBe(same);
        else byText.set(JSON.stringify(list), list);
        expect(Object.isFrozen(list), field).toBe(true);
      }
      // Some pages have the same (the six short articles load the same files and scripts, and link alike).
      expect(byText.size, field).toBeLessThan(pages.length);
    }
  });
});

describe("a builder's last run (`npm run build` makes one)", () => {
  it("keeps nothing only a next run would read: the editorial rules' state is let go once the checks have what they found, where a run that may be followed keeps it", async () => {
    const { dir, cacheDir } = await builtOnce(2);
    // A rule for the state to be of.
    await writeFile(path.join(dir, "rules.yaml"), 'grafia:\n  kind: substitution\n  files: ["articles/**"]\n  message: "escreva “{use}”, não “{found}”"\n  swap:\n    on-line: online\n');
    const states: Record<string, unknown> = {};
    for (const last of [false, true]) {
      const builder: SiteBuilder = new SiteBuilder({
        codeVersion: testCode(),
        contentDir: dir,
        projectRoot,
        theme,
        cache: await openSiteCache(cacheDir, testCode()),
        // While the pages are written: what the builder holds for its next run.
        onPagesWritten: () => (states[String(last)] = builder["previous"].ruleState),
      });
      try {
        expect((await builder.build(new MemoryWriter(), { last })).ok).toBe(true);
      } finally {
        await builder.close();
      }
    }
    expect(states.false).toBeDefined();
    expect(states.true).toBeUndefined();
  });
});

describe("the build folders' records", () => {
  it("hold a page that both folders hold as one build left it (linked) as one value, and a page each holds its own way as two", async () => {
    const builds = await mkdtemp(path.join(tmpdir(), "build-memory-folders-"));
    made.push(builds);
    const held = (hash: string, ino: number): HeldFile => ({ hash, size: 100, mtimeMs: 1764460800000.5, ino });
    const record = (slot: Slot, files: [string, HeldFile][]): FolderRecord => ({ slot, id: `id-${slot}`, generation: 1, complete: true, dir: { dev: 1, ino: slot === "a" ? 1 : 2 }, files: new Map(files) });
    await writeRecord(builds, record("a", [["index.html", held("h1", 10)], ["guia/a.html", held("h2", 11)], ["guia/b.html", held("h3", 12)]]));
    await writeRecord(builds, record("b", [["index.html", held("h1", 10)], ["guia/a.html", held("h2", 21)], ["guia/b.html", held("h4", 22)]]));
    const a = (await readRecord(builds, "a"))!;
    const b = (await readRecord(builds, "b", a.files))!;
    expect(b.files.get("index.html")).toBe(a.files.get("index.html"));
    expect(b.files.get("guia/a.html")).toEqual(held("h2", 21));
    expect(b.files.get("guia/b.html")).toEqual(held("h4", 22));
    expect(a.files.get("guia/a.html")).toEqual(held("h2", 11));
  });
});
