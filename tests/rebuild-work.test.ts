/**
 * Work a rebuild of the real site did that no result needed (issue 37, the real site's one-article
 * edit): each found in a CPU profile of `npm run build` after one article was edited. What the
 * author sees is the same; these tests show the work is no longer done.
 */
import { describe, expect, it } from "vitest";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { z } from "zod";
import { editedFixture, fixture, projectRoot, testCode } from "./helpers.js";
import { SiteBuilder } from "../engine/pipeline/site-builder.js";
import { openSiteCache } from "../engine/pipeline/build-record.js";
import { MemoryWriter } from "../engine/stages/write/writers.js";
import { formatWarning } from "../engine/lib/errors.js";
import type { Theme } from "../engine/theme.js";
import { articleModel, loadArticleFile, loadContent, type ArticleStore } from "../engine/stages/load/content.js";
import { checkTheme } from "../engine/theme-check.js";
import { titleLine } from "../engine/stages/checks/checks.js";
import { locate } from "../engine/lib/yaml-source.js";
import { theme } from "../templates/theme.js";
import { poolBeforeLoad } from "../engine/pipeline/threads.js";


/** A command-line build: a new builder over the cache folder (none: no cache), as `npm run build` opens it. */
async function commandLineBuild(dir: string, theme: Theme, cacheDir: string | undefined) {
  const writer = new MemoryWriter();
  const builder = new SiteBuilder({ codeVersion: testCode(), contentDir: dir, projectRoot, theme, cache: cacheDir ? await openSiteCache(cacheDir, testCode()) : undefined });
  try {
    return { ...(await builder.build(writer)), writer };
  } finally {
    await builder.close();
  }
}
describe("a rebuild does no work its result does not need", () => {
  // A guard of what the author reads (the placeholders are now located by the parse site.yaml was
  // loaded with, no longer by a parse of their own each): passes before and after.
  it("site.yaml's placeholder addresses are warned of at the lines their keys are on", async () => {
    const dir = fixture("basic");
    const site = await readFile(path.join(dir, "site.yaml"), "utf8");
    const { warnings } = await loadContent(dir, theme);
    const placeholders = warnings.filter((w) => /is still a placeholder/.test(w.message));
    expect(placeholders.length).toBeGreaterThanOrEqual(2);
    // Each at the line its key is written on.
    const lines = site.split("\n");
    for (const warning of placeholders) {
      const key = /`([^`]+)`/.exec(warning.message)![1]!.split(".").at(-1)!;
      expect(lines[warning.line! - 1]).toMatch(new RegExp(`^\\s*${key}:`));
    }
  });

  it("the theme check of a theme without mistakes does not read where the theme was declared (a stack formatted through the source maps)", () => {
    let read = 0;
    const watched = Object.create(theme, {
      [Symbol.for("cafe-engine.theme.defined-at")]: {
        get: () => {
          read++;
          return undefined;
        },
      },
    });
    expect(checkTheme(watched, path.resolve("."))).toEqual([]);
    expect(read).toBe(0);
    // A mistake still reads it (to name the line of the theme's code).
    const broken = Object.create(watched, { templates: { value: {} } });
    expect(checkTheme(broken, path.resolve(".")).length).toBeGreaterThan(0);
    expect(read).toBeGreaterThan(0);
  });
});

describe("the line of an article's title, for a warning about it (found without parsing the front matter again)", () => {
  const at = (source: string) => titleLine({ file: "x.md", source, format: "front-matter" });
  const parsed = (source: string) => locate({ file: "x.md", source, format: "front-matter" }, ["title"])?.line;

  it("is the line the YAML parser gives, however the title is written", () => {
    const cases = [
      "---\ntitle: Um título\ndate: 2025-01-02\n---\n\nTexto.\n",
      "---\ndate: 2025-01-02\n# title: comentado\ntitle: 'Entre aspas: sim'\n---\n\ntitle: no corpo\n",
      "---\ndate: 2025-01-02\ntitle:\n  Na linha seguinte\n---\n\nTexto.\n",
      "---\ntitle: >-\n  Em bloco,\n  dobrado\n---\n\nTexto.\n",
      '---\n"title": Chave entre aspas\n---\n\nTexto.\n',
      "---\r\ntags: [a, b]\r\ntitle: Com CRLF\r\n---\r\n\r\nTexto.\r\n",
    ];
    for (const source of cases) expect(at(source), source).toBe(parsed(source));
  });

  it("is the parser's line for every article of the real site", async () => {
    const { content } = await loadContent(path.join(projectRoot, "content"), theme);
    for (const article of content!.articles) expect(titleLine(article), article.file).toBe(locate(article, ["title"])?.line);
  });
});

describe("the worker pool of a rebuild", () => {
  it("a build whose cache holds the articles starts no worker before a stage has enough to hand out (a one-article edit of 100,000 had a worker load the code for nothing)", () => {
    // Cold (a first build, --force, new code): the workers load the code while the content is read.
    expect(poolBeforeLoad({ cachedFiles: 0 })).toBe(true);
    // Warm: started by the stage that has enough entries (a template edit's pages), if any does.
    expect(poolBeforeLoad({ cachedFiles: 100_000 })).toBe(false);
    // --threads N: the pool starts with the builder, as the command says.
    expect(poolBeforeLoad({ cachedFiles: 100_000, asked: 2 })).toBe(true);
  });
});

describe("what a build validated is kept for the next (issue 37: YAML and zod over site.yaml and the collections were 50 ms of a one-article rebuild)", () => {
  /** The blog's theme with every schema of its content counting the values it validates, by file kind. */
  function countingTheme() {
    const counts = { site: 0, collections: 0, frontMatter: 0 };
    type Parse = { safeParse(value: unknown): unknown };
    const counted = (schema: Parse, kind: keyof typeof counts): Parse => ({ safeParse: (value) => (counts[kind]++, schema.safeParse(value)) });
    const collections = Object.fromEntries(Object.entries(theme.collections).map(([name, c]) => [name, { ...c, schema: counted(c.schema, "collections") }]));
    // A front-matter key of its own, read by every article's validation (present or not).
    const frontMatter = { ...theme.frontMatter, contado: z.preprocess((value) => (counts.frontMatter++, value), z.unknown().optional()) };
    const counting = Object.create(theme, { site: { value: counted(theme.site, "site") }, collections: { value: collections }, frontMatter: { value: frontMatter } }) as Theme;
    return { counts, theme: counting };
  }

  it("a body edit validates no settings, collection or front matter again, and warns and builds as a build from scratch does", async () => {
    const dir = await editedFixture("basic", {});
    const cacheDir = await mkdtemp(path.join(tmpdir(), "cafe-kept-sources-"));
    const { counts, theme: counting } = countingTheme();
    const build = (cache = true) => commandLineBuild(dir, counting, cache ? cacheDir : undefined);
    try {
      const first = await build();
      expect(first.ok).toBe(true);
      expect(counts.site).toBe(1);
      expect(counts.collections).toBe(Object.keys(theme.collections).length);
      expect(counts.frontMatter).toBeGreaterThanOrEqual(3);
      const placeholders = first.warnings.filter((w) => /is still a placeholder/.test(w.message)).map(formatWarning);
      expect(placeholders.length).toBeGreaterThanOrEqual(1);

      // One sentence more in an article's body: nothing validated again.
      Object.assign(counts, { site: 0, collections: 0, frontMatter: 0 });
      const article = path.join(dir, "articles/primeiro.md");
      await writeFile(article, `${await readFile(article, "utf8")}\nUma frase a mais, no corpo.\n`);
      const edited = await build();
      expect(edited.ok).toBe(true);
      expect(counts).toEqual({ site: 0, collections: 0, frontMatter: 0 });
      expect(edited.warnings.filter((w) => /is still a placeholder/.test(w.message)).map(formatWarning)).toEqual(placeholders);
      const cold = await build(false);
      expect(edited.warnings.map(formatWarning)).toEqual(cold.warnings.map(formatWarning));
      expect(new Map([...edited.writer.files].map(([file, data]) => [file, Buffer.from(data).toString("base64")]))).toEqual(new Map([...cold.writer.files].map(([file, data]) => [file, Buffer.from(data).toString("base64")])));

      // Its front matter edited, then a setting: each validated again, and only it.
      Object.assign(counts, { site: 0, collections: 0, frontMatter: 0 });
      await writeFile(article, (await readFile(article, "utf8")).replace(/^title: .*$/m, "title: Primeiro artigo, revisto"));
      expect((await build()).ok).toBe(true);
      expect(counts).toEqual({ site: 0, collections: 0, frontMatter: 1 });
      Object.assign(counts, { site: 0, collections: 0, frontMatter: 0 });
      await writeFile(path.join(dir, "site.yaml"), (await readFile(path.join(dir, "site.yaml"), "utf8")).replace("politica-de-privacidade", "politica-nova"));
      const setting = await build();
      expect(counts).toEqual({ site: 1, collections: 0, frontMatter: 0 });
      expect(setting.warnings.map(formatWarning).join("\n")).toContain("politica-nova");
    } finally {
      await rm(cacheDir, { recursive: true, force: true });
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe("an article whose body alone changed keeps its front matter as parsed", () => {
  it("gives the article a parse of its new text gives, however its front matter is closed", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "cafe-head-"));
    const articles = path.join(dir, "articles");
    await mkdir(articles);
    const file = path.join(articles, "x.md");
    const model = articleModel(theme);
    const display = (p: string) => path.relative(dir, p);
    /** Loads the file as a build does, with the store `previous` (the last build's entries); what it parsed goes into `parsed`. */
    const load = (previous: ArticleStore | undefined, parsed: ArticleStore) => loadArticleFile(articles, file, model, display, previous, parsed);
    const cases: [before: string, after: string][] = [
      ["---\ntitle: Um\ndate: 2025-01-02\n---\n\nTexto.\n", "---\ntitle: Um\ndate: 2025-01-02\n---\n\nTexto novo.\n"],
      ["---\r\ntitle: Um\r\ndate: 2025-01-02\r\n---\r\nTexto.\r\n", "---\r\ntitle: Um\r\ndate: 2025-01-02\r\n---\r\n\r\nOutro.\r\n"],
      // No line break after the closing line, then one: gray-matter takes it off the body.
      ["---\ntitle: Um\ndate: 2025-01-02\n---", "---\ntitle: Um\ndate: 2025-01-02\n---\nTexto.\n"],
      // A closing line with more after its dashes, and a body that starts with dashes.
      ["---\ntitle: Um\ndate: 2025-01-02\n----\nTexto.\n", "---\ntitle: Um\ndate: 2025-01-02\n----\n---\nTexto.\n"],
      ["---\ntitle: Um\ndate: 2025-01-02\n---\n---\nTexto.\n", "---\ntitle: Um\ndate: 2025-01-02\n---\n\n---\nTexto.\n"],
    ];
    try {
      for (const [before, after] of cases) {
        await writeFile(file, before);
        const store: ArticleStore = new Map();
        load(undefined, store);
        await writeFile(file, after);
        const fresh = load(undefined, new Map());
        const kept = load(store, new Map());
        expect(kept, JSON.stringify([before, after])).toEqual(fresh);
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe("block data validated is kept for the next build (issue 37: a body edit validated its blocks' data again, 5-16 ms of cold zod)", () => {
  it("a body edit validates no block data again when it is as the last build validated it, and builds as a build from scratch does; data edited is validated again", async () => {
    const dir = await editedFixture("basic", {});
    const cacheDir = await mkdtemp(path.join(tmpdir(), "cafe-kept-blocks-"));
    const counts: Record<string, number> = {};
    type Parse = { safeParse(value: unknown): unknown };
    const counted = (name: string, schema: Parse): Parse => ({ safeParse: (value) => ((counts[name] = (counts[name] ?? 0) + 1), schema.safeParse(value)) });
    const blocks = theme.blocks.map((b) => (b.source.from === "data" ? { ...b, source: { ...b.source, schema: counted(b.name, b.source.schema as Parse) } } : b));
    const counting = Object.create(theme, { blocks: { value: blocks } }) as Theme;
    const build = (cache = true) => commandLineBuild(dir, counting, cache ? cacheDir : undefined);
    const bytes = (files: Map<string, Uint8Array | string>) => new Map([...files].map(([file, data]) => [file, Buffer.from(data).toString("base64")]));
    try {
      expect((await build()).ok).toBe(true);
      // primeiro.md places ::stat-cards and ::hashtags (its front matter's data) and ::tool-table{src="tools"} (a data file).
      expect(counts["stat-cards"]).toBeGreaterThanOrEqual(1);
      expect(counts["tool-table"]).toBeGreaterThanOrEqual(1);

      for (const key of Object.keys(counts)) delete counts[key];
      const article = path.join(dir, "articles/primeiro.md");
      await writeFile(article, `${await readFile(article, "utf8")}\nUma frase a mais, no corpo.\n`);
      const edited = await build();
      expect(edited.ok).toBe(true);
      expect(counts).toEqual({});
      const cold = await build(false);
      expect(bytes(edited.writer.files)).toEqual(bytes(cold.writer.files));

      // The data of a block changed (a data file): validated again, and only it.
      for (const key of Object.keys(counts)) delete counts[key];
      const tools = path.join(dir, "data/tools.json");
      await writeFile(tools, (await readFile(tools, "utf8")).replace("Arquivos Markdown locais.", "Arquivos Markdown locais, sempre."));
      const again = await build();
      expect(again.ok).toBe(true);
      expect(Object.keys(counts)).toEqual(["tool-table"]);
    } finally {
      await rm(cacheDir, { recursive: true, force: true });
      await rm(dir, { recursive: true, force: true });
    }
  });
});
