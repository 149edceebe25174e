/**
 * Paths of a built site that several stages name: the files the render stage writes at the
 * site's root (the routes stage keeps their addresses free), and a route's absolute URL (the
 * cards, the old addresses' pages, the feed); and the record of published addresses, which the
 * up-to-date check names too.
 */

/** The record of published addresses, in the content folder (stages/routes/published-routes.ts): the one input a build writes. */
export const RECORD_FILE = "published-routes.txt";

/** The files the render stage's `siteFiles` writes at the site's root. */
export const SITE_FILES = ["feed.xml", "sitemap.xml", "robots.txt", "_headers"] as const;

/** A route's absolute address on the site: `https://site.example/x`. */
export function absoluteUrl(siteUrl: string, routePath: string): string {
  return `${siteUrl.replace(/\/+$/, "")}${routePath === "/" ? "/" : routePath}`;
}
