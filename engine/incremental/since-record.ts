/**
 * What may have changed since the build whose record a run starts from, as the stages know
 * it, for a run that has no earlier run of its own to compare with (a one-shot build, watch
 * mode's first). The page check (pipeline/render-pages.ts, `keptPages`) then takes a page none
 * of whose own values may have changed without hashing them, where it hashed every page's
 * route, card and sum; the editorial rules go over the articles changed and those they found
 * something in (stages/checks/editorial-rules.ts), where they went over every text (at
 * 100,000 articles, together, about a seventh of a one-article edit: bench/README.md, session 34).
 *
 * It holds only when the store's entries are those that build left (`BuildCache.withRecord`):
 * an article whose text is its entry's is the article that build read, a body the Markdown
 * stage did not make is the body that build's pages showed. Everything else is said here:
 * the articles whose text is another, new or gone, and the routes they had; the bodies made
 * now; the cards whose key or file is not that build's. A value it does not speak of (a
 * listing, the site, the theme's code) is never vouched for: the pages check it as before.
 */
import { hashOfAll, isRecord } from "../lib/hash.js";
import type { Article } from "../stages/load/content.js";
import { articleOf, type RouteTable } from "../stages/routes/routes.js";
import type { KeptCard, WantedCard } from "../stages/cards/cards.js";

/** The values of a run's pages that may differ from those of the build whose record it starts from (plain data). */
export interface SinceRecord {
  /** The routes whose value (`dep.route`: kind, template, each article's file and text) may differ. */
  routes: ReadonlySet<string>;
  /** The articles' files whose body the Markdown stage made in this run (any other is the store's). */
  bodies: ReadonlySet<string>;
  /** The routes whose social card may differ. */
  cards: ReadonlySet<string>;
}

/** The articles whose text is not the recorded build's, and the routes that may show another article than they did. */
export interface ArticlesSince {
  /** The files of the run's articles whose text is another than their entry's: new, changed, or not kept by the store. */
  changed: ReadonlySet<string>;
  /** The routes whose value (`dep.route`) may differ: those articles' routes then and now, the routes that show them, the routes of the files gone. */
  routes: ReadonlySet<string>;
}

export interface ArticlesInput {
  /** The run's articles, and every article file its load found (drafts and failed ones too). */
  articles: readonly Article[];
  present: ReadonlySet<string>;
  /** The store's entries as the recorded build left them, by file. */
  stored: ReadonlyMap<string, { sourceHash: string; article?: unknown }>;
  table: RouteTable;
}

/** What the load and the routes say of the articles since the recorded build. */
export function articlesSince({ articles, present, stored, table }: ArticlesInput): ArticlesSince {
  const routes = new Set<string>();
  const changed = new Set<string>();
  /** The route an entry's article had in the recorded build. */
  const routeOf = (entry: { article?: unknown } | undefined) => (isRecord(entry?.article) && typeof entry.article.route === "string" ? entry.article.route : undefined);
  for (const article of articles) {
    const entry = stored.get(article.file);
    const before = routeOf(entry);
    if (entry?.sourceHash === article.sourceHash && before === article.route) continue;
    // Another text, a new file, or an article the store did not keep: its route then and now.
    changed.add(article.file);
    if (before !== undefined) routes.add(before);
  }
  // A file gone since: the route it had (its translations' pages named it).
  for (const [file, entry] of stored) {
    if (present.has(file)) continue;
    const before = routeOf(entry);
    if (before !== undefined) routes.add(before);
  }
  if (changed.size > 0) {
    for (const route of table.routes) {
      const variants = articleOf(route);
      if (variants && (changed.has(variants.main.file) || variants.translations.some((t) => changed.has(t.file)))) routes.add(route.path);
    }
  }
  return { changed, routes };
}

/** The cards the run wants and the recorded build's by key, with what every card's value is made of beside its key (`cardFrame`) now and then. */
export interface CardsSince {
  wanted: readonly Pick<WantedCard, "route" | "key" | "file">[];
  recorded: Readonly<Record<string, KeptCard>>;
  frame: string;
  recordedFrame?: string;
}

/**
 * What a card's value (its address, size and text: stages/cards/cards.ts, `plannedCards`) is
 * made of beside its key and file: the site's address and the theme's code (`code`: the keys
 * of its parts; without them the cache's version is the code's).
 */
export function cardFrame(siteUrl: string, code: Readonly<Record<string, string>> | undefined): string {
  return hashOfAll([siteUrl, JSON.stringify(Object.entries(code ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))]);
}

/** What may differ since the recorded build (`made`: the bodies the Markdown stage made); undefined when the cards' frame is not that build's (every card may differ). */
export function sinceRecord(articles: ArticlesSince, made: readonly string[], cards: CardsSince): SinceRecord | undefined {
  const anyCards = cards.wanted.length > 0 || Object.keys(cards.recorded).length > 0;
  if (anyCards && cards.frame !== cards.recordedFrame) return undefined;
  return { routes: articles.routes, bodies: new Set(made), cards: changedCards(cards) };
}

/** The routes whose card is not the recorded build's: another key or file, or a card on one side only. */
function changedCards({ wanted, recorded }: CardsSince): Set<string> {
  const changed = new Set<string>();
  const now = new Set<string>();
  for (const { route, key, file } of wanted) {
    now.add(route.path);
    const kept = Object.hasOwn(recorded, key) ? recorded[key] : undefined;
    if (kept?.route !== route.path || kept.file !== file) changed.add(route.path);
  }
  for (const key in recorded) if (!now.has(recorded[key]!.route)) changed.add(recorded[key]!.route);
  return changed;
}
