/**
 * Stage 2 — routes: the one place that knows every URL of the site and the file it is
 * written to. Also checks what points at routes: cards, editions and the home page.
 */
import { ContentError } from "./errors.js";
import type { Article, SiteContent } from "./content.js";
import { errorAt, formatKey, type LocatableSource } from "./yaml-source.js";

export type Route =
  | { kind: "home"; path: "/"; outFile: string; featured: ArticleVariants }
  | { kind: "article"; path: string; outFile: string; article: ArticleVariants }
  | { kind: "not-found"; path: "/404"; outFile: string };

/** An article and, when it has one, its English version at the same route. */
export interface ArticleVariants {
  pt: Article;
  en?: Article;
}

/** Code-point order: deterministic and independent of the machine's locale (and fast). */
export const byCodePoint = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** `/` → `index.html`; `/artigo/x` → `artigo/x.html`: every route is served at its exact path. */
export function outFileOf(routePath: string): string {
  return routePath === "/" ? "index.html" : `${routePath.slice(1)}.html`;
}

const RESERVED = new Set(["/404", "/index", "/assets", "/feed", "/sitemap"]);

export interface RouteTable {
  routes: Route[];
  byPath: Map<string, Route>;
  errors: ContentError[];
}

/** Builds the route table, failing on duplicate routes and on links to routes that do not exist. */
export function buildRoutes(content: SiteContent): RouteTable {
  const errors: ContentError[] = [];
  const byRoute = new Map<string, { pt?: Article; en?: Article }>();

  for (const article of content.articles) {
    if (RESERVED.has(article.route) || article.route.startsWith("/assets/")) {
      errors.push(
        errorAt(article, ["route"], {
          message: `the route ${article.route} is reserved by the site`,
          hint: "choose another `route:` or rename the file",
        }),
      );
      continue;
    }
    const slot = byRoute.get(article.route) ?? {};
    const taken = slot[article.lang];
    if (taken) {
      // Point at the file that claims the route explicitly, when one of them does.
      const culprit = "route" in article.frontMatter || !("route" in taken.frontMatter) ? article : taken;
      errors.push(
        errorAt(culprit, ["route"], {
          message: `two articles have the route ${article.route}${article.lang === "en" ? " in English" : ""}: ${taken.file} and ${article.file}`,
          hint: "give one of them another `route:` in its front matter, or rename its file",
        }),
      );
      continue;
    }
    slot[article.lang] = article;
    byRoute.set(article.route, slot);
  }

  const routes: Route[] = [];
  const byPath = new Map<string, Route>();
  const add = (route: Route) => {
    routes.push(route);
    byPath.set(route.path, route);
  };

  for (const [path, slot] of [...byRoute].sort(([a], [b]) => byCodePoint(a, b))) {
    if (!slot.pt) {
      const en = slot.en!;
      errors.push(
        new ContentError({
          file: en.file,
          line: 1,
          source: en.source,
          message: `the English article ${path} has no Portuguese version`,
          hint: "every page is Portuguese first: add the Portuguese article with the same route, or set `lang: pt`",
        }),
      );
      continue;
    }
    if (path === "/") continue;
    add({ kind: "article", path, outFile: outFileOf(path), article: { pt: slot.pt, en: slot.en } });
  }

  const site = content.site;
  const featured = byRoute.get(site.value.home.featured);
  if (featured?.pt) {
    add({ kind: "home", path: "/", outFile: "index.html", featured: { pt: featured.pt, en: featured.en } });
  } else {
    errors.push(missingRoute(site, ["home", "featured"], site.value.home.featured));
  }
  add({ kind: "not-found", path: "/404", outFile: "404.html" });

  // A card or edition pointing at a draft is left out until the draft is published.
  content.cards.value.forEach((card, i) => {
    if (!byPath.has(card.route) && !content.draftRoutes.has(card.route)) errors.push(missingRoute(content.cards, [i, "route"], card.route));
  });
  content.editions.value.forEach((edition, i) => {
    if (!byPath.has(edition.route) && !content.draftRoutes.has(edition.route)) {
      errors.push(missingRoute(content.editions, [i, "route"], edition.route));
    }
  });

  routes.sort((a, b) => byCodePoint(a.path, b.path));
  return { routes, byPath, errors };
}

function missingRoute(target: LocatableSource, path: (string | number)[], route: string): ContentError {
  return errorAt(target, path, {
    message: `\`${formatKey(path)}\` points to ${route}, but no article has that route`,
    hint: "use the route of an existing article (see content/articles), or add the article",
  });
}
