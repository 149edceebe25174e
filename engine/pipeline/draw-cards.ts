/**
 * The card stage's shell: around the compute core (stages/cards/cards.ts), what reads and
 * writes. The core says which card each route wants (its key, which names its file: the
 * pages are rendered and written before any card is drawn, `cardPlan`) and puts the site's cards
 * together; here, each is found where it already is (kept in the output by the last build,
 * in the media cache on disk), the others are drawn (on the threads, `draw`) and stored in the
 * media cache. Each card is written to the output as soon as it is had, and let go. A build
 * in which no card changed reads neither the fonts' nor the cards' files twice, and loads
 * neither satori nor resvg.
 */
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import { cacheKey, MediaCache } from "../incremental/media-cache.js";
import { staged, type Staged } from "../lib/errors.js";
import type { SiteContent } from "../stages/load/content.js";
import type { Route } from "../stages/routes/routes.js";
import { CARD_DRAWING, cardsEnabled, plannedCards, siteCards, wantedCards, type CardMemory, type CardSetup, type DrawCards, type KeptCard, type LoadedFont, type SiteCards, type WantedCard } from "../stages/cards/cards.js";
import { installedSharp } from "../lib/packages.js";
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
  /** Writes a card to the output; true when its bytes are not the published build's. */
  store: (file: string, png: Uint8Array) => Promise<boolean>,
): Promise<Staged<{ cards: SiteCards; memory: CardMemory }>> {
  const card = theme.socialCard;
  const { setup, wanted } = plan;
  if (!card || !setup) return staged({ cards: { byRoute: new Map(), lengths: new Map(), files: [], changed: [], kept: {} }, memory: { setup: memory.setup } });
  const cache = new MediaCache<Record<string, never>>(projectRoot, "cards");
  const found: ({ kept: KeptCard } | { length: number } | undefined)[] = [];
  /** The files of each card still to write, by key (two routes may want the same card under their own names). */
  const filesOf = new Map<string, string[]>();
  const propsOf = new Map<string, unknown>();
  for (const { route, key, file, props } of wanted) {
    // The last build's card of this key, under the name this build gives it (a record of names made otherwise is not kept).
    const known = previous[key]?.route === route.path && previous[key]?.file === file ? previous[key] : undefined;
    if (known && (await reuse(known.file, known.length))) {
      found.push({ kept: known });
      continue;
    }
    found.push(undefined);
    filesOf.set(key, [...(filesOf.get(key) ?? []), file]);
    propsOf.set(key, props);
  }
  const written = { files: [] as string[], changed: [] as string[] };
  const lengthOf = new Map<string, number>();
  // Each card is written as soon as it is had (read or drawn), and not held: what stays is its length.
  const write = async (key: string, png: Uint8Array) => {
    lengthOf.set(key, png.length);
    for (const file of filesOf.get(key)!) {
      written.files.push(file);
      if (await store(file, png)) written.changed.push(file);
    }
  };
  const toDraw: string[] = [];
  for (const key of filesOf.keys()) {
    const png = (await cache.get(key))?.files.get("card.png");
    if (png) await write(key, png);
    else toDraw.push(key);
  }
  let i = 0;
  for await (const png of draw(toDraw.map((key) => propsOf.get(key)), setup.fonts)) {
    const key = toDraw[i++]!;
    await cache.put(key, { meta: {}, files: new Map([["card.png", png]]) });
    await write(key, png);
  }
  const all = found.map((it, n) => it ?? { length: lengthOf.get(wanted[n]!.key)! });
  return staged({ cards: siteCards(wanted, all, card, siteUrl, written), memory: { setup } });
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
  const tail = [...fonts.flatMap((f) => [`${f.name}:${f.weight}:${f.style}`, f.data]), await version("satori"), await version("@resvg/resvg-js"), ...installedSharp().map(([name, version]) => `${name}@${version}`)];
  // The key has the component's own code: an edit to the card's look draws every card again.
  // The name has what the component returns instead (stages/cards/cards.ts, cardName).
  return { fonts, key: cacheKey([...head, card.component.toString(), ...tail]), name: cacheKey([...head, ...tail]) };
}
