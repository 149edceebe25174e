/**
 * Site files, made by the render stage after the pages (the feed after the social cards): what a site needs besides its pages. The RSS feed, sitemap.xml,
 * robots.txt, and `_headers` (Netlify and Cloudflare Pages read it) with the same security
 * policy the pages carry in their meta tag.
 */
import { scriptHash } from "../../lib/hash.js";
import { absoluteUrl } from "../../lib/site-paths.js";
import type { Feed } from "feed";
import { loadPackage } from "../../lib/packages.js";
import type { Article } from "../load/content.js";
import { articleOf, byCodePoint, type Route } from "../routes/routes.js";
import type { SiteMeta, SocialCard } from "../../theme.js";

/** The Content-Security-Policy of every page: scripts from the site itself, inline ones only by hash. */
export function contentSecurityPolicy(inlineScripts: readonly string[], connect: readonly string[] = []): string {
  const hashes = inlineScripts.map((s) => `'sha256-${scriptHash(s)}'`);
  const endpoint = connect.map((url) => ` ${new URL(url).origin}`).join("");
  return [
    "default-src 'self'",
    `script-src 'self' ${hashes.join(" ")}`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src 'self'",
    `connect-src 'self'${endpoint}`,
    `form-action 'self'${endpoint}`,
    "base-uri 'self'",
    "object-src 'none'",
  ].join("; ");
}

/** Security headers for hosts that take a `_headers` file, and for deploy/nginx.conf. */
export function securityHeaders(csp: string): [string, string][] {
  return [
    ["Content-Security-Policy", `${csp}; frame-ancestors 'none'`],
    ["X-Content-Type-Options", "nosniff"],
    ["Referrer-Policy", "strict-origin-when-cross-origin"],
    ["Permissions-Policy", "camera=(), microphone=(), geolocation=(), interest-cohort=()"],
    ["X-Frame-Options", "DENY"],
  ];
}

/** `2025-08-04` or `2025-08` → a Date at noon UTC, stable across time zones. */
function dateOf(article: Article): Date | undefined {
  const iso = article.meta.date?.iso;
  if (!iso) return undefined;
  return new Date(`${iso.length === 7 ? `${iso}-01` : iso}T12:00:00Z`);
}

