/** What the blog's templates know about the site being built, typed for this theme. */
import { byCodePoint, type Article, type ArticleVariants, type ContentOf, type ListingsOf, type PageContext } from "../engine/index.js";
import type { CafeCollections, CafeMeta, Card, CardEntry, Edition, EditionEntry, frontMatter, Labels, Language, SiteSettings } from "./schema.js";

/** The site's content as this theme's schemas validated it. */
export type CafeContent = ContentOf<SiteSettings, typeof frontMatter, CafeCollections>;
export type CafePageContext = PageContext<SiteSettings, CafeMeta, CafeCollections, ListingsOf<typeof listings>>;

/** An article as this theme reads it. */
export type CafeArticle = Article<CafeMeta>;

/** An article's language among this blog's two: Portuguese unless it says English. */
export const languageOf = (article: CafeArticle): Language => (article.lang === "en" ? "en" : "pt");

/** The Portuguese article of a route and its English version, when it has one. */
export function bilingual(variants: ArticleVariants<CafeMeta>): { pt: CafeArticle; en?: CafeArticle } {
  return { pt: variants.main, en: variants.translations.find((a) => a.lang === "en") };
}

/** The labels (content/site.yaml `labels`) of a content's language; Portuguese for any other. */
export function labelsOf(site: SiteSettings, lang: string): Labels {
  return lang === "en" ? site.labels.en : site.labels.pt;
}

// ---- Cards and editions -------------------------------------------------------------------

/** The values an entry of cards.yaml or editions.yaml may take from the article it opens. */
export const DERIVED = ["title", "category", "date", "readTime"] as const;
type Derived = { title?: string; category?: string; date?: string; readTime?: number };

/** A value an entry neither writes nor can take from an article: its path in the YAML file. */
export interface MissingValue {
  index: number;
  key: (string | number)[];
  route: string;
  /** Where the value would have come from: the article (its language), or none at that route. */
  article?: CafeArticle;
  /** The language the value is missing in. */
  lang: Language;
}

/** Every entry, complete, in file order; the incomplete ones are left out and listed in `missing`. */
interface Resolved<T> {
  entries: T[];
  missing: MissingValue[];
}

const ownValues = (article: CafeArticle | undefined): Derived => ({
  title: article?.meta.title,
  category: article?.meta.category,
  date: article?.meta.date?.text,
  readTime: article?.meta.readTime,
});

/**
 * The articles of each of `entries`' routes, by language (drafts only when the build includes
 * them). Only the routes the entries name: a site of thousands of articles has a few cards,
 * and a dev save resolves them again.
 */
function articlesByRoute(content: CafeContent, entries: readonly { route: string }[]): Map<string, Partial<Record<Language, CafeArticle>>> {
  const byRoute = new Map<string, Partial<Record<Language, CafeArticle>>>(entries.map((e) => [e.route, {}]));
  for (const a of content.articles) {
    const found = byRoute.get(a.route);
    if (found) found[languageOf(a)] = a;
  }
  return byRoute;
}

/**
 * Fills the values `written` leaves out from `article`; a key still without a value goes to
 * `missing` with its path (`at`), and the result is then undefined.
 */
function complete<K extends keyof Derived>(
  written: Partial<Record<K, unknown>>,
  keys: readonly K[],
  article: CafeArticle | undefined,
  missing: Omit<MissingValue, "key">,
  at: (string | number)[],
  out: MissingValue[],
): Required<Pick<Derived, K>> | undefined {
  const own = ownValues(article);
  const values: Partial<Derived> = {};
  let ok = true;
  for (const key of keys) {
    const value = (written[key] as Derived[K] | undefined) ?? own[key];
    if (value === undefined) {
      out.push({ ...missing, key: [...at, key] });
      ok = false;
    } else (values as Record<string, unknown>)[key] = value;
  }
  return ok ? (values as Required<Pick<Derived, K>>) : undefined;
}

const resolvedCards = new WeakMap<CafeContent, Resolved<Card>>();
const resolvedEditions = new WeakMap<CafeContent, Resolved<Edition>>();

/** cards.yaml, each card completed from its article (computed once per build). */
export function resolveCards(content: CafeContent): Resolved<Card> {
  let resolved = resolvedCards.get(content);
  if (!resolved) {
    const articles = articlesByRoute(content, cardEntriesOf(content));
    const missing: MissingValue[] = [];
    const entries: Card[] = [];
    cardEntriesOf(content).forEach((entry, index) => {
      const { pt, en } = articles.get(entry.route) ?? {};
      const values = complete(entry, DERIVED, pt, { index, route: entry.route, article: pt, lang: "pt" }, [index], missing);
      // The English card takes its title and category from the English article.
      const english = entry.en && complete(entry.en, ["title", "category"] as const, en, { index, route: entry.route, article: en, lang: "en" }, [index, "en"], missing);
      if (!values || (entry.en && !english)) return;
      const { en: _, ...written } = entry;
      const card: Card = { ...written, ...values };
      if (entry.en && english) card.en = { category: english.category, title: english.title, excerpt: entry.en.excerpt };
      entries.push(card);
    });
    resolved = { entries, missing };
    resolvedCards.set(content, resolved);
  }
  return resolved;
}

/** editions.yaml, each edition completed from the article it opens (computed once per build). */
export function resolveEditions(content: CafeContent): Resolved<Edition> {
  let resolved = resolvedEditions.get(content);
  if (!resolved) {
    const articles = articlesByRoute(content, editionEntriesOf(content));
    const missing: MissingValue[] = [];
    const entries: Edition[] = [];
    editionEntriesOf(content).forEach((entry, index) => {
      const pt = articles.get(entry.route)?.pt;
      const values = complete(entry, ["title", "date", "readTime"] as const, pt, { index, route: entry.route, article: pt, lang: "pt" }, [index], missing);
      if (!values) return;
      // The island's props are this object: its keys keep the file's order.
      const { id, description, featured, route } = entry;
      entries.push({ id, title: values.title, date: values.date, description, featured, route, readTime: values.readTime });
    });
    resolved = { entries, missing };
    resolvedEditions.set(content, resolved);
  }
  return resolved;
}

/** The entries as written (checks point at their lines by index). */
export const cardEntriesOf = (content: CafeContent): CardEntry[] => content.collections.cards.value;
export const editionEntriesOf = (content: CafeContent): EditionEntry[] => content.collections.editions.value;
/** The cards and editions to show, every value written or taken from the article. */
export const cardsOf = (content: CafeContent): Card[] => resolveCards(content).entries;
export const editionsOf = (content: CafeContent): Edition[] => resolveEditions(content).entries;

/** Every series: the Portuguese articles of each, in route order (a listing: pages read it through `ctx.listing`). */
export function allSeries(content: CafeContent): Record<string, { route: string; title: string }[]> {
  const all: Record<string, { route: string; title: string }[]> = {};
  for (const a of content.articles) {
    if (!a.meta.series || a.lang !== "pt") continue;
    (all[a.meta.series] ??= []).push({ route: a.route, title: a.meta.title });
  }
  for (const list of Object.values(all)) list.sort((a, b) => byCodePoint(a.route, b.route));
  return all;
}

/** The articles of a series, in route order: a page showing it is rendered again only when the list changes. */
export function seriesOf(ctx: CafePageContext, id: string): { route: string; title: string }[] {
  return ctx.listing("series")[id] ?? [];
}

/** The theme's listings: values computed from the whole content that pages read through `ctx.listing(name)`. */
export const listings = { cards: cardsOf, series: allSeries };
