/**
 * A build from the store (issue 38): what may have changed since the build the store recorded
 * is told by the stages (incremental/since-record.ts), and a page none of whose own values an
 * edit may have changed is taken without hashing them. Whatever the edit, the build writes
 * what a build from scratch writes.
 */
import { afterAll, describe, expect, it } from "vitest";
import { cp, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fixture, projectRoot, testCode } from "./helpers.js";
import { SiteBuilder, type BuildResult } from "../engine/pipeline/site-builder.js";
import { openSiteCache } from "../engine/pipeline/build-record.js";
import { MemoryWriter } from "../engine/stages/write/writers.js";
import { theme } from "../templates/theme.js";
import { loadContent } from "../engine/stages/load/content.js";
import { buildRoutes } from "../engine/stages/routes/routes.js";
import { articlesSince, sinceRecord } from "../engine/incremental/since-record.js";

const made: string[] = [];

/** A site in memory that a failed run leaves as it was, as the output folder of `npm run build` or watch mode is left. */
class LastGoodWriter extends MemoryWriter {
  override async abort() {}
}
afterAll(() => Promise.all(made.map((dir) => rm(dir, { recursive: true, force: true }))));

/** A copy of the `basic` fixture with `more` short articles, and a store: each `build` is a one-shot build from it (a builder of its own, as `npm run build` makes), checked against a build from scratch. */
async function site(more: number) {
  const root = await mkdtemp(path.join(tmpdir(), "since-record-"));
  made.push(root);
  const dir = path.join(root, "content");
  const cacheDir = path.join(root, "cache");
  await cp(fixture("basic"), dir, { recursive: true });
  for (let i = 0; i < more; i++) await writeFile(path.join(dir, `articles/guia/mais-${i}.md`), `---\ntitle: Mais ${i}\n---\n\nUm artigo curto, o ${i}.\n`);
  // Editorial rules: one that reads each article alone, one that reads the articles it links too.
  await writeFile(path.join(dir, "rules.yaml"), "grafia:\n  kind: substitution\n  swap:\n    on-line: online\nsaque:\n  kind: requires\n  when: 'saldo do FGTS'\n  needs: 'saque-aniversário'\n");
  const options = { codeVersion: testCode(), contentDir: dir, projectRoot, theme, publishedRoutes: false as const };
  const writer = new LastGoodWriter();
  /** A one-shot build from the store into the site's output; with `scratch`, also a build without a cache, whose files it must equal. */
  const build = async (scratch = true): Promise<BuildResult> => {
    const builder = new SiteBuilder({ ...options, cache: await openSiteCache(cacheDir, testCode()) });
    try {
      const result = await builder.build(writer);
      expect(result.errors).toEqual([]);
      if (!scratch) return result;
      const cold = new SiteBuilder(options);
      const coldWriter = new MemoryWriter();
      try {
        const scratchResult = await cold.build(coldWriter);
        expect(scratchResult.ok).toBe(true);
        // What the build says: the editorial rules' findings among its warnings.
        expect(result.warnings).toEqual(scratchResult.warnings);
      } finally {
        await cold.close();
      }
      expect([...writer.files.keys()].sort()).toEqual([...coldWriter.files.keys()].sort());
      for (const [file, bytes] of coldWriter.files) expect({ file, bytes: Buffer.from(writer.files.get(file)!).toString() }).toEqual({ file, bytes: Buffer.from(bytes).toString() });
      return result;
    } finally {
      await builder.close();
    }
  };
  const edit = async (file: string, change: (text: string) => string) => {
    const at = path.join(dir, file);
    await writeFile(at, change(await readFile(at, "utf8")));
  };
  return { dir, cacheDir, options, writer, build, edit };
}

