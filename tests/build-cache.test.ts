/**
 * The persistent cache's store (engine/incremental/build-cache.ts) of a large site: a one-article
 * edit saves what changed, not the whole store (issue 38: at 100,000 articles, reading and saving
 * it whole took ~6 s of a 19 s rebuild), and what the next build reads is what was saved.
 */
import { describe, expect, it, vi } from "vitest";
import { mkdtemp, open as fsOpen, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { createHash } from "node:crypto";
import path from "node:path";
import { isDeepStrictEqual } from "node:util";
import { BuildCache, type CachedBuild } from "../engine/incremental/build-cache.js";

interface Entry {
  sourceHash: string;
  html: string;
}
interface Build extends CachedBuild {
  pages: Record<string, { deps: string; size: number }>;
}

const ARTICLES = 5000;
const empty = (): Build => ({ pages: {}, media: [] });
const open = (dir: string) => BuildCache.open<Entry, Build>(dir, "code-1", empty(), { keyed: ["pages"] });
const file = (i: number) => `../content/articles/${i}.md`;

/** Each file of the store, by name: its inode and size (a file written again, aside and renamed, has a new inode). */
async function files(dir: string): Promise<Map<string, { ino: number; size: number }>> {
  const found = new Map<string, { ino: number; size: number }>();
  for (const name of await readdir(dir)) {
    const s = await stat(path.join(dir, name));
    found.set(name, { ino: s.ino, size: s.size });
  }
  return found;
}

/** The cache of a site of `ARTICLES` articles, saved once. */
async function savedSite() {
  const dir = await mkdtemp(path.join(tmpdir(), "cafe-store-"));
  const cache = await open(dir);
  cache.replace(new Map(Array.from({ length: ARTICLES }, (_, i) => [file(i), { sourceHash: `h${i}`, html: `<p>${"texto ".repeat(40)}${i}</p>` }])));
  const pages: Build["pages"] = {};
  for (let i = 0; i < ARTICLES; i++) pages[`/${i}`] = { deps: `d${i}`, size: 1000 + i };
  cache.record({ output: "out-1", pages, media: [] });
  await cache.save();
  return dir;
}


/** The files of the store in `dir`: its store.json and the shards and packs it names (the store it replaced keeps its own until the next save). */
async function storeFiles(dir: string): Promise<string[]> {
  const store = JSON.parse(await readFile(path.join(dir, "store.json"), "utf8")) as { parts: Record<string, { names: string[] }>; packs: Record<string, number> };
  return ["store.json", ...Object.values(store.parts).flatMap((part) => part.names), ...Object.keys(store.packs)];
}

/** A page whose `deps` and `links` are kept in the late shards; the store of such pages, as two builds of one site open it. */
interface LatePage { deps: string; size: number; links?: string[] }
const openLate = (dir: string) => BuildCache.open<Entry, CachedBuild & { pages: Record<string, LatePage> }>(dir, "code-1", empty(), { keyed: ["pages"], late: { pages: ["deps", "links"] } });
const latePage = (i: number, edit = ""): LatePage => ({ deps: `d${i}${edit}`, size: i, links: [`/${i + 1}`] });

describe("the cache's store of a site of 5000 articles", () => {
  it("after a one-article edit, saves the few entries that changed without writing the rest again, and reads back every entry", async () => {
    const dir = await savedSite();
    try {
      const before = await files(dir);
      const total = [...before.values()].reduce((sum, f) => sum + f.size, 0);

      // The next build: one article's entry and its page are new, every other value is the one read.
      const cache = await open(dir);
      expect(cache.files.size).toBe(ARTICLES);
      cache.replace(new Map([[file(7), { sourceHash: "h7-edited", html: "<p>editado</p>" }]]));
      const last = cache.lastRecord();
      cache.record({ output: "out-2", pages: { ...last.pages, "/7": { deps: "d7-edited", size: 14 } }, media: [] });
      await cache.save();

      const after = await files(dir);
      const written = [...after].filter(([name, f]) => before.get(name)?.ino !== f.ino).reduce((sum, [, f]) => sum + f.size, 0);
      // A shard of each part changed (of 8 at this size), and store.json: about an eighth, where a save wrote all of it.
      expect(written).toBeLessThan(total / 5);

      const again = await open(dir);
      expect(again.files.size).toBe(ARTICLES);
      expect(again.files.get(file(7))).toEqual({ sourceHash: "h7-edited", html: "<p>editado</p>" });
      expect(again.files.get(file(8))).toEqual({ sourceHash: "h8", html: `<p>${"texto ".repeat(40)}8</p>` });
      const record = again.lastRecord();
      expect(record.output).toBe("out-2");
      expect(Object.keys(record.pages)).toHaveLength(ARTICLES);
      expect(record.pages["/7"]).toEqual({ deps: "d7-edited", size: 14 });
      expect(record.pages["/8"]).toEqual({ deps: "d8", size: 1008 });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("a save stopped after writing some of its shards (as a kill stops it) leaves the last store whole, read back entry by entry", async () => {
    const dir = await savedSite();
    try {
      const cache = await open(dir);
      // Every file's entry changes (each of its shards is written again), and a page's record
      // cannot be encoded: the save stops there, after the files' shards are written.
      cache.replace(new Map(Array.from({ length: ARTICLES }, (_, i) => [file(i), { sourceHash: `h${i}-edited`, html: "<p>editado</p>" }])));
      const last = cache.lastRecord();
      cache.record({ output: "out-2", pages: { ...last.pages, "/7": { deps: "d7", size: 10n as unknown as number } }, media: [] });
      await expect(cache.save()).rejects.toThrow(/BigInt/);
      expect((await readdir(dir)).filter((name) => name.startsWith("files-")).length).toBeGreaterThan(8);

      const again = await open(dir);
      expect(again.files.size).toBe(ARTICLES);
      expect(again.files.get(file(7))).toEqual({ sourceHash: "h7", html: `<p>${"texto ".repeat(40)}7</p>` });
      expect(again.lastRecord().output).toBe("out-1");
      expect(again.lastRecord().pages["/7"]).toEqual({ deps: "d7", size: 1007 });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("says, before it reads its shards, how many article files it holds at the fewest: a large site's heap is set to grow less before their values fill it (lib/heap.ts)", async () => {
    const dir = await savedSite();
    try {
      const told: number[] = [];
      const cache = await BuildCache.open<Entry, Build>(dir, "code-1", empty(), { keyed: ["pages"], sized: (entries) => told.push(entries) });
      expect(cache.files.size).toBe(ARTICLES);
      // No more entries than it holds, and more than a small site's.
      expect(told.length).toBe(1);
      expect(told[0]).toBeGreaterThan(1000);
      expect(told[0]).toBeLessThanOrEqual(ARTICLES);
      // Told before the shards are read: a store one of whose shards is damaged says it too, then is ignored.
      const shard = (await readdir(dir)).find((name) => name.startsWith("files-"))!;
      await writeFile(path.join(dir, shard), "{}");
      const damaged = await BuildCache.open<Entry, Build>(dir, "code-1", empty(), { keyed: ["pages"], sized: (entries) => told.push(entries) });
      expect(damaged.files.size).toBe(0);
      expect(told.length).toBe(2);
      // A store of a few articles, or none, says nothing.
      const small = await mkdtemp(path.join(tmpdir(), "cafe-store-"));
      const few = await open(small);
      few.replace(new Map([[file(1), { sourceHash: "h1", html: "<p>um</p>" }]]));
      few.record({ pages: {}, media: [] });
      await few.save();
      const sizes: number[] = [];
      await BuildCache.open<Entry, Build>(small, "code-1", empty(), { keyed: ["pages"], sized: (n) => sizes.push(n) });
      await BuildCache.open<Entry, Build>(path.join(small, "none"), "code-1", empty(), { keyed: ["pages"], sized: (n) => sizes.push(n) });
      expect(sizes).toEqual([]);
      await rm(small, { recursive: true, force: true });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("is read as empty when a shard it names is missing, cut short or changed (still JSON): nothing of it is used", async () => {
    for (const harm of ["missing", "cut short", "changed"] as const) {
      const dir = await savedSite();
      try {
        const shard = (await readdir(dir)).find((name) => name !== "store.json" && name.startsWith("pages"))!;
        if (harm === "missing") await rm(path.join(dir, shard));
        else if (harm === "cut short") await writeFile(path.join(dir, shard), '{"/1": {"deps"');
        else await writeFile(path.join(dir, shard), (await readFile(path.join(dir, shard), "utf8")).replace(/"deps":"d(\d+)"/, '"deps":"other$1"'));
        const cache = await open(dir);
        expect(cache.files.size, harm).toBe(0);
        expect(cache.lastRecord().pages, harm).toEqual({});
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    }
  });

  it("is read as empty when a shard, whole by its hash, names a shared value it does not hold (another writer's)", async () => {
    const dir = await savedSite();
    try {
      const storeFile = path.join(dir, "store.json");
      const store = JSON.parse(await readFile(storeFile, "utf8")) as { parts: Record<string, { names: string[] }> };
      const names = store.parts["pages"]!.names;
      const shard = JSON.parse(await readFile(path.join(dir, names[0]!), "utf8")) as { shared: unknown[]; refs: Record<string, string[]>; entries: Record<string, { size: unknown }> };
      const key = Object.keys(shard.entries)[0]!;
      shard.entries[key]!.size = shard.shared.length + 5;
      shard.refs[key] = ["size"];
      const text = JSON.stringify(shard);
      const name = names[0]!.replace(/[0-9a-f]{40}/, createHash("sha1").update(text).digest("hex"));
      await writeFile(path.join(dir, name), text);
      names[0] = name;
      await writeFile(storeFile, JSON.stringify(store));
      const cache = await open(dir);
      expect(cache.ignored).toMatch(/shard of its pages/);
      expect(cache.files.size).toBe(0);
      expect(cache.lastRecord().pages).toEqual({});
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("keeps each entry's text in a pack outside the shards, read back by key: a one-article edit writes its new text only, and reading an entry never decodes the others' texts", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "cafe-store-"));
    try {
      const body = (i: number, edit = "") => `<p>${"corpo ".repeat(40)}${i}${edit} — é</p>`;
      const first = await open(dir);
      first.replace(new Map(Array.from({ length: ARTICLES }, (_, i) => [file(i), { sourceHash: `h${i}`, html: "", text: body(i) }])));
      await first.save();
      const before = await files(dir);
      // The texts are in one pack, none of them in a shard.
      const packs = [...before.keys()].filter((name) => name.endsWith(".pack"));
      expect(packs).toHaveLength(1);
      for (const name of before.keys()) if (name.endsWith(".json")) expect(await readFile(path.join(dir, name), "utf8"), name).not.toContain("corpo");

      const cache = await open(dir);
      expect((await cache.readTexts([file(8), file(4999)])).get(file(8))).toBe(body(8));
      cache.add(new Map([[file(7), { sourceHash: "h7", text: body(7, " editado") }]]));
      await cache.save();
      const after = await files(dir);
      // The pack of every other text is the one written before; the new text is in a pack of its own.
      expect(after.get(packs[0]!)?.ino).toBe(before.get(packs[0]!)?.ino);
      const added = [...after].filter(([name]) => name.endsWith(".pack") && name !== packs[0]);
      expect(added).toHaveLength(1);
      expect(added[0]![1].size).toBe(Buffer.byteLength(body(7, " editado")));

      const again = await open(dir);
      const texts = await again.readTexts([file(7), file(8), "../content/articles/none.md"]);
      expect([...texts]).toEqual([
        [file(7), body(7, " editado")],
        [file(8), body(8)],
      ]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("writes texts to a pack of the process's own as a run makes them, read back before any save; the save names it, a cache let go unsaved leaves nothing, and an edit's text replaces the kept one", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "cafe-store-"));
    try {
      const body = (i: number, edit = "") => `<p>${"corpo ".repeat(40)}${i}${edit} — é</p>`;
      const first = await open(dir);
      const places = (await first.appendTexts(Array.from({ length: ARTICLES }, (_, i) => body(i))))!;
      // Written as they came, read back by their places before anything is saved: under the process's name, which no store names.
      const pending = (await readdir(dir)).filter((name) => name.endsWith(".tmp"));
      expect(pending).toEqual([expect.stringMatching(new RegExp(`^texts\\.[0-9a-f]{16}\\.pack\\.${process.pid}\\.tmp$`))]);
      const read = await first.readTextsAt(new Map([[file(3), places[3]!], [file(4999), places[4999]!]]));
      expect([...read]).toEqual([[file(3), body(3)], [file(4999), body(4999)]]);
      expect(first.readTextAtSync(places[42]!)).toBe(body(42));
      first.replace(new Map(Array.from({ length: ARTICLES }, (_, i) => [file(i), { sourceHash: `h${i}`, html: "" }])));
      first.add(new Map(Array.from({ length: ARTICLES }, (_, i) => [file(i), { sourceHash: `h${i}`, textAt: places[i]! }])));
      // A text made again in the same run, held by the run (the entry's kept place no longer its text).
      first.add(new Map([[file(9), { sourceHash: "h9", text: body(9, " editado") }]]));
      await first.save();
      await first.release();
      // One pack, named by the store; no file of the process's own left.
      expect((await readdir(dir)).filter((name) => name.endsWith(".tmp"))).toEqual([]);
      const again = await open(dir);
      expect(again.files.size).toBe(ARTICLES);
      const texts = await again.readTexts([file(0), file(9), file(4999)]);
      expect(Object.fromEntries(texts)).toEqual({ [file(0)]: body(0), [file(9)]: body(9, " editado"), [file(4999)]: body(4999) });

      // A run whose texts no save names (a build that failed, then stopped): its pack goes with it.
      await again.appendTexts([body(1, " de novo")]);
      expect((await readdir(dir)).filter((name) => name.endsWith(".tmp"))).toHaveLength(1);
      await again.release();
      expect((await readdir(dir)).filter((name) => name.endsWith(".tmp"))).toEqual([]);
      expect((await (await open(dir)).readTexts([file(1)])).get(file(1))).toBe(body(1));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("reads the texts of every page a template edit renders again in a few reads of their pack, not one read a text", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "cafe-store-"));
    const body = (i: number) => `<p>${"corpo ".repeat(40)}${i} — é</p>`;
    const probe = await fsOpen(path.join(tmpdir(), "."), "r");
    const handleProto = Object.getPrototypeOf(probe) as { read: (...args: unknown[]) => unknown };
    await probe.close();
    try {
      const first = await open(dir);
      first.replace(new Map(Array.from({ length: ARTICLES }, (_, i) => [file(i), { sourceHash: `h${i}`, html: "", text: body(i) }])));
      await first.save();
      const cache = await open(dir);
      const reads = vi.spyOn(handleProto, "read");
      // Every text but a few, in another order than the pack's: what a template edit reads.
      const wanted = Array.from({ length: ARTICLES }, (_, i) => file(ARTICLES - 1 - i)).filter((_, i) => i % 97 !== 3);
      const texts = await cache.readTexts(wanted);
      expect(reads.mock.calls.length).toBeLessThanOrEqual(4);
      reads.mockRestore();
      expect(texts.size).toBe(wanted.length);
      for (const key of wanted) expect(texts.get(key)).toBe(body(Number(/(\d+)\.md$/.exec(key)![1])));

      // Large texts (12 MiB in all): read in runs of at most 8 MiB, each text whole.
      const large = (i: number) => `<p>${String(i).repeat(500_000)} — é</p>`;
      const big = await open(dir);
      big.replace(new Map(Array.from({ length: 24 }, (_, i) => [file(i), { sourceHash: `g${i}`, html: "", text: large(i) }])));
      await big.save();
      const bigReads = vi.spyOn(handleProto, "read");
      const bigTexts = await (await open(dir)).readTexts(Array.from({ length: 24 }, (_, i) => file(i)));
      expect(bigReads.mock.calls.length).toBeGreaterThanOrEqual(2);
      expect(bigReads.mock.calls.length).toBeLessThanOrEqual(4);
      bigReads.mockRestore();
      for (let i = 0; i < 24; i++) expect(bigTexts.get(file(i)) === large(i), file(i)).toBe(true);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("merges its packs of texts once there are more than eight, and every text still reads back", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "cafe-store-"));
    try {
      const first = await open(dir);
      first.replace(new Map(Array.from({ length: 100 }, (_, i) => [file(i), { sourceHash: `h${i}`, html: "", text: `<p>${i}</p>` }])));
      await first.save();
      for (let edit = 1; edit <= 12; edit++) {
        const cache = await open(dir);
        cache.add(new Map([[file(edit), { sourceHash: `h${edit}`, text: `<p>${edit} editado</p>` }]]));
        await cache.save();
        // The packs the store names (the store it replaced keeps its own until the next save).
        expect((await storeFiles(dir)).filter((name) => name.endsWith(".pack")).length, `edit ${edit}`).toBeLessThanOrEqual(9);
      }
      const texts = await (await open(dir)).readTexts(Array.from({ length: 100 }, (_, i) => file(i)));
      for (let i = 0; i < 100; i++) expect(texts.get(file(i))).toBe(i >= 1 && i <= 12 ? `<p>${i} editado</p>` : `<p>${i}</p>`);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("reads the values that many articles' entries hold alike inside their parts (a body's reads, its empty lists of headings and links) as one frozen value", async () => {
    interface Body {
      deps: Record<string, string>;
      htmlHash: string;
      headings: string[];
      links: string[];
    }
    type Article = Entry & { markdown: Body; meta: { title: string } };
    const dir = await mkdtemp(path.join(tmpdir(), "cafe-store-"));
    const openArticles = (at: string) => BuildCache.open<Article, Build>(at, "code-1", empty(), { keyed: ["pages"] });
    const body = (i: number): Body => ({ deps: { "code:markdown": "k1" }, htmlHash: `b${i}`, headings: [], links: i % 100 === 0 ? [`/${i}`] : [] });
    const article = (i: number): Article => ({ sourceHash: `h${i}`, html: "", markdown: body(i), meta: { title: `Título ${i}` } });
    try {
      const first = await openArticles(dir);
      const places = await first.appendTexts(Array.from({ length: ARTICLES }, (_, i) => `<p>${i}</p>`));
      first.replace(new Map(Array.from({ length: ARTICLES }, (_, i) => [file(i), { ...article(i), textAt: places![i] }])));
      first.record(empty());
      await first.save();
      const shards = (await readdir(dir)).filter((name) => name.startsWith("files-")).length;

      const read = await openArticles(dir);
      for (const i of [0, 1, 4999]) expect(read.files.get(file(i))).toMatchObject(article(i));
      expect((await read.readTexts([file(0), file(4999)])).get(file(4999))).toBe("<p>4999</p>");
      const entries = [...read.files.values()];
      // One list of reads in each shard, one empty list of headings; each body its own hash, each article its own title.
      expect(new Set(entries.map((e) => e.markdown.deps)).size).toBe(shards);
      expect(new Set(entries.map((e) => e.markdown.headings)).size).toBe(shards);
      expect(new Set(entries.map((e) => e.meta)).size).toBe(ARTICLES);
      expect(Object.isFrozen(entries[1]!.markdown.links)).toBe(true);
      expect(Object.isFrozen(entries[1]!.markdown)).toBe(false);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("reads a value that many entries of a keyed part hold alike (every page's files, an article's findings of nothing) as one frozen value, not a copy an entry", async () => {
    interface Page {
      deps: Record<string, string>;
      size: number;
      files: string[];
      ids: string[];
      share: { title: string };
    }
    const dir = await mkdtemp(path.join(tmpdir(), "cafe-store-"));
    const openPages = (at: string) => BuildCache.open<Entry, CachedBuild & { pages: Record<string, Page> }>(at, "code-1", { pages: {}, media: [] }, { keyed: ["pages"] });
    const page = (i: number): Page => ({ deps: { site: "s1", [`route:/${i}`]: `r${i}` }, size: i, files: ["/styles.css", "/feed.xml"], ids: i % 2 ? ["conteudo", "odd"] : ["conteudo"], share: { title: `Título ${i}` } });
    try {
      const first = await openPages(dir);
      first.record({ pages: Object.fromEntries(Array.from({ length: ARTICLES }, (_, i) => [`/${i}`, page(i)])), media: [] });
      await first.save();
      const shards = (await readdir(dir)).filter((name) => name.startsWith("pages-")).length;

      const pages = (await openPages(dir)).lastRecord().pages;
      for (const i of [0, 1, 4999]) expect(pages[`/${i}`]).toEqual(page(i));
      const read = Object.values(pages);
      // One list of files in each shard, two lists of ids; each page its own deps and share.
      expect(new Set(read.map((p) => p.files)).size).toBe(shards);
      expect(new Set(read.map((p) => p.ids)).size).toBe(2 * shards);
      expect(new Set(read.map((p) => p.share)).size).toBe(ARTICLES);
      expect(new Set(read.map((p) => p.deps)).size).toBe(ARTICLES);
      // A value many entries hold cannot be changed through one of them.
      expect(Object.isFrozen(pages["/1"]!.files)).toBe(true);
      expect(Object.isFrozen(pages["/1"]!.share)).toBe(false);

      // A one-page edit, and the next build reads the same record.
      const cache = await openPages(dir);
      const edited = { ...page(7), files: ["/other.css"], ids: ["conteudo"] };
      cache.record({ pages: { ...cache.lastRecord().pages, "/7": edited }, media: [] });
      await cache.save();
      const again = (await openPages(dir)).lastRecord().pages;
      expect(again["/7"]).toEqual(edited);
      expect(again["/8"]).toEqual(page(8));
      expect(Object.keys(again)).toHaveLength(ARTICLES);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("keeps a page's checked fields (links, ids) apart, read only for the pages a run asks for; a save that rewrites a shard keeps its other pages' fields", async () => {
    interface Page { deps: string; size: number; links?: string[]; ids?: string[] }
    const openLate = (dir: string) => BuildCache.open<Entry, CachedBuild & { pages: Record<string, Page> }>(dir, "code-1", empty(), { keyed: ["pages"], late: { pages: ["links", "ids"] } });
    const page = (i: number): Page => ({ deps: `d${i}`, size: i, links: [`/${i + 1}`], ids: [`id-${i}`] });
    const dir = await mkdtemp(path.join(tmpdir(), "cafe-store-"));
    try {
      const first = await openLate(dir);
      first.record({ pages: Object.fromEntries(Array.from({ length: ARTICLES }, (_, i) => [`/${i}`, page(i)])), media: [] });
      await first.save();

      // Opened: every page's own fields, none's links or ids, until asked.
      const cache = await openLate(dir);
      const pages = cache.lastRecord().pages;
      expect(Object.keys(pages)).toHaveLength(ARTICLES);
      expect(pages["/8"]).toEqual({ deps: "d8", size: 8 });
      await cache.fill("pages", ["/8"]);
      expect(pages["/8"]).toEqual(page(8));
      expect(pages["/9"]).toEqual({ deps: "d9", size: 9 });

      // One page made again; saved; every page read back whole.
      const edited = { deps: "d7-edited", size: 77, links: ["/1"], ids: ["novo"] };
      cache.record({ pages: { ...pages, "/7": edited }, media: [] });
      await cache.save();
      const again = await openLate(dir);
      const all = again.lastRecord().pages;
      await again.fill("pages", Object.keys(all));
      expect(all["/7"]).toEqual(edited);
      // Those of /7's shard too (written again whole: their fields were read into them first).
      expect(Object.entries(all).filter(([route, p]) => route !== "/7" && !isDeepStrictEqual(p, page(Number(route.slice(1)))))).toEqual([]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("lets a build that opened the store read its pages' fields after another build of the site saved a new one (two builds into two folders at once)", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "cafe-store-"));
    try {
      const first = await openLate(dir);
      first.record({ pages: Object.fromEntries(Array.from({ length: ARTICLES }, (_, i) => [`/${i}`, latePage(i)])), media: [] });
      await first.save();
      // This build opens the store; another saves one with every page's fields changed meanwhile.
      const slow = await openLate(dir);
      const other = await openLate(dir);
      other.record({ pages: Object.fromEntries(Array.from({ length: ARTICLES }, (_, i) => [`/${i}`, latePage(i, "-other")])), media: [] });
      await other.save();
      const pages = slow.lastRecord().pages;
      await slow.fill("pages", ["/8"]);
      // What the store this build opened said, not the other's, and no error.
      expect(pages["/8"]).toEqual(latePage(8));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("lets a build that opened the store read its pages' fields and texts after two other builds of the site saved stores of their own, and lets go of what a build no longer running held", async () => {
    const entry = (i: number, edit = ""): Entry & { text: string } => ({ sourceHash: `h${i}${edit}`, html: "", text: `<p>${i}${edit}</p>` });
    const edited = async (dir: string, edit: string) => {
      const other = await openLate(dir);
      other.record({ pages: Object.fromEntries(Array.from({ length: ARTICLES }, (_, i) => [`/${i}`, latePage(i, edit)])), media: [] });
      other.replace(new Map(Array.from({ length: 20 }, (_, i) => [file(i), entry(i, edit)])));
      await other.save();
      await other.release();
    };
    const dir = await mkdtemp(path.join(tmpdir(), "cafe-store-"));
    try {
      const first = await openLate(dir);
      first.record({ pages: Object.fromEntries(Array.from({ length: ARTICLES }, (_, i) => [`/${i}`, latePage(i)])), media: [] });
      first.replace(new Map(Array.from({ length: 20 }, (_, i) => [file(i), entry(i)])));
      await first.save();
      await first.release();
      // This build opens the store; two others save theirs, each with every page and text changed, meanwhile.
      const slow = await openLate(dir);
      await edited(dir, "-second");
      await edited(dir, "-third");
      const pages = slow.lastRecord().pages;
      await slow.fill("pages", ["/8"]);
      // What the store this build opened said, not the others', and no error.
      expect(pages["/8"]).toEqual(latePage(8));
      expect(await slow.readTexts([file(3)])).toEqual(new Map([[file(3), "<p>3</p>"]]));
      await slow.release();
      // A process no longer running (a build killed before it let go) holds nothing: the next save removes its claim, and the save after it what only it read.
      await writeFile(path.join(dir, "0123456789abcdef.lease"), JSON.stringify({ pid: 2 ** 22 + 12345, names: await storeFiles(dir) }));
      await edited(dir, "-fourth");
      const fourth = await storeFiles(dir);
      await edited(dir, "-fifth");
      const left = await readdir(dir);
      expect(left.filter((name) => name.endsWith(".lease"))).toEqual([]);
      const named = new Set([...(await storeFiles(dir)), ...fourth]);
      expect(left.filter((name) => !named.has(name))).toEqual([]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("through a run of edits writes only the shards holding what changed, and each store read back is the one a save of every shard writes, byte for byte", async () => {
    interface Page { deps: string; size: number; links?: string[] }
    type LateBuild = CachedBuild & { pages: Record<string, Page> };
    const options = { keyed: ["pages"], late: { pages: ["links"] } };
    const openLate = (dir: string, read = true) => BuildCache.open<Entry, LateBuild>(dir, "code-1", empty(), { ...options, read });
    const page = (i: number, edit = ""): Page => ({ deps: `d${i}${edit}`, size: i, links: [`/${i + 1}${edit}`] });
    const entry = (i: number, edit = ""): Entry => ({ sourceHash: `h${i}${edit}`, html: `<p>${i}${edit}</p>` });
    /** Every file of a store, by name, with its text. */
    const texts = async (dir: string) => new Map(await Promise.all((await storeFiles(dir)).sort().map(async (name) => [name, await readFile(path.join(dir, name), "utf8")] as const)));
    /** The store read from `dir` saved whole by a cache that read nothing: every shard made from its entries. */
    async function savedWhole(dir: string) {
      const read = await openLate(dir);
      const pages = read.lastRecord().pages;
      await read.fill("pages", Object.keys(pages));
      const cold = path.join(dir, "..", `${path.basename(dir)}-whole`);
      const whole = await openLate(cold, false);
      whole.replace(read.files);
      whole.record(read.lastRecord());
      await whole.save();
      await read.release();
      try {
        return await texts(cold);
      } finally {
        await rm(cold, { recursive: true, force: true });
      }
    }
    const root = await mkdtemp(path.join(tmpdir(), "cafe-store-"));
    const dir = path.join(root, "store");
    /** One build: its changes made to the cache read from the store, then saved; the names of the files it wrote. */
    async function edit(change: (cache: BuildCache<Entry, LateBuild>, pages: Record<string, Page>) => void) {
      const before = await files(dir);
      const cache = await openLate(dir);
      const pages = { ...cache.lastRecord().pages };
      change(cache, pages);
      cache.record({ pages, media: [] });
      await cache.save();
      // The build ends: its claim on the store it read is gone with it.
      await cache.release();
      const after = await files(dir);
      return [...after].filter(([name, f]) => name !== "store.json" && before.get(name)?.ino !== f.ino).map(([name]) => name.replace(/\.[0-9a-f]{40}\.json$/, ""));
    }
    try {
      const first = await openLate(dir);
      first.replace(new Map(Array.from({ length: ARTICLES }, (_, i) => [file(i), entry(i)])));
      first.record({ pages: Object.fromEntries(Array.from({ length: ARTICLES }, (_, i) => [`/${i}`, page(i)])), media: [] });
      await first.save();
      await first.release();

      // One article edited: its entry's shard, its page's and that page's late fields', nothing else.
      const one = await edit((cache, pages) => {
        cache.replace(new Map([[file(7), entry(7, "-edited")]]));
        pages["/7"] = page(7, "-edited");
      });
      expect(one).toHaveLength(3);
      expect(one.filter((name) => name.startsWith("files-"))).toHaveLength(1);
      expect(one.filter((name) => name.startsWith("pages-"))).toHaveLength(1);
      expect(one.filter((name) => name.startsWith("pages.late-"))).toEqual([one.find((name) => name.startsWith("pages-"))!.replace("pages", "pages.late")]);
      expect(await texts(dir)).toEqual(await savedWhole(dir));

      // An article added, a page removed and one added: the shards holding them.
      const some = await edit((cache, pages) => {
        cache.replace(new Map([[file(ARTICLES), entry(ARTICLES)]]));
        delete pages["/9"];
        pages[`/${ARTICLES}`] = page(ARTICLES);
      });
      expect(some.filter((name) => name.startsWith("files-"))).toHaveLength(1);
      expect(some.filter((name) => name.startsWith("pages-")).length).toBeGreaterThanOrEqual(1);
      expect(some.filter((name) => name.startsWith("pages-")).length).toBeLessThanOrEqual(2);
      expect(await texts(dir)).toEqual(await savedWhole(dir));

      // Nothing changed: no shard written.
      expect(await edit(() => {})).toEqual([]);
      expect(await texts(dir)).toEqual(await savedWhole(dir));

      // Enough pages added that the part is kept in more shards: every one of them made again.
      const grown = await edit((_, pages) => {
        for (let i = ARTICLES + 1; i < 9000; i++) pages[`/${i}`] = page(i);
      });
      expect(grown.filter((name) => name.startsWith("pages-"))).toHaveLength(16);
      expect(grown.filter((name) => name.startsWith("files-"))).toHaveLength(0);
      expect(await texts(dir)).toEqual(await savedWhole(dir));
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });

  it("is read as empty when a pack of texts is missing or cut short", async () => {
    for (const harm of ["missing", "cut short"] as const) {
      const dir = await mkdtemp(path.join(tmpdir(), "cafe-store-"));
      try {
        const first = await open(dir);
        first.replace(new Map(Array.from({ length: 10 }, (_, i) => [file(i), { sourceHash: `h${i}`, html: "", text: `<p>${i}</p>` }])));
        await first.save();
        const pack = (await readdir(dir)).find((name) => name.endsWith(".pack"))!;
        if (harm === "missing") await rm(path.join(dir, pack));
        else await writeFile(path.join(dir, pack), "<p>0</p>");
        expect((await open(dir)).files.size, harm).toBe(0);
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    }
  });
});
