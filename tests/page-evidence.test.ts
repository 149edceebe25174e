/**
 * A one-shot build takes the routes of the pages it keeps on the load's evidence (issue 38): a
 * route whose articles the load took as the last build parsed them, in a route table laid out
 * as the last build's was, has the value its pages recorded, and is not hashed again. Whatever
 * changed, the site is the one a cold build writes; a record without that evidence is checked
 * value by value, as before.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { comparable, editedFixture, projectRoot, testCode } from "./helpers.js";
import { SiteBuilder } from "../engine/pipeline/site-builder.js";
import { openSiteCache } from "../engine/pipeline/build-record.js";
import { LiveWriter, MemoryWriter } from "../engine/stages/write/writers.js";
import { listFiles } from "../engine/lib/files.js";
import { theme } from "../templates/theme.js";

/** A file's times are kept as evidence only once no write to come can share them (3 s). */
const settle = () => sleep(3200);

describe("a one-shot build's kept pages, on the load's evidence", () => {
  let content: string;
  let cacheDir: string;
  let out: string;
  const article = (i: number) => path.join(content, `articles/extra/${i}.md`);
  const edit = (i: number, text: string, title = `Extra ${i}`) => writeFile(article(i), `---\ntitle: ${title}\n---\n\n${text}\n`);
  const options = () => ({ codeVersion: testCode(), contentDir: content, projectRoot, theme, drafts: true });

  /** A build as the command line runs it: a new builder over the store, into the output folder the last one published. */
  async function oneShot(cache = cacheDir) {
    const builder = new SiteBuilder({ ...options(), cache: await openSiteCache(cache, testCode()) });
    try {
      return await builder.build(new LiveWriter(out));
    } finally {
      await builder.close();
    }
  }

  /** The output folder holds what a cold build writes, byte for byte. */
  async function sameAsCold() {
    const cold = new MemoryWriter();
    const builder = new SiteBuilder(options());
    try {
      expect((await builder.build(cold)).ok).toBe(true);
    } finally {
      await builder.close();
    }
    expect(listFiles(out).map((f) => path.relative(out, f).split(path.sep).join("/")).sort()).toEqual([...cold.files.keys()].sort());
    for (const [name, data] of cold.files) expect(comparable(await readFile(path.join(out, name))), name).toEqual(comparable(Buffer.from(data)));
  }

  const pagesOf = (changed: readonly string[]) => changed.filter((f) => f.endsWith(".html")).sort();

  beforeAll(async () => {
    content = await editedFixture("basic", {});
    await mkdir(path.join(content, "articles/extra"));
    for (let i = 0; i < 30; i++) await edit(i, `Texto ${i}.`);
    cacheDir = await mkdtemp(path.join(tmpdir(), "cafe-page-evidence-cache-"));
    out = path.join(await mkdtemp(path.join(tmpdir(), "cafe-page-evidence-out-")), "site");
    await settle();
  }, 20_000);
  afterAll(async () => {
    await rm(content, { recursive: true, force: true });
    await rm(cacheDir, { recursive: true, force: true });
    await rm(path.dirname(out), { recursive: true, force: true });
  });

  it("re-renders an edited article's page alone, without hashing the other pages' routes, and writes what a cold build writes", async () => {
    const first = await oneShot();
    expect(first.ok).toBe(true);
    const pages = first.routes.length;
    expect(pages).toBeGreaterThan(30);
    // Nothing changed: every page kept. Of each page's own values (its route, body and card) its
    // route is not hashed: at most the two others and the few values pages share are.
    const unhashed = (hashed: number | undefined) => expect(hashed).toBeLessThanOrEqual(2 * pages + 10);
    const again = await oneShot();
    expect(pagesOf(again.changed)).toEqual([]);
    expect(again.rendered).toBe(0);
    unhashed(again.hashed);
    await sameAsCold();

    await edit(3, "Texto novo.");
    const edited = await oneShot();
    expect(edited.ok).toBe(true);
    expect(pagesOf(edited.changed)).toEqual(["extra/3.html"]);
    unhashed(edited.hashed);
    await sameAsCold();
  }, 60_000);

  it("re-renders what a cold build would after a setting, a retitled article and a translation removed", async () => {
    await oneShot();
    await settle();
    // A value every page shares: every page made again.
    const site = path.join(content, "site.yaml");
    await writeFile(site, (await readFile(site, "utf8")).replace(/^(\s*button:) .*/m, "$1 Quero receber"));
    const setting = await oneShot();
    expect(setting.ok).toBe(true);
    expect(setting.rendered).toBe(setting.routes.length);
    await sameAsCold();

    // A title, which the listings show.
    await settle();
    await edit(5, "Texto 5.", "Outro título");
    expect((await oneShot()).ok).toBe(true);
    await sameAsCold();

    // A translation removed: the route keeps its path, kind and template, and its main article's
    // text, yet its value changed (the table is laid out otherwise: nothing is vouched for).
    await settle();
    await rm(path.join(content, "articles/primeiro.en.md"));
    const removed = await oneShot();
    expect(removed.ok).toBe(true);
    expect(removed.hashed).toBeGreaterThanOrEqual(removed.routes.length);
    await sameAsCold();
  }, 90_000);

  it("checks every value when the store holds no evidence of the last build's routes", async () => {
    await oneShot();
    await settle();
    // Another store, empty, beside the same output: nothing is taken on evidence.
    const other = await mkdtemp(path.join(tmpdir(), "cafe-page-evidence-other-"));
    try {
      await edit(7, "Texto sete.");
      const fresh = await oneShot(other);
      expect(fresh.ok).toBe(true);
      await sameAsCold();
      // The store as that build left it, then a build with nothing edited: taken on its evidence.
      await settle();
      const warm = await oneShot(other);
      expect(pagesOf(warm.changed)).toEqual([]);
      await sameAsCold();
    } finally {
      await rm(other, { recursive: true, force: true });
    }
  }, 60_000);
});
