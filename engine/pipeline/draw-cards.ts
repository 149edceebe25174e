/**
 * The card stage's shell: around the compute core (stages/cards/cards.ts), what reads and
 * writes. The core says which card each route wants (its key, which names its file: the
 * pages are rendered and written before any card is drawn, `cardPlan`) and puts the site's cards
 * together; here, each is found where it already is (drawn this run or the last, kept in the
 * output by the last build, in the media cache on disk), the others are drawn (on the
 * threads, `draw`) and stored in the media cache. A build in which no card changed reads
 * neither the fonts' nor the cards' files twice, and loads neither satori nor resvg.
 */
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import { cacheKey, MediaCache } from "../incremental/media-cache.js";
import { staged, type Staged } from "../lib/errors.js";
import type { SiteContent } from "../stages/load/content.js";
import type { Route } from "../stages/routes/routes.js";
import { CARD_DRAWING, cardsEnabled, plannedCards, siteCards, wantedCards, type CardMemory, type CardSetup, type DrawCards, type KeptCard, type LoadedFont, type SiteCards, type WantedCard } from "../stages/cards/cards.js";
import type { SocialCard, Theme, ThemeSocialCard } from "../theme.js";

export interface CardStageInput {
  routes: readonly Route[];
  content: SiteContent;
  siteUrl: string;
  projectRoot: string;
  memory: CardMemory;
  /** The cards of the last build, by key (its record). */
  previous: Readonly<Record<string, KeptCard>>;
}

/** The cards a build wants, each named by its key before any is drawn: what the pages name, and what the card stage then finds or draws. */
export interface CardPlan {
  /** Undefined when the site has no cards. */
  setup?: CardSetup;
  wanted: WantedCard[];
  /** Each route's card as its page names it. */
  byRoute: ReadonlyMap<string, SocialCard>;
}

/** The cards every route wants and their names, from the fonts and each page's props: no card is read or drawn. */
export async function cardPlan({ routes, content, siteUrl, projectRoot, memory, previous }: CardStageInput, theme: Theme): Promise<CardPlan> {
  const card = theme.socialCard;
  if (!card || !cardsEnabled(theme, content.site.value)) return { wanted: [], byRoute: new Map() };
  // The part of every key that does not depend on the page: without the fonts' bytes read
  // again while the fonts' files are as they were.
  const setup = memory.setup ?? (await loadFonts(card, theme, createRequire(path.join(projectRoot, "package.json"))));
  const wanted = wantedCards(routes, content, card, setup, previous);
  return { setup, wanted, byRoute: plannedCards(wanted, card, siteUrl) };
}

/**
 * Stage 6: the card of every route the plan names, found or drawn; returns them and what to
 * remember. A card whose key is the last build's and whose file the output still holds
 * (`reuse`) is neither drawn nor read: a body edit that changes no card's text costs a key per page.
 */
export async function cardStage(
  plan: CardPlan,
  { projectRoot, siteUrl, memory, previous }: CardStageInput,
  theme: Theme,
  reuse: (file: string, size: number) => Promise<boolean>,
  draw: DrawCards,
): Promise<Staged<{ cards: SiteCards; memory: CardMemory }>> {
  const card = theme.socialCard;
  const { setup, wanted } = plan;
  if (!card || !setup) return staged({ cards: { byRoute: new Map(), lengths: new Map(), files: new Map(), kept: {} }, memory: { setup: memory.setup, drawn: new Map() } });
  const cache = new MediaCache<Record<string, never>>(projectRoot, "cards");
  // Cards of titles no longer on the site are let go: only this run's are remembered.
  const drawn = new Map<string, Uint8Array>();
  const toDraw = new Map<string, unknown>();
  const found: ({ kept: KeptCard } | { png: Uint8Array } | undefined)[] = [];
  for (const { route, key, file, props } of wanted) {
    // The last build's card of this key, under the name this build gives it (a record of names made otherwise is not kept).
    const known = previous[key]?.route === route.path && previous[key]?.file === file ? previous[key] : undefined;
    let png = drawn.get(key) ?? memory.drawn.get(key);
    if (!png && known && (await reuse(known.file, known.length))) {
      found.push({ kept: known });
      continue;
    }
    png ??= toDraw.has(key) ? undefined : (await cache.get(key))?.files.get("card.png");
    if (png) drawn.set(key, png);
    else toDraw.set(key, props);
    found.push(png && { png });
  }
  const keys = [...toDraw.keys()];
  const pngs = await draw([...toDraw.values()], setup.fonts);
  for (const [i, key] of keys.entries()) {
    drawn.set(key, pngs[i]!);
    await cache.put(key, { meta: {}, files: new Map([["card.png", pngs[i]!]]) });
  }
  const all = found.map((it, i) => it ?? { png: drawn.get(wanted[i]!.key)! });
  return staged({ cards: siteCards(wanted, all, card, siteUrl), memory: { setup, drawn } });
}

/** The fonts, and the part of every key that does not depend on the page. */
async function loadFonts(card: ThemeSocialCard, theme: Theme, require: NodeRequire): Promise<CardSetup> {
  const fonts = await Promise.all(
    card.fonts.map(async (font) => {
      if (font.source.endsWith(".woff2")) throw new Error(`the social card's font ${font.source} is WOFF2, which satori cannot read: use the .woff beside it`);
      return { name: font.name, data: await readFile(require.resolve(font.source)), weight: font.weight, style: font.style };
    }),
  );
  const version = async (name: string) => (JSON.parse(await readFile(require.resolve(`${name}/package.json`), "utf8")) as { version: string }).version;
  const head = [CARD_DRAWING, theme.name, theme.version, `${card.width}x${card.height}`];
  const tail = [...fonts.flatMap((f) => [`${f.name}:${f.weight}:${f.style}`, f.data]), await version("satori"), await version("@resvg/resvg-js")];
  // The key has the component's own code: an edit to the card's look draws every card again.
  // The name has what the component returns instead (stages/cards/cards.ts, cardName).
  return { fonts, key: cacheKey([...head, card.component.toString(), ...tail]), name: cacheKey([...head, ...tail]) };
}
