/**
 * Social cards: every page of the `images` fixture gets a 1200×630 PNG drawn from the
 * theme's component, named in its Open Graph meta; they are drawn once per version (the
 * cache) and not at all when the site turns them off.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { cp, mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import sharp from "sharp";
import { createElement } from "react";
import { SiteBuilder } from "../engine/pipeline/site-builder.js";
import { MediaCache } from "../engine/incremental/media-cache.js";
import { openSiteCache } from "../engine/pipeline/build-record.js";
import { MemoryWriter } from "../engine/stages/write/writers.js";
import { fixture, parseHtml, projectRoot, testCode } from "./helpers.js";
import { theme } from "../templates/theme.js";
import { drawHere, plainGradients } from "../engine/stages/cards/cards.js";

const SITE = "https://cafecomacris.placeholder.invalid";

async function copy(): Promise<{ content: string; public: string }> {
  const dir = await mkdtemp(path.join(tmpdir(), "cafe-cards-"));
  await cp(fixture("images"), dir, { recursive: true });
  return { content: path.join(dir, "content"), public: path.join(dir, "public") };
}

async function build(dir: { content: string; public: string }) {
  const writer = new MemoryWriter();
  const result = await new SiteBuilder({ codeVersion: testCode(), contentDir: dir.content, projectRoot, theme, publicDir: dir.public }).build(writer);
  expect(result.errors).toEqual([]);
  return { ...result, writer };
}

afterEach(() => vi.restoreAllMocks());

describe("social cards", () => {
  it("gives every page a 1200×630 PNG card in its Open Graph meta", async () => {
    const site = await build({ content: path.join(fixture("images"), "content"), public: path.join(fixture("images"), "public") });
    expect(site.routes).toHaveLength(4);
    for (const route of site.routes) {
      const doc = parseHtml(site.writer.text(route.outFile));
      const meta = (property: string) => doc.querySelector(`meta[property="${property}"]`)?.getAttribute("content");
      const url = meta("og:image")!;
      expect(url).toMatch(new RegExp(`^${SITE}/assets/cards/[a-z0-9-]+-[0-9a-f]{10}\\.png$`));
      expect(meta("og:image:width")).toBe("1200");
      expect(meta("og:image:height")).toBe("630");
      expect(meta("og:image:type")).toBe("image/png");
      expect(doc.querySelector('meta[name="twitter:card"]')?.getAttribute("content")).toBe("summary_large_image");
      const png = site.writer.files.get(url.slice(SITE.length + 1));
      expect(png, url).toBeDefined();
      const decoded = await sharp(png as Uint8Array).metadata();
      expect([decoded.format, decoded.width, decoded.height]).toEqual(["png", 1200, 630]);
    }
    const article = parseHtml(site.writer.text("com-fotos.html"));
    expect(article.querySelector('meta[property="og:image:alt"]')?.getAttribute("content")).toBe("Um café com fotos da equipe — Café com a Cris");
    // One card per page, each its own.
    const cards = [...site.writer.files.keys()].filter((f) => f.startsWith("assets/cards/"));
    expect(cards.map((f) => f.replace(/-[0-9a-f]{10}\.png$/, "")).sort()).toEqual(["assets/cards/404", "assets/cards/com-fotos", "assets/cards/home", "assets/cards/sem-fotos"]);
  }, 60_000);

  it("draws a card once: a rebuild finds it in the cache, a new title draws it again", async () => {
    const dir = await copy();
    const file = path.join(dir.content, "articles/sem-fotos.md");
    // A title no earlier run has drawn.
    const title = `Sem fotos ${Math.random().toString(36).slice(2, 8)}`;
    await writeFile(file, (await readFile(file, "utf8")).replace("title: Sem fotos", `title: ${title}`));
    const put = vi.spyOn(MediaCache.prototype, "put");
    // A card is stored once it is drawn: the stores into the cards' cache count the drawings.
    const cardsDrawn = () => (put.mock.contexts as MediaCache<unknown>[]).filter((cache) => cache.dir.endsWith(`${path.sep}cards`)).length;
    const first = await build(dir);
    expect(cardsDrawn()).toBe(1);
    const second = await build(dir);
    expect(cardsDrawn()).toBe(1);
    expect([...second.writer.files.keys()].filter((f) => f.startsWith("assets/cards/"))).toEqual(
      [...first.writer.files.keys()].filter((f) => f.startsWith("assets/cards/")),
    );
    await writeFile(file, (await readFile(file, "utf8")).replace(`title: ${title}`, `title: ${title} (2)`));
    await build(dir);
    expect(cardsDrawn()).toBe(2);
  }, 60_000);

  it("a new build after a body edit that changes no card's text neither draws nor reads a card: it takes each from the last build", async () => {
    const dir = await copy();
    const cache = await openSiteCache(await mkdtemp(path.join(tmpdir(), "cafe-cards-cache-")), "test");
    const writer = new MemoryWriter();
    const builder = () => new SiteBuilder({ codeVersion: testCode(), contentDir: dir.content, projectRoot, theme, publicDir: dir.public, cache });
    expect((await builder().build(writer)).ok).toBe(true);
    const cardsBefore = [...writer.files.keys()].filter((f) => f.startsWith("assets/cards/")).sort();
    const file = path.join(dir.content, "articles/sem-fotos.md");
    await writeFile(file, `${await readFile(file, "utf8")}\nUm parágrafo a mais.\n`);
    const get = vi.spyOn(MediaCache.prototype, "get");
    const put = vi.spyOn(MediaCache.prototype, "put");
    const onCards = (mock: { contexts: unknown[] }) => (mock.contexts as MediaCache<unknown>[]).filter((c) => c.dir.endsWith(`${path.sep}cards`)).length;
    // A new builder, as a new `npm run build` is: nothing in memory.
    const result = await builder().build(writer);
    expect(result.ok).toBe(true);
    expect(result.rendered).toBeGreaterThan(0);
    expect([onCards(get.mock), onCards(put.mock)]).toEqual([0, 0]);
    expect([...writer.files.keys()].filter((f) => f.startsWith("assets/cards/")).sort()).toEqual(cardsBefore);
    const page = parseHtml(writer.text("sem-fotos.html"));
    expect(page.querySelector('meta[property="og:image"]')?.getAttribute("content")).toMatch(/\/assets\/cards\/sem-fotos-[0-9a-f]{10}\.png$/);
  }, 60_000);

  it("in watch mode, a new title gives the page a new card and removes the old one", async () => {
    const dir = await copy();
    const writer = new MemoryWriter();
    const builder = new SiteBuilder({ codeVersion: testCode(), contentDir: dir.content, projectRoot, theme, publicDir: dir.public });
    expect((await builder.build(writer)).ok).toBe(true);
    const cardOf = () => [...writer.files.keys()].find((f) => f.startsWith("assets/cards/sem-fotos-"))!;
    const old = cardOf();
    const file = path.join(dir.content, "articles/sem-fotos.md");
    await writeFile(file, (await readFile(file, "utf8")).replace("title: Sem fotos", "title: Nenhuma foto"));
    const result = await builder.update([file], writer);
    expect(result.ok).toBe(true);
    expect(cardOf()).not.toBe(old);
    expect(writer.files.has(old)).toBe(false);
    expect(result.changed).toEqual(expect.arrayContaining([old, cardOf(), "sem-fotos.html"]));
    expect(writer.text("sem-fotos.html")).toContain(`${SITE}/${cardOf()}`);
    // The other pages' cards are the same files as before.
    expect(result.changed.filter((f) => f.startsWith("assets/cards/"))).toEqual([old, cardOf()].sort());
  }, 60_000);

  it("in watch mode, a save that changes no card's text does not call the card's component again to name the cards", async () => {
    const dir = await copy();
    const card = theme.socialCard!;
    let calls = 0;
    const counted = { ...theme, socialCard: { ...card, component: (props: Parameters<typeof card.component>[0]) => (calls++, card.component(props)) } };
    const writer = new MemoryWriter();
    const builder = new SiteBuilder({ codeVersion: testCode(), contentDir: dir.content, projectRoot, theme: counted, publicDir: dir.public });
    expect((await builder.build(writer)).ok).toBe(true);
    const cards = () => [...writer.files.keys()].filter((f) => f.startsWith("assets/cards/")).sort();
    const before = cards();
    const file = path.join(dir.content, "articles/sem-fotos.md");
    await writeFile(file, `${await readFile(file, "utf8")}\nUm parágrafo a mais.\n`);
    calls = 0;
    const result = await builder.update([file], writer);
    expect(result.ok).toBe(true);
    expect(result.changed).toEqual(["sem-fotos.html"]);
    expect(calls).toBe(0);
    expect(cards()).toEqual(before);
    expect(writer.text("sem-fotos.html")).toContain(`${SITE}/${before.find((f) => f.startsWith("assets/cards/sem-fotos-"))}`);
  }, 60_000);

  it("names each page's card before it is drawn: the pages are written and checked first, then the cards under those names, then the feed with their lengths", async () => {
    const dir = await copy();
    const file = path.join(dir.content, "articles/sem-fotos.md");
    // A title no earlier run has drawn: this build draws its card.
    await writeFile(file, (await readFile(file, "utf8")).replace("title: Sem fotos", `title: Sem fotos ${Math.random().toString(36).slice(2, 8)}`));
    const writer = new MemoryWriter();
    let early: string[] | undefined;
    const builder = new SiteBuilder({ codeVersion: testCode(), contentDir: dir.content, projectRoot, theme, publicDir: dir.public, onPagesWritten: () => (early = [...writer.files.keys()]) });
    const result = await builder.build(writer);
    expect(result.errors).toEqual([]);
    // Every page was written before any card, and before the feed.
    expect(early).toEqual(expect.arrayContaining(result.routes.map((r) => r.outFile)));
    expect(early!.filter((f) => f.startsWith("assets/cards/") || f === "feed.xml")).toEqual([]);
    const named = parseHtml(writer.text("sem-fotos.html")).querySelector('meta[property="og:image"]')!.getAttribute("content")!;
    const card = writer.files.get(named.slice(SITE.length + 1)) as Uint8Array;
    expect((await sharp(card).metadata()).format).toBe("png");
    expect(writer.text("feed.xml")).toContain(`<enclosure length="${card.length}" type="image/png" url="${named}"/>`);
  }, 60_000);

  it("names a card by what it draws: the same component compiled another way keeps every name, one that draws otherwise changes them", async () => {
    const dir = { content: path.join(fixture("images"), "content"), public: path.join(fixture("images"), "public") };
    const card = theme.socialCard!;
    const urls = async (socialCard: typeof card) => {
      const writer = new MemoryWriter();
      const result = await new SiteBuilder({ codeVersion: testCode(), contentDir: dir.content, projectRoot, theme: { ...theme, socialCard }, publicDir: dir.public }).build(writer);
      expect(result.errors).toEqual([]);
      return result.routes.map((r) => parseHtml(writer.text(r.outFile)).querySelector('meta[property="og:image"]')!.getAttribute("content"));
    };
    const before = await urls(card);
    // The code the command's bundle, tsx or a test runs is written differently: the same card.
    expect(await urls({ ...card, component: (props) => card.component(props) })).toEqual(before);
    // A card that looks otherwise is a new file under a new name (hosts and apps keep a card by its address).
    const other = await urls({ ...card, component: (props) => createElement("div", { style: { display: "flex", width: "100%", height: "100%", background: "#000" } }, card.component(props)) });
    expect(other.filter((url, i) => url === before[i])).toEqual([]);
  }, 60_000);

  it("are not drawn when the site turns them off", async () => {
    const dir = await copy();
    await writeFile(path.join(dir.content, "site.yaml"), `${await readFile(path.join(dir.content, "site.yaml"), "utf8")}\nsocialCards: false\n`);
    const site = await build(dir);
    expect([...site.writer.files.keys()].filter((f) => f.startsWith("assets/cards/"))).toEqual([]);
    const doc = parseHtml(site.writer.text("com-fotos.html"));
    expect(doc.querySelector('meta[property^="og:image"]')).toBeNull();
    expect(doc.querySelector('meta[name="twitter:card"]')?.getAttribute("content")).toBe("summary");
    expect(site.writer.text("feed.xml")).not.toContain("<enclosure");
  });

  it("paints a gradient background without satori's pattern where the pattern is only the gradient, with the same pixels; other patterns are left as they are", async () => {
    const { default: satori } = await import("satori");
    const { Resvg } = await import("@resvg/resvg-js");
    const font = { name: "Inter", weight: 400 as const, data: await readFile(path.join(projectRoot, "node_modules/@fontsource/inter/files/inter-latin-400-normal.woff")) };
    const box = (style: Record<string, unknown>) =>
      satori(createElement("div", { style: { display: "flex", width: "100%", height: "100%", backgroundColor: "#fff", ...style } }, createElement("div", { style: { width: 40, height: 30, margin: 10, backgroundImage: "linear-gradient(90deg, #f00, #00f)" } })), {
        width: 120,
        height: 60,
        fonts: [font],
      });
    const pixels = (svg: string) => new Resvg(svg, { font: { loadSystemFonts: false } }).render().pixels;
    const plain = await box({ backgroundImage: "linear-gradient(135deg, #fffaf5 0%, #3b2417 100%)" });
    expect(plain).toContain("<pattern");
    const painted = plainGradients(plain);
    expect(painted).not.toContain("<pattern");
    expect(Buffer.compare(pixels(painted), pixels(plain))).toBe(0);
    // Tiles smaller than the box repeat, and a box with round corners is a path: both stay patterns.
    for (const style of [{ backgroundImage: "linear-gradient(90deg, #f00, #00f)", backgroundSize: "20px 20px" }, { backgroundImage: "linear-gradient(90deg, #f00, #00f)", borderRadius: 12 }]) {
      const svg = await box(style);
      const outer = svg.match(/<pattern id="satori_pattern_id_0"[^]*?<\/pattern>/)?.[0];
      expect(outer).toBeDefined();
      expect(plainGradients(svg)).toContain(outer);
    }
  });
  it("keeps a card's see-through parts and their colours in its PNG", async () => {
    const { default: satori } = await import("satori");
    const { Resvg } = await import("@resvg/resvg-js");
    const data = await readFile(path.join(projectRoot, "node_modules/@fontsource/inter/files/inter-latin-400-normal.woff"));
    // A half-transparent card with round corners: outside them, nothing; inside, orange at half.
    const card = {
      width: 90,
      height: 40,
      fonts: [{ name: "Inter", source: "@fontsource/inter/files/inter-latin-400-normal.woff", weight: 400 as const }],
      props: () => ({}),
      component: () => createElement("div", { style: { display: "flex", width: "100%", height: "100%", borderRadius: 12, backgroundColor: "rgba(255, 128, 64, 0.5)", color: "#123456", fontSize: 20 } }, "Olá"),
      alt: () => "",
    };
    const drawnCards: Uint8Array[] = [];
    for await (const png of drawHere(card)([{}], [{ name: "Inter", weight: 400, data }])) drawnCards.push(png);
    const { data: pixels, info } = await sharp(drawnCards[0]!).raw().toBuffer({ resolveWithObject: true });
    expect([info.width, info.height, info.channels]).toEqual([90, 40, 4]);
    // What resvg drew, its premultiplied pixels divided back by their alpha: the same colours, to the last level's rounding.
    const drawn = new Resvg(plainGradients(await satori(card.component(), { width: 90, height: 40, fonts: [{ name: "Inter", weight: 400, data }] })), { font: { loadSystemFonts: false } }).render().pixels;
    let worst = 0;
    for (let i = 0; i < drawn.length; i += 4) {
      const alpha = drawn[i + 3]!;
      expect(pixels[i + 3]).toBe(alpha);
      for (let c = 0; c < 3; c++) if (alpha > 0) worst = Math.max(worst, Math.abs(pixels[i + c]! - Math.round((drawn[i + c]! * 255) / alpha)));
    }
    expect(worst).toBeLessThanOrEqual(1);
    expect(pixels.subarray(0, 4)).toEqual(Buffer.from([0, 0, 0, 0]));
    const middle = 4 * (20 * 90 + 5);
    expect([...pixels.subarray(middle, middle + 3)]).toEqual([255, 128, 64]);
    expect(Math.abs(pixels[middle + 3]! - 127.5)).toBe(0.5);
  });
});
