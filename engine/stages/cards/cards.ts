/**
 * Stage 6 — cards: the picture a link to a page shows when it is shared (`og:image`). One PNG
 * per page, drawn at build time from the theme's React component: satori lays it out into
 * an SVG (its text turned into paths with the theme's fonts), resvg rasterises that SVG
 * without looking at the machine's fonts, so every machine draws the same card.
 *
 * A card is cached on disk by what makes it: the theme's props for the page, the
 * component's code, the fonts' bytes, the size and the two libraries' versions. A build in
 * which no card changed loads neither library.
 */
import { fileHash } from "../../lib/hash.js";
import type { SiteContent } from "../load/content.js";
import type { Route } from "../routes/routes.js";
import type { SocialCard, Theme, ThemeSocialCard } from "../../theme.js";
import { cacheKey } from "../../incremental/media-cache.js";
import { absoluteUrl } from "../../lib/site-paths.js";
import { loadPackage } from "../../lib/packages.js";
import { Fragment, isValidElement, type ReactElement } from "react";

export interface LoadedFont {
  name: string;
  data: Uint8Array;
  weight?: ThemeSocialCard["fonts"][number]["weight"];
  style?: "normal" | "italic";
}

/** `/` → `home`, `/artigo/x` → `artigo-x`, `/404` → `404`. */
const slugOf = (routePath: string) => (routePath === "/" ? "home" : routePath.slice(1).replace(/\//g, "-"));

/** The social cards of one build: each route's, and the files written. */
export interface SiteCards {
  byRoute: ReadonlyMap<string, SocialCard>;
  /** Each card's length in bytes, by route (the feed's enclosures state it). */
  lengths: ReadonlyMap<string, number>;
  /** The cards this build wrote (drawn or read from the media cache), each as soon as it had it. */
  files: readonly string[];
  /** Those of them whose bytes are not the published build's. */
  changed: readonly string[];
  /** The cards the last build wrote that the output holds still, by the key they were drawn from: not read again. */
  kept: Record<string, KeptCard>;
}

/** A card as the build record keeps it: enough to take its file from the last build without reading it. */
export interface KeptCard {
  route: string;
  file: string;
  length: number;
}

/**
 * What the card stage remembers from one run to the next (watch mode): the fonts. Not the
 * cards: a card whose key did not change is taken from the last build's output, another from
 * the media cache on disk (4000 cards held in memory were 280 MB).
 */
export interface CardMemory {
  setup?: CardSetup;
}

/** The fonts cards are drawn with, and the parts of every card's key and name that do not depend on the page. */
export interface CardSetup {
  fonts: LoadedFont[];
  /** With the component's code as it runs (the media cache's key). */
  key: string;
  /** Without the component's code, which the card's name stands for by what it draws (`cardName`). */
  name: string;
}

export const noCardMemory = (): CardMemory => ({});

/** Whether this site has cards: the theme draws them and the settings do not turn them off. */
export function cardsEnabled(theme: Theme, site: unknown): boolean {
  const card = theme.socialCard;
  return card !== undefined && card.enabled?.(site) !== false;
}

/**
 * Draws cards from their props with the fonts, on this thread or in slices on the workers
 * (pipeline/threads.ts), and gives each as it is ready, in order: a card is written and let go
 * before the last is drawn.
 */
export type DrawCards = (props: unknown[], fonts: LoadedFont[]) => AsyncIterable<Uint8Array>;

/** A route's card as the theme wants it: its key (the fonts, the component's code, the page's props), its file, its text alternative, its props. */
export interface WantedCard {
  route: Route;
  key: string;
  file: string;
  alt: string;
  props: unknown;
}

/**
 * Each route's card, from the parts of every key and name that do not depend on the page; a
 * route whose props are undefined has none. A card whose key and route are the last build's
 * (`previous`, its record by key) keeps the file it was written under: the same key is the
 * same component's code, fonts and props, so the same name, and naming a card calls the
 * theme's component for it (a dev save with cards on named every card again: a quarter of it).
 */
export function wantedCards(routes: readonly Route[], content: SiteContent, card: ThemeSocialCard, setup: Pick<CardSetup, "key" | "name">, previous: Readonly<Record<string, KeptCard>> = {}): WantedCard[] {
  return routes.flatMap((route) => {
    const props = card.props({ route, site: content.site.value, content });
    if (props === undefined) return [];
    const key = cacheKey([setup.key, JSON.stringify(props)]);
    const known = Object.hasOwn(previous, key) && previous[key]!.route === route.path ? previous[key]!.file : undefined;
    return [{ route, key, file: known ?? cardFile(route.path, cardName(card, props, setup, key)), alt: card.alt(props), props }];
  });
}

/**
 * The file of a route's card, named by what it draws, not by its bytes: a page names its card
 * before the card is drawn, and the site is served while the cards are drawn (`cafe start`).
 */
const cardFile = (routePath: string, name: string): string => `assets/cards/${slugOf(routePath)}-${fileHash(name)}.png`;

/**
 * What a card's name is made of: the fonts, the size, the libraries' versions and what its
 * component returns for these props (the element tree satori lays out, the theme's own
 * components called as satori calls them), so that the same card has the same name however
 * the theme's code was compiled (the command's bundle, tsx, a test). A tree it cannot write
 * down as data (an element type that is neither a tag nor a function) is named by the key,
 * the component's code included.
 */
function cardName(card: ThemeSocialCard, props: unknown, setup: Pick<CardSetup, "name">, key: string): string {
  const drawn = drawnTree(card.component(props));
  try {
    return drawn === undefined ? key : cacheKey([setup.name, JSON.stringify(drawn)]);
  } catch {
    return key; // a value JSON cannot write (a BigInt): named by the key
  }
}

/** An element tree as data: `[tag, props, children]` per element, function components expanded; undefined when a part is not data. */
function drawnTree(node: unknown): unknown {
  if (node === null || node === undefined || typeof node === "boolean") return null;
  if (typeof node === "string" || typeof node === "number") return node;
  if (Array.isArray(node)) {
    const children = node.map(drawnTree);
    return children.includes(undefined) ? undefined : children;
  }
  if (!isValidElement(node)) return undefined;
  const { type, props } = node as ReactElement<Record<string, unknown>>;
  if (typeof type === "function") return drawnTree((type as (given: unknown) => unknown)(props));
  if (typeof type !== "string" && type !== Fragment) return undefined;
  const { children, ...rest } = props;
  const inside = drawnTree(children);
  // A function among the props (an event handler) is nothing satori draws; anything else is data.
  return inside === undefined ? undefined : [typeof type === "string" ? type : "fragment", rest, inside];
}

/** The cards as the pages name them (`og:image`), known before any is drawn. */
export function plannedCards(wanted: readonly WantedCard[], card: ThemeSocialCard, siteUrl: string): Map<string, SocialCard> {
  return new Map(wanted.map(({ route, file, alt }) => [route.path, { url: absoluteUrl(siteUrl, `/${file}`), width: card.width, height: card.height, alt, type: "image/png" } as const]));
}

/**
 * The site's cards from what was found for each wanted card (`found`, in the same order): a
 * card the last build wrote that the output still holds is kept as it is; another was
 * written under the name the plan gave it (`cardName`: what it draws), `length` bytes.
 */
export function siteCards(wanted: readonly WantedCard[], found: readonly ({ kept: KeptCard } | { length: number })[], card: ThemeSocialCard, siteUrl: string, written: { files: readonly string[]; changed: readonly string[] }): SiteCards {
  const lengths = new Map<string, number>();
  const kept: Record<string, KeptCard> = {};
  for (const [i, { route, key, file }] of wanted.entries()) {
    const it = found[i]!;
    kept[key] = "kept" in it ? it.kept : { route: route.path, file, length: it.length };
    lengths.set(route.path, kept[key]!.length);
  }
  return { byRoute: plannedCards(wanted, card, siteUrl), lengths, files: written.files, changed: written.changed, kept };
}

/**
 * Draws cards one after another on this thread (what a worker does for its slice). The event
 * loop turns after each: resvg's memory is native, freed by finalizers that Node runs from
 * the event loop once a collection found the card unreachable; drawn in one run of the loop,
 * 4000 cards held 13 GB.
 */
export const drawHere = (card: ThemeSocialCard): DrawCards =>
  async function* (props, fonts) {
    // One array of the fonts for the slice's every card: satori parses a font set once and
    // keeps it by the array it was given.
    const ready = satoriFonts(fonts);
    for (const one of props) {
      yield await drawCard(card, one, ready);
      await new Promise((resolve) => setImmediate(resolve));
    }
  };

/**
 * How cards are drawn, in every card's key and name: a change to the way (`plainGradients`, the
 * fonts handed to satori, resvg's options, the PNG's encoding) draws every card again under a
 * new name.
 */
export const CARD_DRAWING = "card-v3";

/**
 * One card: satori lays the theme's component out into an SVG, resvg rasterises it, sharp
 * encodes the PNG. resvg's own encoder took 13–15 ms of a card's 35 (its zlib at its highest
 * setting); sharp at compression level 3 takes 4–7 ms and writes smaller files (59.5 kB
 * against 65.3 for the blog's card; bench/README.md, session 18).
 */
async function drawCard(card: ThemeSocialCard, props: unknown, fonts: SatoriFont[]): Promise<Uint8Array> {
  // Loaded only when a card is drawn (lib/packages.ts), not by a build that keeps every card.
  const [{ default: satori }, { Resvg }, { default: sharp }] = await Promise.all([
    loadPackage("satori", () => import("satori")),
    loadPackage("resvg", () => import("@resvg/resvg-js")),
    loadPackage("sharp", () => import("sharp")),
  ]);
  const svg = await satori(card.component(props), { width: card.width, height: card.height, fonts });
  // satori has drawn the text as paths: resvg needs no font, and must not pick the machine's.
  // The SVG is the card's size already: resvg draws it as it is, with no scaling to fit.
  const image = new Resvg(plainGradients(svg), { font: { loadSystemFonts: false } }).render();
  // resvg's pixels are premultiplied by their alpha: sharp divides them back for the PNG.
  const raw = { width: image.width, height: image.height, channels: 4 as const, premultiplied: true };
  return sharp(image.pixels, { raw }).png({ compressionLevel: 3 }).toBuffer();
}

/**
 * The fonts as satori reads them (Buffers). A font handed over between threads arrives as a
 * plain Uint8Array: a new Buffer of it for each card made satori parse the three fonts again
 * for every card (68 ms a card instead of 41), so `drawHere` makes them once for its cards.
 */
type SatoriFont = Omit<LoadedFont, "data"> & { data: Buffer };
function satoriFonts(fonts: readonly LoadedFont[]): SatoriFont[] {
  return fonts.map((f) => ({ ...f, data: Buffer.isBuffer(f.data) ? f.data : Buffer.from(f.data.buffer, f.data.byteOffset, f.data.byteLength) }));
}

/**
 * satori paints a `linear-gradient` background as a pattern whose one tile, the element's box,
 * holds a rectangle of that size filled with the gradient. resvg draws such a pattern into a
 * picture of its own and then paints with that picture: at 1200×630, 6 of a card's 17 ms of
 * rasterising. Where a pattern is exactly that (one tile the size of the box; in it, one
 * rectangle at its origin filled with a gradient in the box's own units) and only rectangles of
 * the same size are painted with it, the gradient itself paints those rectangles: the same
 * pixels (the card's key says which way cards are drawn, `CARD_DRAWING`). Anything else is left
 * as satori wrote it.
 */
export function plainGradients(svg: string): string {
  const pattern =
    /<pattern id="([\w-]+)" x="0" y="0" width="1" height="1" patternUnits="objectBoundingBox">(<linearGradient id="([\w-]+)"((?: (?:x1|y1|x2|y2|spreadMethod)="[^"]*")*)>((?:<stop [^>]*\/>)*)<\/linearGradient>)<rect x="0" y="0" width="([\d.]+)" height="([\d.]+)" fill="url\(#\3\)"\/><\/pattern>/g;
  let out = svg;
  for (const [whole, id, , , attributes, stops, width, height] of svg.matchAll(pattern)) {
    const uses = out.split(`url(#${id})`).length - 1;
    const rect = new RegExp(`<rect x="[\\d.-]+" y="[\\d.-]+" width="${width!.replace(/\./g, "\\.")}" height="${height!.replace(/\./g, "\\.")}" fill="url\\(#${id}\\)"`, "g");
    if (uses === 0 || (out.match(rect)?.length ?? 0) !== uses) continue;
    out = out.replace(whole, `<linearGradient id="${id}"${attributes}>${stops}</linearGradient>`);
  }
  return out;
}
