/**
 * Stage 2 — routes: the one place that knows every URL of the site and the file it is
 * written to: one route per article (its translations at the same path), the theme's pages
 * (the home page) and the 404 page.
 */
import { ContentError, staged, type Staged } from "../../lib/errors.js";
import type { Article, SiteContent } from "../load/content.js";
import { errorAt, formatKey, type LocatableSource } from "../../lib/yaml-source.js";
import { sourceText } from "../../lib/source-text.js";

export type Route<Meta extends object = Record<string, unknown>> =
  | { kind: "article"; path: string; outFile: string; template: string; article: ArticleVariants<Meta> }
  | { kind: "page"; path: string; outFile: string; template: string; featured?: ArticleVariants<Meta> }
  | { kind: "not-found"; path: "/404"; outFile: "404.html"; template: "not-found" };

/** An article in the site's default language and its translations at the same route. */
export interface ArticleVariants<Meta extends object = Record<string, unknown>> {
  main: Article<Meta>;
  translations: readonly Article<Meta>[];
}

/** The translations of an article that has none: one list for all of them (at 100,000 articles, 3 MB of empty lists). */
const NO_TRANSLATIONS: readonly Article[] = Object.freeze([]);

/** Code-point order: deterministic and independent of the machine's locale (and fast). */
export const byCodePoint = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** `/` → `index.html`; `/artigo/x` → `artigo/x.html`: every route is served at its exact path. */
export function outFileOf(routePath: string): string {
  return routePath === "/" ? "index.html" : `${routePath.slice(1)}.html`;
}

/** A page that is not an article (the home page), declared by the theme from the content. */
export interface PageSpec {
  path: string;
  template: string;
  /** An article this page shows whole: its anchors are the page's, its date the page's. */
  features?: { route: string; declaredIn: LocatableSource; key: (string | number)[] };
}

/** What a theme says about its routes: its languages, its templates' names and its pages. */
export interface RouteModel<Content = any> {
  languages: string[];
  templates: Record<string, unknown>;
  pages(content: Content): PageSpec[];
  /**
   * The pages made from the articles rather than promised by the site (a tag's listing, a
   * page of a paginated list), as route patterns: `/tags/:tag`, `/page/:n`. They come and go
   * with the articles: an address of one that no article makes any more is retired with a
   * notice, not an error (published-routes.ts).
   */
  derivedPages?: readonly string[];
}

/** Whether a pattern of `derivedPages` makes this route (`/tags/:tag` makes /tags/dessert). */
export function isDerived(patterns: readonly string[] | undefined, route: string): boolean {
  const parts = route.split("/");
  return (patterns ?? []).some((pattern) => {
    const want = pattern.split("/");
    return want.length === parts.length && want.every((w, i) => (w.startsWith(":") ? parts[i] !== "" : w === parts[i]));
  });
}

/** Routes no page may have, and so no old address either: the site's own files are there. */
export const RESERVED_ROUTES: ReadonlySet<string> = new Set(["/404", "/index", "/assets", "/feed", "/sitemap"]);

/** True for a route the site keeps for itself (its 404, its assets, its feed and sitemap). */
export const isReservedRoute = (route: string) => RESERVED_ROUTES.has(route) || route.startsWith("/assets/");

/**
 * The longest route, alias or redirect, in characters (the leading slash included). Old
 * addresses are the keys of nginx's map (deploy/nginx.conf sizes its buckets for keys this
 * long), and a route is also a file's name; generous for any title an author would shorten.
 */
export const MAX_ROUTE_LENGTH = 128;

/** What is wrong with an address longer than MAX_ROUTE_LENGTH (`what`: "the route", "the alias"…), if it is. */
export function tooLong(address: string, what: string): string | undefined {
  if (address.length <= MAX_ROUTE_LENGTH) return undefined;
  return `${what} ${address} is ${address.length} characters long; a route, alias or redirect may have at most ${MAX_ROUTE_LENGTH}`;
}

