/**
 * Images in articles: the `images` fixture (a cover and three images in the body: a JPEG
 * stored sideways with EXIF orientation and GPS data, a PNG chart, a decorative SVG) built
 * and every file it wrote decoded again; each bad input an author can write; the cache.
 */
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { cp, mkdtemp, readFile, readdir, rm, truncate, writeFile } from "node:fs/promises";
import { crc32, deflateSync } from "node:zlib";
import { tmpdir } from "node:os";
import path from "node:path";
import sharp from "sharp";
import { SiteBuilder, type BuildResult } from "../engine/pipeline/site-builder.js";
import { formatError } from "../engine/lib/errors.js";
import { ImageWork } from "../engine/stages/images/images.js";
import { FolderWriter, MemoryWriter } from "../engine/stages/write/writers.js";
import { comparable, fixture, parseHtml, projectRoot, testCode } from "./helpers.js";
import { theme } from "../templates/theme.js";
import { cacheRoot } from "../engine/incremental/cache-root.js";
import { IMAGE_SIZES } from "../templates/image-sizes.js";

const content = path.join(fixture("images"), "content");
const publicDir = path.join(fixture("images"), "public");

async function build(contentDir = content, options: { reference?: boolean; publicDir?: string } = {}): Promise<BuildResult & { writer: MemoryWriter }> {
  const writer = new MemoryWriter();
  const result = await new SiteBuilder({ codeVersion: testCode(), contentDir, projectRoot, theme, publicDir: options.publicDir ?? publicDir, reference: options.reference }).build(writer);
  return { ...result, writer };
}

/** A copy of the fixture (content and public) to break. */
async function copy(): Promise<{ content: string; public: string }> {
  const dir = await mkdtemp(path.join(tmpdir(), "cafe-images-"));
  await cp(fixture("images"), dir, { recursive: true });
  return { content: path.join(dir, "content"), public: path.join(dir, "public") };
}

const article = (dir: string) => path.join(dir, "articles/com-fotos/index.md");
async function editArticle(dir: string, edit: (text: string) => string) {
  await writeFile(article(dir), edit(await readFile(article(dir), "utf8")));
}

let site: Awaited<ReturnType<typeof build>>;
let doc: Document;
beforeAll(async () => {
  site = await build();
  expect(site.errors.map(formatError)).toEqual([]);
  doc = parseHtml(site.writer.text("com-fotos.html"));
}, 120_000);

/**
 * A valid PNG of `width`×`height` blank pixels, one bit each, written directly: 5 kB for 40
 * megapixels. Encoding the same size in colour with sharp cost 0.44 s of CPU a run
 * (deflating 120 MB), for a test that needs only a real file of that size.
 */
function blankPng(width: number, height: number): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, "latin1"), data]);
    const head = Buffer.alloc(4);
    head.writeUInt32BE(data.length);
    const tail = Buffer.alloc(4);
    tail.writeUInt32BE(crc32(body));
    return Buffer.concat([head, body, tail]);
  };
  // Width, height, 1 bit per pixel, greyscale (colour type 0); compression, filter and interlace 0.
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 1;
  // Each row: its filter byte (none), then its pixels, 8 to a byte, all 0.
  const rows = Buffer.alloc((Math.ceil(width / 8) + 1) * height);
  return Buffer.concat([Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]), chunk("IHDR", header), chunk("IDAT", deflateSync(rows)), chunk("IEND", Buffer.alloc(0))]);
}

