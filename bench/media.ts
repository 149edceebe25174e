/**
 * What a social card and an image cost a build: drawn or encoded (a page or a picture the
 * cache has not seen), and found in the cache (every later build).
 *
 *   npx tsx bench/media.ts [--runs 3]
 *
 * Cards: the real site's 15 pages, drawn by the engine (satori + resvg) under a theme version
 * no earlier run used, so none is in the cache; then the same cards by a fresh builder
 * (the disk cache). satori and resvg are also timed apart on the same cards. Images: photo-like JPEGs (4000×3000, a 12 MP phone
 * photo; 1800×1000) and a PNG chart, new bytes on every run, each made into AVIF, WebP and
 * its own format at 480, 800, 1200 and 1600 px (up to its width).
 */
import path from "node:path";
import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { median } from "./figures.js";
import sharp from "sharp";
import { loadContent, type Article, type SiteContent } from "../engine/stages/load/content.js";
import { buildRoutes } from "../engine/stages/routes/routes.js";
import { DEFAULT_WIDTHS, imageStage, noImageMemory } from "../engine/stages/images/images.js";
import { drawHere, noCardMemory, plainGradients, type CardMemory } from "../engine/stages/cards/cards.js";
import { cardPlan, cardStage } from "../engine/pipeline/draw-cards.js";
import { theme } from "../templates/theme.js";
import type { SiteSettings } from "../templates/schema.js";

process.env.NODE_ENV ??= "production";
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const { values } = parseArgs({ options: { runs: { type: "string", default: "3" } } });
const runs = Number(values.runs);
const ms = (x: number) => `${x.toFixed(1)} ms`;
const time = async (f: () => Promise<unknown>) => {
  const start = performance.now();
  await f();
  return performance.now() - start;
};

// ---- Social cards ----------------------------------------------------------------------
const loaded = await loadContent(path.join(root, "content"), theme);
if (!loaded.content) throw new Error("the site does not load");
const content = loaded.content;
const site = content.site.value as SiteSettings;
const routes = buildRoutes(content, theme).value.routes;
const url = theme.siteMeta(site).url;

/** Total of each run's drawing; the first also loads satori, resvg and the fonts. */
const drawn: number[] = [];
const fromDisk: number[] = [];
for (let run = 0; run < runs; run++) {
  const fresh = { ...theme, version: `${theme.version}-bench-${Date.now()}-${run}` };
  const input = { routes, content, siteUrl: url, projectRoot: root, previous: {} };
  const noReuse = async () => false;
  const draw = drawHere(fresh.socialCard!);
  // The stage as a build runs it: the cards named (the fonts read the first time), then found or drawn.
  const written = async () => true;
  const stage = async (given: Parameters<typeof cardPlan>[0]) => cardStage(await cardPlan(given, fresh), given, fresh, noReuse, draw, written);
  let memory: CardMemory = noCardMemory();
  drawn.push(await time(async () => void ({ memory } = (await stage({ ...input, memory })).value)));
  fromDisk.push((await time(() => stage({ ...input, memory: noCardMemory() }))) / routes.length);
}

// satori and resvg apart, on the same cards (modules already loaded).
const card = theme.socialCard!;
const require = createRequire(path.join(root, "package.json"));
const fonts = await Promise.all(card.fonts.map(async (f) => ({ name: f.name, data: await readFile(require.resolve(f.source)), weight: f.weight, style: f.style })));
const { default: satori } = await import("satori");
const { Resvg } = await import("@resvg/resvg-js");
const satoriMs: number[] = [];
const resvgMs: number[] = [];
for (const route of routes) {
  const props = card.props({ route, site, content });
  let svg = "";
  satoriMs.push(await time(async () => (svg = await satori(card.component(props), { width: card.width, height: card.height, fonts }))));
  resvgMs.push(await time(async () => new Resvg(plainGradients(svg), { font: { loadSystemFonts: false } }).render().asPng()));
}