export interface RouteTable<Meta extends object = Record<string, unknown>> {
  routes: Route<Meta>[];
  byPath: Map<string, Route<Meta>>;
  /**
   * Routes that cannot be built for now, their own errors reported: an article that did not
   * load (or whose route or template is in error) and the pages that feature one. Nothing
   * pointing at them is an error too (`cannotTell`).
   */
  unreadable: ReadonlySet<string>;
  /** The theme's pages could not be listed (a file they read did not load): no other address can be judged. */
  pagesUnknown?: boolean;
  /** While an article did not load, the derived pages' patterns: one of them may be that article's (its tag's page). */
  derivedUnknown?: readonly string[];
}

/** Whether an address cannot be judged in this run because of errors reported on their own (see `RouteTable.unreadable`). */
export function cannotTell(table: RouteTable, route: string): boolean {
  if (table.byPath.has(route)) return false;
  return table.unreadable.has(route) || table.pagesUnknown === true || isDerived(table.derivedUnknown, route);
}

/**
 * Builds the route table, failing on duplicate or reserved routes and on pages featuring no
 * article. `unreadable`: routes of articles that did not load.
 */
export function buildRoutes(content: SiteContent, theme: RouteModel, unreadableArticles: ReadonlySet<string> = new Set()): Staged<RouteTable> {
  const errors: ContentError[] = [];
  // The routes that cannot be built for now: those articles', and the pages that feature one.
  const unreadable = new Set(unreadableArticles);
  const [defaultLanguage] = theme.languages;
  // The articles that claim each route, by language: one alone (nearly every route) as it is, not in a map of its own.
  const byRoute = new Map<string, Article | Map<string, Article>>();
  const inLanguage = (claims: Article | Map<string, Article>, lang: string) => (claims instanceof Map ? claims.get(lang) : claims.lang === lang ? claims : undefined);

  for (const article of content.articles) {
    if (isReservedRoute(article.route)) {
      errors.push(
        errorAt(article, ["route"], {
          message: `the route ${article.route} is reserved by the site`,
          hint: "choose another `route:` or rename the file",
        }),
      );
      continue;
    }
    const long = tooLong(article.route, "the route");
    if (long) {
      errors.push(
        "route" in article.frontMatter
          ? errorAt(article, ["route"], { message: long, hint: "set a shorter `route:`" })
          : // The route is the file's name.
            new ContentError({ file: article.file, line: 1, source: sourceText(article), message: long, hint: "give the file a shorter name, or set a shorter `route:`" }),
      );
      continue;
    }
    const template = article.meta.template ?? "article";
    if (!(template in theme.templates) || template === "not-found") {
      errors.push(
        errorAt(article, ["template"], {
          message: `unknown template '${template}'`,
          hint: `templates for articles: ${Object.keys(theme.templates).filter((t) => t !== "not-found").join(", ")}`,
        }),
      );
      continue;
    }
    const claims = byRoute.get(article.route);
    const taken = claims && inLanguage(claims, article.lang);
    if (taken) {
      // Point at the file that claims the route explicitly, when one of them does.
      const culprit = "route" in article.frontMatter || !("route" in taken.frontMatter) ? article : taken;
      errors.push(
        errorAt(culprit, ["route"], {
          message: `two articles have the route ${article.route}${article.lang === defaultLanguage ? "" : ` in ${article.lang}`}: ${taken.file} and ${article.file}`,
          hint: "give one of them another `route:` in its front matter, or rename its file",
        }),
      );
      continue;
    }
    if (claims === undefined) byRoute.set(article.route, article);
    else if (claims instanceof Map) claims.set(article.lang, article);
    else byRoute.set(article.route, new Map([[claims.lang, claims], [article.lang, article]]));
  }

  const routes: Route[] = [];
  const byPath = new Map<string, Route>();
  const add = (route: Route) => {
    routes.push(route);
    byPath.set(route.path, route);
  };
  const variants = new Map<string, ArticleVariants>();

  const otherLanguages = theme.languages.slice(1);
  for (const path of [...byRoute.keys()].sort(byCodePoint)) {
    const claims = byRoute.get(path)!;
    const main = inLanguage(claims, defaultLanguage!);
    if (!main) {
      const translation = claims instanceof Map ? claims.values().next().value : claims;
      if (!unreadable.has(path)) errors.push(
        new ContentError({
          file: translation!.file,
          line: 1,
          source: sourceText(translation!),
          message: `the '${translation!.lang}' article ${path} has no version in the site's default language ('${defaultLanguage}')`,
          hint: `every page starts in '${defaultLanguage}': add that article with the same route, or set \`lang: ${defaultLanguage}\``,
        }),
      );
      continue;
    }
    const translations: Article[] = [];
    if (claims instanceof Map) for (const lang of otherLanguages) if (claims.has(lang)) translations.push(claims.get(lang)!);
    const article = { main, translations: translations.length > 0 ? translations : NO_TRANSLATIONS };
    variants.set(path, article);
    if (path === "/") continue;
    add({ kind: "article", path, outFile: outFileOf(path), template: main.meta.template ?? "article", article });
  }

  // An article in error (its route reserved, its template unknown, no version in the default
  // language) has no page: its own error is reported, and what points at it is not judged.
  for (const article of content.articles) if (!byPath.has(article.route) && article.route !== "/") unreadable.add(article.route);
  let pages: PageSpec[] = [];
  let pagesUnknown = false;
  try {
    pages = theme.pages(content);
  } catch (error) {
    // The theme lists its pages from a file that did not load (its errors are reported).
    if (content.unavailable.length === 0) throw error;
    pagesUnknown = true;
  }
  for (const page of pages) {
    const featured = page.features && variants.get(page.features.route);
    if (page.features && !featured) {
      if (unreadable.has(page.features.route)) unreadable.add(page.path);
      else errors.push(missingRoute(page.features));
      continue;
    }
    add({ kind: "page", path: page.path, outFile: outFileOf(page.path), template: page.template, featured });
  }
  add({ kind: "not-found", path: "/404", outFile: "404.html", template: "not-found" });

  routes.sort((a, b) => byCodePoint(a.path, b.path));
  const derivedUnknown = unreadableArticles.size > 0 && theme.derivedPages?.length ? theme.derivedPages : undefined;
  return staged({ routes, byPath, unreadable, ...(pagesUnknown ? { pagesUnknown } : {}), ...(derivedUnknown ? { derivedUnknown } : {}) }, errors);
}