describe("images in an article", () => {
  it("shows the cover above the body, fetched first", () => {
    const cover = doc.querySelector(".article-cover picture img")!;
    expect(cover.getAttribute("alt")).toBe("Xícaras de café coloridas sobre uma mesa, vistas de cima");
    expect(cover.getAttribute("fetchpriority")).toBe("high");
    expect(cover.hasAttribute("loading")).toBe(false);
    expect([cover.getAttribute("width"), cover.getAttribute("height")]).toEqual(["1600", "889"]);
    // Above the body, below the article's header.
    expect(doc.querySelector(".article-header + .article-cover + .prose")).not.toBeNull();
  });

  it("shows the body's images as lazy pictures with their alt text, and the decorative one with none", () => {
    const images = [...doc.querySelectorAll(".prose img")];
    expect(images.map((img) => img.getAttribute("alt"))).toEqual([
      "Foto da equipe reunida em volta da mesa",
      "Gráfico de barras: março foi o mês com mais xícaras servidas",
      "",
    ]);
    for (const img of images) {
      expect(img.getAttribute("loading")).toBe("lazy");
      expect(img.getAttribute("decoding")).toBe("async");
      expect(Number(img.getAttribute("width"))).toBeGreaterThan(0);
      expect(Number(img.getAttribute("height"))).toBeGreaterThan(0);
    }
    // The photo stored sideways is shown upright: 900 wide, 1200 high.
    expect([images[0]!.getAttribute("width"), images[0]!.getAttribute("height")]).toEqual(["900", "1200"]);
    // The `{decorative}` marker is not shown as text.
    expect(doc.querySelector(".prose")!.textContent).not.toContain("{decorative}");
  });

  it("offers AVIF, WebP and the source's format at widths up to the source's, sized to the article column", async () => {
    const pictures = [...doc.querySelectorAll("picture")];
    expect(pictures).toHaveLength(3);
    for (const picture of pictures) {
      const sources = [...picture.querySelectorAll("source")];
      expect(sources.map((s) => s.getAttribute("type"))).toEqual(["image/avif", "image/webp"]);
      const img = picture.querySelector("img")!;
      for (const el of [...sources, img]) expect(el.getAttribute("sizes")).toBe(IMAGE_SIZES);
      const largest = Number(img.getAttribute("width"));
      for (const el of [...sources, img]) {
        const candidates = el.getAttribute("srcset")!.split(", ").map((c) => c.split(" ") as [string, string]);
        const widths = candidates.map(([, w]) => Number(w.slice(0, -1)));
        expect(widths.at(-1)).toBe(largest);
        expect(widths.every((w) => w <= 1600 && w <= largest)).toBe(true);
        for (const [url, w] of candidates) {
          expect(url).toMatch(/^\/assets\/images\/[a-z0-9-]+-\d+-[0-9a-f]{10}\.(avif|webp|jpg|png)$/);
          const data = site.writer.files.get(url.slice(1));
          expect(data, url).toBeDefined();
          // Decoded: the format its name and type say, the width its descriptor says, no metadata.
          const meta = await sharp(data as Uint8Array).metadata();
          const expected = { avif: "heif", webp: "webp", jpg: "jpeg", png: "png" }[url.split(".").pop()!];
          expect(meta.format, url).toBe(expected);
          expect(meta.width, url).toBe(Number(w.slice(0, -1)));
          expect(meta.exif, url).toBeUndefined();
          expect(meta.orientation ?? 1, url).toBe(1);
        }
      }
    }
    const capa = [...site.writer.files.keys()].filter((f) => f.startsWith("assets/images/capa-")).map((f) => f.replace(/-[0-9a-f]{10}\./, "."));
    expect(capa.sort()).toEqual(
      [480, 800, 1200, 1600].flatMap((w) => ["avif", "webp", "jpg"].map((ext) => `assets/images/capa-${w}.${ext}`)).sort(),
    );
  });

  it("turns the photo taken sideways upright and leaves its camera and GPS data behind", async () => {
    const source = await sharp(path.join(content, "articles/com-fotos/equipe.jpg")).metadata();
    expect(source.orientation).toBe(6);
    expect(source.exif?.includes(Buffer.from("Cafe Camera"))).toBe(true);
    for (const [file, data] of site.writer.files) {
      if (!file.startsWith("assets/images/equipe-")) continue;
      const meta = await sharp(data as Uint8Array).metadata();
      expect(meta.height! > meta.width!, file).toBe(true);
      expect(meta.exif, file).toBeUndefined();
      expect(Buffer.from(data as Uint8Array).includes(Buffer.from("Cafe Camera")), file).toBe(false);
    }
  });

  it("copies an SVG as it is and shows it only through <img>", async () => {
    const img = doc.querySelector('.prose img[src$=".svg"]')!;
    expect(img.closest("picture")).toBeNull();
    expect([img.getAttribute("width"), img.getAttribute("height")]).toEqual(["320", "40"]);
    const written = site.writer.files.get(img.getAttribute("src")!.slice(1));
    expect(Buffer.from(written as Uint8Array)).toEqual(await readFile(path.join(content, "images/ornamento.svg")));
    expect(site.writer.text("com-fotos.html")).not.toMatch(/<(object|embed|iframe)\b/);
  });

  it("leaves a page without images as it was: no picture, no image file", () => {
    const html = site.writer.text("sem-fotos.html");
    expect(html).not.toContain("<picture");
    expect(html).not.toContain("/assets/images/");
  });

  it("accepts links to files of public/ (a PDF)", () => {
    expect(doc.querySelector('a[href="/regulamento.pdf"]')).not.toBeNull();
  });

  it("writes the same bytes with the lean Markdown pipeline as with the reference one", async () => {
    const reference = await build(content, { reference: true });
    expect([...reference.writer.files.keys()].sort()).toEqual([...site.writer.files.keys()].sort());
    for (const [file, data] of reference.writer.files) expect(comparable(site.writer.files.get(file)), file).toEqual(comparable(data));
  });
});