const XML_SPECIAL = /[<>&'"]/;
/** A text as XML: most addresses have nothing to escape, and are given back as they are (the sitemap's thousands, on every save). */
const escapeXml = (s: string) => (XML_SPECIAL.test(s) ? s.replace(/[<>&'"]/g, (c) => `&#${c.charCodeAt(0)};`) : s);

/** A card as the feed's enclosure states it: with its length in bytes, known once it is drawn. */
export type FeedCard = SocialCard & { length: number };

/** What the feed says (its channel and items, as the `feed` library takes them): plain data, made on every build; its XML only when it differs from the last build's. */
export interface FeedData {
  channel: ConstructorParameters<typeof Feed>[0];
  items: Parameters<Feed["addItem"]>[0][];
}

/**
 * What the RSS feed says: the articles with a date, newest first. Made after the social cards
 * (its enclosures state each card's length), so after the pages.
 */
export function feedData(
  site: SiteMeta,
  routes: readonly Route[],
  summaryOf: (article: Article) => string | undefined = (article) => article.meta.description,
  cardOf: (route: Route) => FeedCard | undefined = () => undefined,
): FeedData {
  const dated = newest(routes, 50);
  const channel = {
    title: site.name,
    description: site.description,
    id: absoluteUrl(site.url, "/"),
    link: absoluteUrl(site.url, "/"),
    language: site.language,
    favicon: absoluteUrl(site.url, site.favicon),
    copyright: site.copyright,
    updated: dated[0]?.date,
    generator: false,
    feedLinks: { rss: absoluteUrl(site.url, "/feed.xml") },
    author: { name: site.author },
  } as FeedData["channel"];
  const items = dated.map(({ route, date }) => {
    const { meta } = route.article.main;
    const url = absoluteUrl(site.url, route.path);
    const card = cardOf(route);
    return {
      title: meta.title,
      id: url,
      link: url,
      date,
      description: summaryOf(route.article.main),
      category: meta.category ? [{ name: meta.category }] : undefined,
      author: [{ name: site.author }],
      enclosure: card ? { url: card.url, type: card.type, length: card.length } : undefined,
    };
  });
  return { channel, items };
}

/** The feed's XML (RSS 2.0). The `feed` library (and the XML writer it brings) is loaded only to make it. */
export async function feedXml(data: FeedData): Promise<string> {
  const { Feed } = await loadPackage("feed", () => import("feed"));
  const feed = new Feed(data.channel);
  for (const item of data.items) feed.addItem(item);
  return feed.rss2();
}

/** The RSS feed of a site: `feedData`'s, as XML. */
export function feedFile(...args: Parameters<typeof feedData>): Promise<string> {
  return feedXml(feedData(...args));
}

type DatedRoute = { route: Extract<Route, { kind: "article" }>; date: Date };

/** The `count` newest dated articles' routes, newest first (ties by path): the order a sort of them all gives, without sorting them all. */
function newest(routes: readonly Route[], count: number): DatedRoute[] {
  const before = (a: DatedRoute, b: DatedRoute) => b.date.getTime() - a.date.getTime() || byCodePoint(a.route.path, b.route.path);
  const top: DatedRoute[] = [];
  for (const route of routes) {
    if (route.kind !== "article") continue;
    const date = dateOf(route.article.main);
    if (date === undefined) continue;
    const item = { route, date };
    if (top.length === count && before(item, top[count - 1]!) >= 0) continue;
    let at = top.length;
    while (at > 0 && before(item, top[at - 1]!) < 0) at--;
    top.splice(at, 0, item);
    if (top.length > count) top.pop();
  }
  return top;
}

/** A sitemap's text with what it was made of: the next run's is the same text when the site's address and every page's path and date are, in the same order (`siteFiles`). */
export interface SitemapMemo {
  url: string;
  paths: string[];
  dates: (string | undefined)[];
  text: string;
}

/** Every page but the 404, with its date; `last`, as it was, when its address and pages are the same, in the same order. */
function sitemap(site: SiteMeta, routes: readonly Route[], last: SitemapMemo | undefined): SitemapMemo {
  const pages = routes.filter((r) => r.kind !== "not-found");
  const paths = pages.map((r) => r.path);
  const dates = pages.map((r) => articleOf(r)?.main.meta.date?.iso);
  if (last && last.url === site.url && last.paths.length === paths.length && paths.every((p, i) => p === last.paths[i] && dates[i] === last.dates[i])) return last;
  const urls = pages.map((r, i) => {
    const iso = dates[i];
    const lastmod = iso && iso.length === 10 ? `<lastmod>${iso}</lastmod>` : "";
    return `  <url><loc>${escapeXml(absoluteUrl(site.url, r.path))}</loc>${lastmod}</url>`;
  });
  const text = `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${urls.join("\n")}\n</urlset>\n`;
  return { url: site.url, paths, dates, text };
}

/**
 * The sitemap, robots.txt and `_headers` of a site (its feed: `feedFile`). `memo` holds the
 * last run's sitemap (watch mode: the page check's snapshot, handed from run to run), and is
 * given this one's: a save that changed no page's path or date makes no sitemap of thousands
 * of addresses again.
 */
export function siteFiles(site: SiteMeta, routes: readonly Route[], csp: string, memo: { sitemap?: SitemapMemo } = {}): Map<string, string> {
  const files = new Map<string, string>();
  memo.sitemap = sitemap(site, routes, memo.sitemap);
  files.set("sitemap.xml", memo.sitemap.text);

  files.set("robots.txt", `User-agent: *\nAllow: /\n\nSitemap: ${absoluteUrl(site.url, "/sitemap.xml")}\n`);

  const headers = securityHeaders(csp)
    .map(([name, value]) => `  ${name}: ${value}`)
    .join("\n");
  files.set("_headers", `/*\n${headers}\n\n/assets/*\n  Cache-Control: public, max-age=31536000, immutable\n`);
  return files;
}