/** The article a route shows whole, when it shows one. */
export function articleOf<Meta extends object>(route: Route<Meta>): ArticleVariants<Meta> | undefined {
  return route.kind === "article" ? route.article : route.kind === "page" ? route.featured : undefined;
}

function missingRoute({ declaredIn, key, route }: NonNullable<PageSpec["features"]>, moved?: { to: string; file: string }): ContentError {
  return errorAt(declaredIn, key, {
    message: `\`${formatKey(key)}\` points to ${route}, but no article has that route`,
    hint: moved
      ? `its page moved to ${moved.to} (${moved.file}): write ${moved.to} (npm run move rewrites these entries when it renames an article)`
      : "use the route of an existing article (see content/articles), or add the article",
  });
}

/**
 * Errors for the entries of a listing (cards, editions) that point at a route no article
 * has; with `found` (the theme check's third argument), the hint says where the page went.
 */
export function routeErrors(
  list: LocatableSource & { value: readonly { route: string }[] },
  content: SiteContent,
  table: RouteTable,
  found?: { movedTo(route: string): { to: string; file: string } | undefined },
): ContentError[] {
  const errors: ContentError[] = [];
  // An entry pointing at a draft is left out until the draft is published.
  list.value.forEach((entry, i) => {
    if (!table.byPath.has(entry.route) && !content.draftRoutes.has(entry.route) && !cannotTell(table, entry.route)) {
      errors.push(missingRoute({ declaredIn: list, key: [i, "route"], route: entry.route }, found?.movedTo(entry.route)));
    }
  });
  return errors;
}