describe("the image cache", () => {
  afterEach(() => vi.restoreAllMocks());

  it("never encodes an unchanged image twice, and makes a damaged entry again", async () => {
    const dir = await copy();
    // An image no earlier run has seen: its colour is new.
    const colour = { r: Math.floor(Math.random() * 256), g: Math.floor(Math.random() * 256), b: 99 };
    const unique = await sharp({ create: { width: 700, height: 400, channels: 3, background: colour } }).jpeg().toBuffer();
    await writeFile(path.join(dir.content, "articles/com-fotos/nova.jpg"), unique);
    await editArticle(dir.content, (t) => `${t}\n![Uma foto nova](./nova.jpg)\n`);
    const encode = vi.spyOn(ImageWork.prototype as unknown as { encode: () => Promise<unknown> }, "encode");

    const first = await build(dir.content, { publicDir: dir.public });
    expect(first.ok).toBe(true);
    expect(encode).toHaveBeenCalledTimes(1);

    // A new builder (a new `npm run build`): everything comes from the cache.
    const second = await build(dir.content, { publicDir: dir.public });
    expect(encode).toHaveBeenCalledTimes(1);
    // The same files (in another order: the cards are written as they are had, among the pages).
    expect([...second.writer.files.keys()].sort()).toEqual([...first.writer.files.keys()].sort());

    // A damaged entry (a file cut short) is ignored and made again, with the same result.
    const cacheDir = path.join(cacheRoot(projectRoot), "images");
    const written = [...first.writer.files].find(([file]) => /^assets\/images\/nova-700-[0-9a-f]{10}\.jpg$/.test(file))![1];
    const entries = await readdir(cacheDir);
    const holds = async (entry: string) => Buffer.from(written).equals(await readFile(path.join(cacheDir, entry, "700.jpg")).catch(() => Buffer.alloc(0)));
    const key = (await Promise.all(entries.map(async (entry) => ((await holds(entry)) ? entry : undefined)))).find(Boolean)!;
    expect(key).toBeDefined();
    await truncate(path.join(cacheDir, key, "480.avif"), 10);
    const third = await build(dir.content, { publicDir: dir.public });
    expect(encode).toHaveBeenCalledTimes(2);
    for (const [file, data] of first.writer.files) expect(comparable(third.writer.files.get(file)), file).toEqual(comparable(data));
  }, 120_000);
});

