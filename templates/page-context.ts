/** What the blog's templates know about the site being built, typed for this theme. */
import type { PageContext } from "../engine/theme.js";
import type { Article, SiteContent } from "../engine/content.js";
import type { ArticleVariants } from "../engine/routes.js";
import { byCodePoint } from "../engine/routes.js";
import type { CafeMeta, Card, Edition, Labels, Language, SiteSettings } from "./schema.js";

export type CafePageContext = PageContext<SiteSettings>;

/** An article as this theme reads it. */
export type CafeArticle = Article & { meta: CafeMeta; lang: Language };

/** The Portuguese article of a route and its English version, when it has one. */
export function bilingual(variants: ArticleVariants): { pt: CafeArticle; en?: CafeArticle } {
  return { pt: variants.main as CafeArticle, en: variants.translations.find((a) => a.lang === "en") as CafeArticle | undefined };
}

/** The labels (content/site.yaml `labels`) of a content's language; Portuguese for any other. */
export function labelsOf(site: SiteSettings, lang: string): Labels {
  return lang === "en" ? site.labels.en : site.labels.pt;
}

export const cardsOf = (content: SiteContent) => content.collections.cards!.value as Card[];
export const editionsOf = (content: SiteContent) => content.collections.editions!.value as Edition[];

const series = new WeakMap<SiteContent, Map<string, { route: string; title: string }[]>>();

/** The Portuguese articles of a series, in route order (computed once per build). */
export function seriesOf(content: SiteContent, id: string): { route: string; title: string }[] {
  let all = series.get(content);
  if (!all) {
    all = new Map();
    for (const a of content.articles as CafeArticle[]) {
      if (!a.meta.series || a.lang !== "pt") continue;
      const list = all.get(a.meta.series) ?? [];
      list.push({ route: a.route, title: a.meta.title });
      all.set(a.meta.series, list);
    }
    for (const list of all.values()) list.sort((a, b) => byCodePoint(a.route, b.route));
    series.set(content, all);
  }
  return all.get(id) ?? [];
}
