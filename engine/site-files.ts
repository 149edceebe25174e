/**
 * Stage 5b — site files: what a site needs besides its pages. The RSS feed, sitemap.xml,
 * robots.txt, and `_headers` (Netlify and Cloudflare Pages read it) with the same security
 * policy the pages carry in their meta tag.
 */
import { createHash } from "node:crypto";
import { Feed } from "feed";
import type { SiteContent, Article } from "./content.js";
import { byCodePoint, type Route } from "./routes.js";

/** The Content-Security-Policy of every page: scripts from the site itself, inline ones only by hash. */
export function contentSecurityPolicy(inlineScripts: readonly string[], newsletterEndpoint?: string): string {
  const hashes = inlineScripts.map((s) => `'sha256-${createHash("sha256").update(s).digest("base64")}'`);
  const endpoint = newsletterEndpoint ? ` ${new URL(newsletterEndpoint).origin}` : "";
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

export function absoluteUrl(siteUrl: string, routePath: string): string {
  return `${siteUrl.replace(/\/+$/, "")}${routePath === "/" ? "/" : routePath}`;
}

/** `2025-08-04` or `2025-08` → a Date at noon UTC, stable across time zones. */
function dateOf(article: Article): Date | undefined {
  const iso = article.meta.date?.iso;
  if (!iso) return undefined;
  return new Date(`${iso.length === 7 ? `${iso}-01` : iso}T12:00:00Z`);
}

const escapeXml = (s: string) => s.replace(/[<>&'"]/g, (c) => `&#${c.charCodeAt(0)};`);

export function siteFiles(content: SiteContent, routes: readonly Route[], csp: string): Map<string, string> {
  const site = content.site.value;
  const files = new Map<string, string>();

  // Feed: the articles with a date, newest first.
  const dated = routes
    .filter((r): r is Extract<Route, { kind: "article" }> => r.kind === "article")
    .map((r) => ({ route: r, date: dateOf(r.article.pt) }))
    .filter((x): x is { route: Extract<Route, { kind: "article" }>; date: Date } => x.date !== undefined)
    .sort((a, b) => b.date.getTime() - a.date.getTime() || byCodePoint(a.route.path, b.route.path))
    .slice(0, 50);
  const feed = new Feed({
    title: site.name,
    description: site.home.description,
    id: absoluteUrl(site.siteUrl, "/"),
    link: absoluteUrl(site.siteUrl, "/"),
    language: "pt-BR",
    favicon: absoluteUrl(site.siteUrl, "/favicon.svg"),
    copyright: site.footer.copyright,
    updated: dated[0]?.date,
    generator: false,
    feedLinks: { rss: absoluteUrl(site.siteUrl, "/feed.xml") },
    author: { name: site.author },
  });
  for (const { route, date } of dated) {
    const { meta } = route.article.pt;
    const url = absoluteUrl(site.siteUrl, route.path);
    feed.addItem({
      title: meta.title,
      id: url,
      link: url,
      date,
      description: meta.lead ?? meta.description,
      category: meta.category ? [{ name: meta.category }] : undefined,
      author: [{ name: site.author }],
    });
  }
  files.set("feed.xml", feed.rss2());

  // Sitemap: every page but the 404.
  const urls = routes
    .filter((r) => r.kind !== "not-found")
    .map((r) => {
      const article = r.kind === "article" ? r.article.pt : r.kind === "home" ? r.featured.pt : undefined;
      const iso = article?.meta.date?.iso;
      const lastmod = iso && iso.length === 10 ? `<lastmod>${iso}</lastmod>` : "";
      return `  <url><loc>${escapeXml(absoluteUrl(site.siteUrl, r.path))}</loc>${lastmod}</url>`;
    });
  files.set(
    "sitemap.xml",
    `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${urls.join("\n")}\n</urlset>\n`,
  );

  files.set("robots.txt", `User-agent: *\nAllow: /\n\nSitemap: ${absoluteUrl(site.siteUrl, "/sitemap.xml")}\n`);

  const headers = securityHeaders(csp)
    .map(([name, value]) => `  ${name}: ${value}`)
    .join("\n");
  files.set("_headers", `/*\n${headers}\n\n/assets/*\n  Cache-Control: public, max-age=31536000, immutable\n`);
  return files;
}