describe("watch mode", () => {
  it("an image replaced on disk: its new files written, the old ones removed, the page updated", async () => {
    const dir = await copy();
    const writer = new MemoryWriter();
    const builder = new SiteBuilder({ codeVersion: testCode(), contentDir: dir.content, projectRoot, theme, publicDir: dir.public });
    expect((await builder.build(writer)).ok).toBe(true);
    const old = [...writer.files.keys()].filter((f) => f.startsWith("assets/images/grafico-"));
    const chart = path.join(dir.content, "images/grafico.png");
    await writeFile(chart, await sharp(chart).negate({ alpha: false }).resize({ width: 640 }).png().toBuffer());
    const result = await builder.update([chart], writer);
    expect(result.errors.map(formatError)).toEqual([]);
    const now = [...writer.files.keys()].filter((f) => f.startsWith("assets/images/grafico-"));
    expect(now.some((f) => old.includes(f))).toBe(false);
    expect(now.map((f) => f.replace(/-[0-9a-f]{10}\./, ".")).sort()).toEqual(["avif", "png", "webp"].flatMap((ext) => [480, 640].map((w) => `assets/images/grafico-${w}.${ext}`)).sort());
    expect(result.changed).toEqual(expect.arrayContaining([...old, ...now, "com-fotos.html"]));
    expect(writer.text("com-fotos.html")).toContain(`<img src="/${now.find((f) => /-640-[0-9a-f]{10}\.png$/.test(f))}"`);
  }, 60_000);
});

describe("bad images are reported where they are written", () => {
  /** Builds a broken copy and returns its errors as an author reads them. */
  async function errorsOf(edit: (dir: { content: string; public: string }) => Promise<void>): Promise<string[]> {
    const dir = await copy();
    await edit(dir);
    const result = await build(dir.content, { publicDir: dir.public });
    expect(result.ok).toBe(false);
    return result.errors.map(formatError);
  }

  it("an image without alt text, pointing at {decorative}", async () => {
    const [error, ...rest] = await errorsOf((dir) => editArticle(dir.content, (t) => t.replace("![Foto da equipe reunida em volta da mesa]", "![ ]")));
    expect(rest).toEqual([]);
    expect(error).toContain("content/articles/com-fotos/index.md:16:1: image `./equipe.jpg` has no alt text");
    expect(error).toContain("> 16 | ![ ](./equipe.jpg)");
    expect(error).toContain("hint: describe it for readers who cannot see it");
    expect(error).toContain("![](./equipe.jpg){decorative}");
  });

  it("a cover without alt text", async () => {
    const errors = await errorsOf((dir) => editArticle(dir.content, (t) => t.replace(/\n {2}alt: .*\n/, "\n")));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/index\.md:8:8: the cover image has no alt text/);
    expect(errors[0]).toContain("decorative: true");
  });

  it("a missing file", async () => {
    const errors = await errorsOf((dir) => editArticle(dir.content, (t) => t.replace("(./equipe.jpg)", "(./equipe-nova.jpg)")));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/index\.md:16:1: image `\.\/equipe-nova\.jpg` not found: no file .*com-fotos\/equipe-nova\.jpg/);
    expect(errors[0]).toContain("hint: check the file name");
  });

  it("a file that is not an image, and one cut short", async () => {
    const errors = await errorsOf(async (dir) => {
      await writeFile(path.join(dir.content, "articles/com-fotos/equipe.jpg"), "isto não é uma foto\n");
      const capa = path.join(dir.content, "articles/com-fotos/capa.jpg");
      const bytes = await readFile(capa);
      // A new image (not in the cache), cut in half.
      const fresh = await sharp(bytes).modulate({ hue: Math.floor(Math.random() * 300) + 30 }).jpeg().toBuffer();
      await writeFile(capa, fresh.subarray(0, fresh.length >> 1));
    });
    expect(errors).toHaveLength(2);
    expect(errors[0]).toMatch(/index\.md:8:8: `\.\/capa\.jpg` could not be decoded/);
    expect(errors[0]).toContain("damaged or cut short");
    expect(errors[1]).toMatch(/index\.md:16:1: `\.\/equipe\.jpg` is not an image that can be read/);
  }, 60_000);

  it("a source over 40 megapixels", async () => {
    const errors = await errorsOf(async (dir) => {
      await writeFile(path.join(dir.content, "images/grafico.png"), blankPng(8000, 5001));
    });
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/index\.md:24:1: `\/images\/grafico\.png` is 40\.0 megapixels \(8000×5001\); the limit is 40/);
    expect(errors[0]).toContain("scale it down");
  }, 60_000);

  it("a remote image, pointing at content/images/", async () => {
    const errors = await errorsOf((dir) => editArticle(dir.content, (t) => t.replace("(/images/grafico.png)", "(https://example.com/grafico.png)")));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain("index.md:24:1: remote image `https://example.com/grafico.png`: pages show only the site's own images");
    expect(errors[0]).toContain("hint: download it into content/images/");
  });

  it("an image marked decorative that has alt text", async () => {
    const errors = await errorsOf((dir) => editArticle(dir.content, (t) => t.replace("![](/images/ornamento.svg)", "![Ornamento](/images/ornamento.svg)")));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain("is marked {decorative} but has alt text");
  });

  it("keeps the last good site when an image breaks", async () => {
    const dir = await copy();
    const out = path.join(path.dirname(dir.content), "dist");
    const folderBuild = async () => {
      const writer = new FolderWriter(out);
      await writer.begin();
      return new SiteBuilder({ codeVersion: testCode(), contentDir: dir.content, projectRoot, theme, publicDir: dir.public }).build(writer);
    };
    expect((await folderBuild()).ok).toBe(true);
    const before = (await readdir(out, { recursive: true })).sort();
    await rm(path.join(dir.content, "images/grafico.png"));
    expect((await folderBuild()).ok).toBe(false);
    expect((await readdir(out, { recursive: true })).sort()).toEqual(before);
  }, 60_000);
});

