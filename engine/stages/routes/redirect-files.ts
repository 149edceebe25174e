/**
 * The old addresses (aliases.ts) as each host needs them, all written into the site:
 *
 * - `_redirects`, for Netlify and Cloudflare Pages: `/old /new 301!`. The `!` makes Netlify
 *   redirect even though a file answers at the old address (the page below); Cloudflare
 *   always redirects first and reads the status with parseInt, so `301!` is a 301 there.
 *   Both keep the query string when the destination has none.
 * - `_redirects.map`, for nginx: the lines of a `map $uri` that deploy/nginx.conf includes
 *   (`/old /new;`), answered with `return 301` and the query string.
 * - one small page at each old address (`old.html`), for GitHub Pages, which cannot
 *   redirect: it sends the browser on (a script keeping the query and #fragment, and a
 *   `<meta http-equiv="refresh">` without scripts), names the new address as canonical,
 *   is `noindex`, and shows a link to it. Hosts that redirect never serve it.
 *
 * A browser keeps the #fragment across a redirect whose Location has none, so every host
 * keeps it (GitHub Pages' page too, through its script).
 */
import { scriptHash } from "../../lib/hash.js";
import type { Redirect } from "./aliases.js";
import { outFileOf } from "./routes.js";
import { absoluteUrl } from "../../lib/site-paths.js";

/** The files at the root that are for hosts, not readers (both servers answer them with 404). */
export const REDIRECT_FILES = ["_redirects", "_redirects.map"] as const;

export interface RedirectPageText {
  /** The site's URL (for the canonical link). */
  siteUrl: string;
  /** BCP 47 language of the page. */
  language: string;
  /** The title of the page at a route (the link's text). */
  titleOf(route: string): string;
  /** The sentence before the link (the site's words); none: the link alone. */
  moved?: string;
}

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The script of the page at an old address: the new one with the reader's query and #fragment. */
function redirectScript(to: string): string {
  return `location.replace(${JSON.stringify(to)}+location.search+location.hash)`;
}

/** The page GitHub Pages serves at an old address. */
export function redirectPage(redirect: Pick<Redirect, "to">, text: RedirectPageText): string {
  const { to } = redirect;
  const title = escapeHtml(text.titleOf(to));
  const href = escapeHtml(to);
  const script = redirectScript(to);
  const hash = scriptHash(script);
  return [
    "<!DOCTYPE html>",
    `<html lang="${escapeHtml(text.language)}">`,
    "<head>",
    '<meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'sha256-${hash}'; base-uri 'none'">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${title}</title>`,
    '<meta name="robots" content="noindex">',
    `<link rel="canonical" href="${escapeHtml(absoluteUrl(text.siteUrl, to))}">`,
    `<script>${script}</script>`,
    `<meta http-equiv="refresh" content="0; url=${href}">`,
    "</head>",
    "<body>",
    `<p>${text.moved ? `${escapeHtml(text.moved)} ` : ""}<a href="${href}">${title}</a></p>`,
    "</body>",
    "</html>",
    "",
  ].join("\n");
}

/** Every file the old addresses need: `_redirects`, `_redirects.map` and one page per address. */
export function redirectFiles(redirects: readonly Redirect[], text: RedirectPageText): Map<string, string> {
  const files = new Map<string, string>();
  const header = (comment: string) => `# Written by the build from the articles' \`aliases\` and site.yaml's \`redirects\`. ${comment}\n`;
  files.set("_redirects", header("For Netlify and Cloudflare Pages.") + redirects.map((r) => `${r.from} ${r.to} 301!\n`).join(""));
  files.set("_redirects.map", header("For nginx: included by deploy/nginx.conf's map.") + redirects.map((r) => `${r.from} ${r.to};\n`).join(""));
  for (const redirect of redirects) files.set(outFileOf(redirect.from), redirectPage(redirect, text));
  return files;
}

/**
 * The redirects of a `_redirects` file as Netlify and Cloudflare read the lines this build
 * writes: `from to [status][!]`, `#` comments. Returns old address → [new address, status].
 */
export function parseRedirects(text: string): Map<string, { to: string; status: number; force: boolean }> {
  const rules = new Map<string, { to: string; status: number; force: boolean }>();
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    if (line === "" || line.startsWith("#")) continue;
    const [from, to, code = "301"] = line.split(/\s+/);
    if (!from || !to || rules.has(from)) continue; // the first rule for a path wins
    const status = Number.parseInt(code, 10);
    if (!Number.isInteger(status)) continue;
    rules.set(from, { to, status, force: code.endsWith("!") });
  }
  return rules;
}
