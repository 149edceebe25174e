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
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import type { SiteContent } from "../load/content.js";
import type { Route } from "../routes/routes.js";
import type { SocialCard, Theme, ThemeSocialCard } from "../../theme.js";
import { cacheKey, MediaCache } from "../../incremental/media-cache.js";
import { absoluteUrl } from "../../lib/site-paths.js";
import { staged, type Staged } from "../../lib/errors.js";
import { loadPackage } from "../../lib/packages.js";

export interface LoadedFont {
  name: string;
  data: Uint8Array;
  weight?: ThemeSocialCard["fonts"][number]["weight"];
  style?: "normal" | "italic";
}

/** `/` → `home`, `/artigo/x` → `artigo-x`, `/404` → `404`. */
const slugOf = (routePath: string) => (routePath === "/" ? "home" : routePath.slice(1).replace(/\//g, "-"));

/** The social cards of one build: each route's, and the files to write. */
export interface SiteCards {
  byRoute: ReadonlyMap<string, SocialCard>;
  /** The cards drawn or read in this build, to write. */
  files: ReadonlyMap<string, Uint8Array>;
  /** The cards the last build wrote that the output holds still, by the key they were drawn from: not read again. */
  kept: Record<string, KeptCard>;
}

/** A card as the build record keeps it: enough to take its file from the last build without reading it. */
export interface KeptCard {
  route: string;
  file: string;
  length: number;
}

/** What the card stage remembers from one run to the next (watch mode): the fonts, and each card drawn, by key. */
export interface CardMemory {
  setup?: { fonts: LoadedFont[]; key: string };
  drawn: ReadonlyMap<string, Uint8Array>;
}

export const noCardMemory = (): CardMemory => ({ drawn: new Map() });

/** Whether this site has cards: the theme draws them and the settings do not turn them off. */
export function cardsEnabled(theme: Theme, site: unknown): boolean {
  const card = theme.socialCard;
  return card !== undefined && card.enabled?.(site) !== false;
}

export interface CardStageInput {
  routes: readonly Route[];
  content: SiteContent;
  siteUrl: string;
  projectRoot: string;
  memory: CardMemory;
  /** The cards of the last build, by key (its record). */
  previous: Readonly<Record<string, KeptCard>>;
}

/** Draws cards from their props with the fonts, in order: on this thread, or in slices on the workers (pipeline/threads.ts). */
export type DrawCards = (props: unknown[], fonts: LoadedFont[]) => Promise<Uint8Array[]>;

/**
 * Stage 6: draws (or finds) the card of every route; returns them and what to remember. A
 * card whose key (the fonts, the component's code, the page's props) is the last build's and
 * whose file the output still holds (`reuse`) is neither drawn nor read: a body edit that
 * changes no card's text costs a key per page. The cards to draw are drawn together (`draw`).
 */
export async function cardStage(
  { routes, content, siteUrl, projectRoot, memory, previous }: CardStageInput,
  theme: Theme,
  reuse: (file: string, size: number) => Promise<boolean>,
  draw: DrawCards,
): Promise<Staged<{ cards: SiteCards; memory: CardMemory }>> {
  const card = theme.socialCard;
  const byRoute = new Map<string, SocialCard>();
  const files = new Map<string, Uint8Array>();
  const kept: Record<string, KeptCard> = {};
  const drawn = new Map<string, Uint8Array>();
  let setup = memory.setup;
  if (card && cardsEnabled(theme, content.site.value)) {
    const cache = new MediaCache<Record<string, never>>(projectRoot, "cards");
    // The part of every key that does not depend on the page: without the fonts' bytes read
    // again while the fonts' files are as they were.
    const base = (setup ??= await loadFonts(card, theme, createRequire(path.join(projectRoot, "package.json")))).key;
    const shown = (route: Route, file: string, length: number, alt: string) =>
      byRoute.set(route.path, { url: absoluteUrl(siteUrl, `/${file}`), width: card.width, height: card.height, alt, type: "image/png", length });
    // Each route's card: kept from the last build, known (this run, the last, the disk cache), or to draw.
    const wanted: { route: Route; key: string; alt: string; known?: KeptCard }[] = [];
    const toDraw = new Map<string, unknown>();
    for (const route of routes) {
      const props = card.props({ route, site: content.site.value, content });
      if (props === undefined) continue;
      const key = cacheKey([base, JSON.stringify(props)]);
      const alt = card.alt(props);
      const before = previous[key];
      const known = before && before.route === route.path ? before : undefined;
      let png = drawn.get(key) ?? memory.drawn.get(key);
      if (!png && known && (await reuse(known.file, known.length))) {
        wanted.push({ route, key, alt, known });
        continue;
      }
      png ??= toDraw.has(key) ? undefined : (await cache.get(key))?.files.get("card.png");
      if (png) drawn.set(key, png);
      else toDraw.set(key, props);
      wanted.push({ route, key, alt });
    }
    const keys = [...toDraw.keys()];
    const pngs = await draw([...toDraw.values()], setup.fonts);
    for (const [i, key] of keys.entries()) {
      drawn.set(key, pngs[i]!);
      await cache.put(key, { meta: {}, files: new Map([["card.png", pngs[i]!]]) });
    }
    for (const { route, key, alt, known } of wanted) {
      if (known) {
        kept[key] = known;
        shown(route, known.file, known.length, alt);
        continue;
      }
      // Cards of titles no longer on the site are let go: only this run's are remembered.
      const png = drawn.get(key)!;
      const file = `assets/cards/${slugOf(route.path)}-${fileHash(png)}.png`;
      files.set(file, png);
      kept[key] = { route: route.path, file, length: png.length };
      shown(route, file, png.length, alt);
    }
  }
  return staged({ cards: { byRoute, files, kept }, memory: { setup, drawn } });
}

/** The fonts, and the part of every key that does not depend on the page. */
async function loadFonts(card: ThemeSocialCard, theme: Theme, require: NodeRequire): Promise<{ fonts: LoadedFont[]; key: string }> {
  const fonts = await Promise.all(
    card.fonts.map(async (font) => {
      if (font.source.endsWith(".woff2")) throw new Error(`the social card's font ${font.source} is WOFF2, which satori cannot read: use the .woff beside it`);
      return { name: font.name, data: await readFile(require.resolve(font.source)), weight: font.weight, style: font.style };
    }),
  );
  const version = async (name: string) => (JSON.parse(await readFile(require.resolve(`${name}/package.json`), "utf8")) as { version: string }).version;
  const key = cacheKey([
    "card-v1",
    theme.name,
    theme.version,
    `${card.width}x${card.height}`,
    // The component's own code: an edit to the card's look draws every card again.
    card.component.toString(),
    ...fonts.flatMap((f) => [`${f.name}:${f.weight}:${f.style}`, f.data]),
    await version("satori"),
    await version("@resvg/resvg-js"),
  ]);
  return { fonts, key };
}

/** Draws cards one after another on this thread (what a worker does for its slice). */
export const drawHere =
  (card: ThemeSocialCard): DrawCards =>
  async (props, fonts) => {
    const drawn: Uint8Array[] = [];
    for (const one of props) drawn.push(await drawCard(card, one, fonts));
    return drawn;
  };

/** One card: satori lays the theme's component out into an SVG, resvg rasterises it. */
export async function drawCard(card: ThemeSocialCard, props: unknown, fonts: LoadedFont[]): Promise<Uint8Array> {
  // Loaded only when a card is drawn (lib/packages.ts), not by a build that keeps every card.
  const [{ default: satori }, { Resvg }] = await Promise.all([loadPackage("satori", () => import("satori")), loadPackage("resvg", () => import("@resvg/resvg-js"))]);
  // A font handed over between threads arrives as a plain Uint8Array: satori reads Buffers.
  const buffers = fonts.map((f) => ({ ...f, data: Buffer.isBuffer(f.data) ? f.data : Buffer.from(f.data) }));
  const svg = await satori(card.component(props), { width: card.width, height: card.height, fonts: buffers });
  // satori has drawn the text as paths: resvg needs no font, and must not pick the machine's.
  return new Resvg(svg, { fitTo: { mode: "width", value: card.width }, font: { loadSystemFonts: false } }).render().asPng();
}