describe("public/", () => {
  it("shows an image kept in public/ like any other", async () => {
    const dir = await copy();
    await cp(path.join(dir.content, "images/grafico.png"), path.join(dir.public, "grafico-publico.png"));
    await editArticle(dir.content, (t) => `${t}\n![O mesmo gráfico, de public/](/grafico-publico.png)\n`);
    const result = await build(dir.content, { publicDir: dir.public });
    expect(result.errors.map(formatError)).toEqual([]);
    const img = parseHtml(result.writer.text("com-fotos.html")).querySelector('img[alt="O mesmo gráfico, de public/"]')!;
    expect(img.getAttribute("src")).toMatch(/^\/assets\/images\/grafico-publico-900-[0-9a-f]{10}\.png$/);
  });

  it("refuses a file whose address is a page's or a generated file's", async () => {
    const dir = await copy();
    await writeFile(path.join(dir.public, "sem-fotos.html"), "<p>outra</p>");
    // A file at a page's address without .html: a host answers /com-fotos with either.
    await writeFile(path.join(dir.public, "com-fotos"), "outra");
    await writeFile(path.join(dir.public, "feed.xml"), "<rss/>");
    await cp(path.join(dir.public, "favicon.svg"), path.join(dir.public, "assets/favicon.svg"), { recursive: true });
    const result = await build(dir.content, { publicDir: dir.public });
    expect(result.errors.map(formatError)).toEqual([
      expect.stringMatching(/^public\/assets\/favicon\.svg: public\/assets\/favicon\.svg has the same address as the generated assets\/ folder\nhint: /),
      expect.stringMatching(/^public\/com-fotos: public\/com-fotos has the same address as the page \/com-fotos\nhint: /),
      expect.stringMatching(/^public\/feed\.xml: public\/feed\.xml has the same address as the feed\.xml the build writes/),
      expect.stringMatching(/^public\/sem-fotos\.html: public\/sem-fotos\.html has the same address as the page \/sem-fotos/),
    ]);
  });
});
