/**
 * A build takes an article the last build parsed on its file's evidence (size, modification and
 * change times, inode: what git's index compares) without reading it (issue 38: at 100,000
 * articles, reading and hashing every file again was an eighth of a one-article edit). A file
 * whose text changed is read again however its times were set; a text a stage needs later is
 * read then, and a file changed meanwhile stops the build rather than mix two texts.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdtemp, readFile, rm, stat, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createHash } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { comparable, editedFixture, projectRoot, testCode } from "./helpers.js";
import { SiteBuilder } from "../engine/pipeline/site-builder.js";
import { openSiteCache } from "../engine/pipeline/build-record.js";
import { MemoryWriter } from "../engine/stages/write/writers.js";
import { articleModel, displayPath, loadArticleFile, loadContent, markdownOf, type ArticleStore } from "../engine/stages/load/content.js";
import { sourceText } from "../engine/lib/source-text.js";
import { ContentError } from "../engine/lib/errors.js";
import { theme } from "../templates/theme.js";
import { inputFingerprint } from "../engine/incremental/fingerprint.js";
import type { StatedFiles } from "../engine/lib/files.js";

/** A command-line build: a new builder over the cache folder (none: a cold build), as `npm run build` opens it. */
async function commandLineBuild(contentDir: string, cacheDir: string | undefined) {
  const writer = new MemoryWriter();
  const builder = new SiteBuilder({ codeVersion: testCode(), contentDir, projectRoot, theme, publishedRoutes: false, cache: cacheDir ? await openSiteCache(cacheDir, testCode()) : undefined });
  try {
    return { ...(await builder.build(writer)), writer };
  } finally {
    await builder.close();
  }
}

/** The site's files, each by the hash of its bytes (a difference names the file). */
const filesOf = (writer: MemoryWriter) => new Map([...writer.files].map(([file, data]) => [file, createHash("sha256").update(comparable(data) ?? "").digest("hex")]));

/** A file's times are kept as evidence only once no write to come can share them (3 s): the fixture's copies are left that long. */
const settle = () => sleep(3200);

/** 2023-11-14, in seconds. */
const WHEN = 1_700_000_000;

