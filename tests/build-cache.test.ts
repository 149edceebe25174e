/**
 * The persistent cache's store (engine/incremental/build-cache.ts) of a large site: a one-article
 * edit saves what changed, not the whole store (issue 38: at 100,000 articles, reading and saving
 * it whole took ~6 s of a 19 s rebuild), and what the next build reads is what was saved.
 */
import { describe, expect, it } from "vitest";
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
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
});