console.log(`Social cards, the real site's ${routes.length} pages, median of ${runs} runs:`);
const perCard = median(drawn.slice(1).length > 0 ? drawn.slice(1) : drawn) / routes.length;
console.log(`| per card | drawn (not in the cache) | from the disk cache |`);
console.log(`|---|---|---|`);
console.log(`| | ${ms(perCard)} | ${ms(median(fromDisk))} |`);
console.log(`once per build that draws a card: loading satori, resvg and the fonts, ${ms(drawn[0]! - perCard * routes.length)}`);
console.log(`satori ${ms(median(satoriMs))} and resvg ${ms(median(resvgMs))} per card (median over the pages, modules loaded)\n`);

// ---- Images ------------------------------------------------------------------------------
const dir = await mkdtemp(path.join(tmpdir(), "cafe-media-bench-"));

/** A photo-like picture (gradients, shapes, grain) no earlier run has seen. */
async function photo(width: number, height: number, seed: number): Promise<Buffer> {
  const shapes = Array.from({ length: 40 }, (_, i) => {
    const r = (((seed + i) * 7919) % 97) / 97;
    return `<circle cx="${((i * 137 + seed) % 100) * width / 100}" cy="${((i * 61 + seed) % 100) * height / 100}" r="${(0.03 + r / 8) * width}" fill="hsl(${(seed + i * 37) % 360} 50% ${35 + r * 40}%)" fill-opacity="0.6"/>`;
  }).join("");
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}"><defs><linearGradient id="g" x2="1" y2="1"><stop offset="0" stop-color="hsl(${seed % 360} 60% 80%)"/><stop offset="1" stop-color="hsl(${(seed + 90) % 360} 40% 30%)"/></linearGradient></defs><rect width="100%" height="100%" fill="url(#g)"/>${shapes}</svg>`;
  const grain = await sharp(Buffer.from(svg)).raw().toBuffer({ resolveWithObject: true });
  for (let i = 0; i < grain.data.length; i += 7) grain.data[i] = grain.data[i]! ^ (i & 7);
  return sharp(grain.data, { raw: grain.info }).jpeg({ quality: 88 }).toBuffer();
}

const seed = Date.now() % 100000;
const sources = [
  { name: "photo-4000x3000.jpg", bytes: await photo(4000, 3000, seed) },
  { name: "photo-1800x1000.jpg", bytes: await photo(1800, 1000, seed + 1) },
  { name: "chart-900x500.png", bytes: await sharp(await photo(900, 500, seed + 2)).png({ palette: true }).toBuffer() },
];
for (const s of sources) await writeFile(path.join(dir, s.name), s.bytes);

/** The smallest site content the image stage reads: one article per image, in `dir`. */
const siteOf = (name: string): SiteContent =>
  ({ root: dir, articles: [{ file: path.join(dir, "bench.md"), meta: {}, source: "", format: "front-matter" } as unknown as Article] }) as unknown as SiteContent;
const options = { sizes: "100vw", widths: DEFAULT_WIDTHS };
console.log(`Images, each made into AVIF, WebP and its own format at ${DEFAULT_WIDTHS.join(", ")} px (up to its width):`);
console.log(`| source | bytes | files | encoded (not in the cache) | from the disk cache | from memory (watch mode) |`);
console.log(`|---|---|---|---|---|---|`);
for (const source of sources) {
  const image = [{ url: `./${source.name}`, alt: "x", decorative: false }];
  const input = (memory = noImageMemory()) => ({ content: siteOf(source.name), bodies: new Map([[path.join(dir, "bench.md"), { result: { images: image } }]]), projectRoot: root, publicDir: dir, options, memory });
  let files = 0;
  let remembered = noImageMemory();
  const encoded = await time(async () => {
    const result = (await imageStage(input())).value;
    files = result.images.files.size;
    remembered = result.memory;
  });
  const memory = await time(() => imageStage(input(remembered)));
  const disk = await time(() => imageStage(input()));
  console.log(`| ${source.name} | ${(source.bytes.length / 1024).toFixed(0)} KB | ${files} | ${ms(encoded)} | ${ms(disk)} | ${ms(memory)} |`);
}