describe("an article taken on its file's evidence", () => {
  let dir: string;
  let cacheDir: string;
  beforeAll(async () => {
    dir = await editedFixture("basic", {});
    // A time in whole seconds, which setting it back gives exactly (a fraction of a millisecond may not survive).
    await utimes(path.join(dir, "articles/primeiro.md"), WHEN, WHEN);
    cacheDir = await mkdtemp(path.join(tmpdir(), "cafe-evidence-cache-"));
    await settle();
  }, 20_000);
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
    await rm(cacheDir, { recursive: true, force: true });
  });

  it("is read again when its text changed, even with its size and modification time as they were: the site is a cold build's", async () => {
    const first = await commandLineBuild(dir, cacheDir);
    expect(first.ok).toBe(true);
    const file = path.join(dir, "articles/primeiro.md");
    const before = await stat(file);
    expect(before.mtimeMs).toBe(WHEN * 1000);
    const text = await readFile(file, "utf8");
    // The same length, and the file's times set back (as `touch -r`, a copy that keeps times, or a tool that restores them).
    const edited = text.replace("## Seção inicial", "## Seção INICIAL");
    expect(edited.length).toBe(text.length);
    await writeFile(file, edited);
    await utimes(file, WHEN, WHEN);
    expect((await stat(file)).mtimeMs).toBe(before.mtimeMs);
    expect((await stat(file)).size).toBe(before.size);

    const warm = await commandLineBuild(dir, cacheDir);
    const cold = await commandLineBuild(dir, undefined);
    expect(warm.ok && cold.ok).toBe(true);
    expect(String(cold.writer.files.get("primeiro.html") ?? cold.writer.files.get("primeiro/index.html"))).toContain("Seção INICIAL");
    expect(filesOf(warm.writer)).toEqual(filesOf(cold.writer));
  }, 60_000);

  it("is stat'ed once a build: the load takes the state the inputs' fingerprint found, and a save after that is the next build's", async () => {
    const own = await editedFixture("basic", {});
    const ownCache = await mkdtemp(path.join(tmpdir(), "cafe-evidence-cache-"));
    const file = path.join(own, "articles/primeiro.md");
    const build = async (stated?: StatedFiles) => {
      const writer = new MemoryWriter();
      const builder = new SiteBuilder({ codeVersion: testCode(), contentDir: own, projectRoot, theme, publishedRoutes: false, cache: await openSiteCache(ownCache, testCode()), takeStated: () => stated });
      try {
        const result = await builder.build(writer);
        expect(result.ok).toBe(true);
        return String(writer.files.get("primeiro.html"));
      } finally {
        await builder.close();
      }
    };
    try {
      await utimes(file, WHEN, WHEN);
      await settle();
      expect(await build()).not.toContain("Salvo depois da impressão digital.");
      const inputs = await inputFingerprint(projectRoot, own, [], "{}");
      await writeFile(file, `${await readFile(file, "utf8")}\nSalvo depois da impressão digital.\n`);
      // The build the fingerprint names: the article as it found it (its text is the last build's, by its evidence).
      const stated = inputs.takeStated();
      expect(stated?.files.get(file)?.mtimeMs).toBe(WHEN * 1000);
      expect(inputs.takeStated()).toBeUndefined();
      expect(await build(stated)).not.toContain("Salvo depois da impressão digital.");
      // The next build stats it: the save is built.
      expect(await build()).toContain("Salvo depois da impressão digital.");
    } finally {
      await rm(own, { recursive: true, force: true });
      await rm(ownCache, { recursive: true, force: true });
    }
  }, 60_000);

  it("has its text read when a stage needs it, and a file changed since stops with its name and what to do", async () => {
    const file = path.join(dir, "articles/guia/so-titulo.md");
    const model = articleModel(theme);
    const display = displayPath(projectRoot);
    const articles = path.join(dir, "articles");
    // The first load reads it and keeps its evidence; the next takes it on that evidence.
    const store: ArticleStore = new Map();
    const read = loadArticleFile(articles, file, model, display, undefined, store);
    // Read, it keeps no copy of its text either (issue 38: at 100,000 articles the texts were ~0.4 GB of a cold build's peak, in both threads).
    if (!read || !("article" in read)) throw new Error("not loaded");
    expect(read.article.source).toBeUndefined();
    expect(read.article.meta.title).toBe("Só título");
    expect(store.get(display(file))?.seen).toBeTypeOf("string");
    const taken = loadArticleFile(articles, file, model, display, store, new Map());
    if (!taken || !("article" in taken)) throw new Error("not loaded");
    expect(taken.article.source).toBeUndefined();
    const text = await readFile(file, "utf8");
    expect(sourceText(taken.article)).toBe(text);
    expect(markdownOf(taken.article)).toBe(markdownOf({ ...taken.article, source: text }));

    await writeFile(file, `${text}\nUma linha escrita durante o build.\n`);
    const changed = (() => {
      try {
        sourceText(taken.article);
      } catch (error) {
        return error;
      }
    })();
    expect(changed).toBeInstanceOf(ContentError);
    expect((changed as ContentError).location).toBe(display(file));
    expect((changed as ContentError).message).toMatch(/changed while the site was being built/);
    expect((changed as ContentError).hint).toMatch(/build again/);
    expect(() => markdownOf(taken.article)).toThrow(ContentError);
    // A body made again (a value it reads changed), on a worker thread or here: the change is its error, as plain data.
    const { content } = await loadContent(dir, theme);
    const { renderMarkdown } = await import("../engine/stages/markdown/article-markdown.js");
    const body = renderMarkdown(taken.article, content!, theme);
    expect(body.errors.map((e) => [e.location, e.message])).toEqual([[display(file), "the file changed while the site was being built"]]);
  });
});