describe("a build from the store", () => {
  it("hashes the values of the pages an article's edit may have changed, not of every page, and writes what a build from scratch writes", async () => {
    const { build, edit } = await site(40);
    const first = await build(false);
    const pages = first.routes.length;
    expect(pages).toBeGreaterThan(40);
    await edit("articles/guia/mais-3.md", (text) => `${text}\nUma frase a mais.\n`);
    const edited = await build();
    expect(edited.rendered).toBeLessThan(pages / 2);
    // Not every page's route, card and body hashed to check it (three values a page): the values the pages share, and the few pages the edit may have changed.
    expect(edited.hashed).toBeLessThan(pages);
  }, 120_000);

  it("writes and says what a build from scratch writes and says after edits that change which articles a page shows or what the editorial rules find: a translation gone and back, a route moved, a title, texts the rules speak of, a new article, a deletion", async () => {
    const { build, edit, dir } = await site(3);
    await build(false);
    const english = await readFile(path.join(dir, "articles/primeiro.en.md"), "utf8");
    // The Portuguese page loses its link to the English one, and gets it back.
    await rm(path.join(dir, "articles/primeiro.en.md"));
    await build();
    await writeFile(path.join(dir, "articles/primeiro.en.md"), english);
    await build();
    // An article's route moved by its front matter: its old route is no page's any more.
    await edit("articles/guia/mais-1.md", (text) => text.replace("title: Mais 1\n", "title: Mais 1\nroute: /guia/outro\n"));
    await build();
    // A title (its social card, the lists that show it).
    await edit("articles/guia/mais-2.md", (text) => text.replace("title: Mais 2", "title: Mais dois"));
    await build();
    // What the editorial rules find: in an article edited, and in one that links it (found again while others change; no more once the linked one says what they ask, below).
    await edit("articles/guia/mais-1.md", (text) => `${text}\nUm curso on-line sobre o saldo do FGTS.\n`);
    await build();
    await edit("articles/guia/mais-2.md", (text) => `${text}\nO saldo do FGTS, [aqui](/guia/outro).\n`);
    await build();
    // A new article, then one deleted.
    await writeFile(path.join(dir, "articles/guia/novo.md"), "---\ntitle: Novo\n---\n\nUm artigo novo.\n");
    await build();
    await rm(path.join(dir, "articles/guia/mais-0.md"));
    await build();
    await edit("articles/guia/mais-1.md", (text) => `${text}\nE o saque-aniversário.\n`);
    await build();
  }, 300_000);

  it("vouches for nothing after a run of watch mode that failed and saved the store: an article that run read is not what the store's pages show", async () => {
    const { build, edit, options, cacheDir, writer } = await site(3);
    await build(false);
    // Watch mode: a save edits one article's text and breaks a link in another; the run fails, and the store is saved while idle.
    const dev = new SiteBuilder({ ...options, cache: await openSiteCache(cacheDir, testCode()) });
    try {
      expect((await dev.build(writer)).ok).toBe(true);
      await edit("articles/guia/mais-1.md", (text) => text.replace("Um artigo curto, o 1.", "Um artigo curto, o primeiro."));
      await edit("articles/guia/mais-2.md", (text) => `${text}\nVeja [isto](/nao-existe).\n`);
      const failed = await dev.update([path.join(options.contentDir, "articles/guia/mais-1.md"), path.join(options.contentDir, "articles/guia/mais-2.md")], writer);
      expect(failed.ok).toBe(false);
      await dev.saveCache();
    } finally {
      await dev.close();
    }
    // The link mended: the edited article's body is the store's entry now, made by the run that failed, but the store's pages show its old text.
    await edit("articles/guia/mais-2.md", (text) => text.replace("\nVeja [isto](/nao-existe).\n", ""));
    await build();
  }, 120_000);
});

describe("what may differ since the recorded build", () => {
  /** The `basic` fixture's articles and routes, and the store's entries as a build of them left them. */
  async function recorded() {
    const { content } = await loadContent(fixture("basic"), theme, { projectRoot });
    const table = buildRoutes(content!, theme).value;
    const articles = content!.articles;
    const stored = new Map(articles.map((a) => [a.file, { sourceHash: a.sourceHash, article: { route: a.route } }]));
    const present = new Set(articles.map((a) => a.file));
    const file = (name: string) => articles.find((a) => a.file.endsWith(name))!.file;
    return { articles, table, stored, present, file };
  }

  it("names the articles whose text changed, and the routes of those, of the files gone and of the articles moved, and the route a changed translation is shown on", async () => {
    const { articles, table, stored, present, file } = await recorded();
    const input = { articles, table, stored, present };
    expect(articlesSince(input)).toEqual({ changed: new Set(), routes: new Set() });
    // The English version's text: the page of the route it translates, and the home page, which features that article.
    const english = new Map(stored).set(file("primeiro.en.md"), { sourceHash: "another", article: { route: "/primeiro" } });
    expect(articlesSince({ ...input, stored: english })).toEqual({ changed: new Set([file("primeiro.en.md")]), routes: new Set(["/primeiro", "/"]) });
    // A file gone since: the route it had.
    const gone = new Map(stored).set("content/articles/velho.md", { sourceHash: "old", article: { route: "/velho" } });
    expect(articlesSince({ ...input, stored: gone }).routes).toEqual(new Set(["/velho"]));
    // An article whose route was another: both.
    const moved = new Map(stored).set(file("so-titulo.md"), { ...stored.get(file("so-titulo.md"))!, article: { route: "/guia/antes" } });
    expect(articlesSince({ ...input, stored: moved }).routes).toEqual(new Set(["/guia/antes", "/guia/so-titulo"]));
    // An article the store did not keep: its route.
    const unkept = new Map(stored);
    unkept.delete(file("so-titulo.md"));
    expect(articlesSince({ ...input, stored: unkept })).toEqual({ changed: new Set([file("so-titulo.md")]), routes: new Set(["/guia/so-titulo"]) });
  });

  it("names the bodies made, the routes whose card's key or file is not the recorded one, and vouches for nothing when what every card is made of changed", async () => {
    const { articles, table, stored, present, file } = await recorded();
    const route = (path: string) => table.byPath.get(path)!;
    const wanted = [
      { route: route("/primeiro"), key: "k1", file: "assets/cards/primeiro-1.png" },
      { route: route("/guia/so-titulo"), key: "k2", file: "assets/cards/so-titulo-2.png" },
    ];
    const recordedCards = { k1: { route: "/primeiro", file: "assets/cards/primeiro-1.png", length: 10 }, k3: { route: "/guia/so-titulo", file: "assets/cards/so-titulo-3.png", length: 10 }, k4: { route: "/404", file: "assets/cards/404.png", length: 10 } };
    const same = articlesSince({ articles, table, stored, present });
    const since = sinceRecord(same, [file("primeiro.md")], { wanted, recorded: recordedCards, frame: "f", recordedFrame: "f" });
    expect(since).toEqual({ routes: new Set(), bodies: new Set([file("primeiro.md")]), cards: new Set(["/guia/so-titulo", "/404"]) });
    expect(sinceRecord(same, [], { wanted, recorded: recordedCards, frame: "f", recordedFrame: "g" })).toBeUndefined();
    expect(sinceRecord(same, [], { wanted: [], recorded: {}, frame: "f" })!.cards).toEqual(new Set());
  });
});
