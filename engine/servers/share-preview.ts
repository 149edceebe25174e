/**
 * Watch mode's share preview (`/__cafe/share`, served by the dev server only, never written
 * into a site): every page as WhatsApp, LinkedIn and X would show a link to it, drawn from
 * the meta the page itself carries (og:*, twitter:*, <title>, description), with a warning
 * where a title or description will be cut, is missing, or repeats another page's.
 *
 * It reads the pages the dev build wrote, not the theme: it works for any theme, and shows
 * exactly what a crawler would read. Each page's <head> is parsed with htmlparser2 (a
 * tolerant, streaming HTML parser: attributes in any order or quoting, entities decoded).
 */
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { Parser } from "htmlparser2";

/** What a page's <head> says about sharing it. */
export interface PageMeta {
  lang?: string;
  /** <title> */
  title?: string;
  /** <meta name="description"> */
  description?: string;
  /** Every `<meta property|name=… content=…>` of the head: og:*, twitter:*. */
  meta: Record<string, string>;
  /** <link rel="canonical"> */
  canonical?: string;
}

/** Reads the share-related meta of a page's head (stops at </head>). */
export function readPageMeta(html: string): PageMeta {
  const out: PageMeta = { meta: {} };
  let inTitle = false;
  let title = "";
  let done = false;
  const parser = new Parser(
    {
      onopentag(name, attrs) {
        if (done) return;
        if (name === "html" && attrs.lang) out.lang = attrs.lang;
        else if (name === "title") inTitle = true;
        else if (name === "meta") {
          const key = (attrs.property ?? attrs.name)?.trim().toLowerCase();
          if (key && attrs.content !== undefined && !(key in out.meta)) out.meta[key] = attrs.content.trim();
        } else if (name === "link" && attrs.rel?.toLowerCase().split(/\s+/).includes("canonical") && attrs.href) out.canonical = attrs.href;
        else if (name === "body") done = true;
      },
      ontext(text) {
        if (inTitle) title += text;
      },
      onclosetag(name) {
        if (name === "title") {
          inTitle = false;
          out.title ??= title.replace(/\s+/g, " ").trim() || undefined;
        } else if (name === "head") done = true;
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true },
  );
  // The head is at the top: parse up to the body, not the whole page.
  const end = html.search(/<body[\s>]/i);
  parser.end(end < 0 ? html : html.slice(0, end));
  if (out.meta.description !== undefined) out.description = out.meta.description;
  return out;
}

/**
 * How much of a title and a description each app shows before it cuts with "…".
 *
 * These numbers are APPROXIMATE: no app publishes a rule, they vary with the phone, the
 * window and the font, and they change over time. Where they come from:
 * - X: its Cards markup reference gives twitter:title at most 70 characters and
 *   twitter:description at most 200.
 * - WhatsApp: a measurement published by ogtester.com (2023) saw titles cut after about 80
 *   characters; about 100 characters (two lines of a phone's chat bubble) for the
 *   description is our estimate from the same kind of test.
 * - LinkedIn: about 70 characters of title before the feed cuts it (the figure commonly
 *   published in Open Graph guides); its feed shows no description under a shared link.
 * Characters are counted as a reader sees them (grapheme clusters: an emoji is one).
 */
export const SHARE_APPS = [
  { id: "whatsapp", name: "WhatsApp", title: 80, description: 100 },
  { id: "linkedin", name: "LinkedIn", title: 70, description: undefined },
  { id: "x", name: "X", title: 70, description: 200 },
] as const satisfies readonly { id: string; name: string; title: number; description: number | undefined }[];
export type ShareApp = (typeof SHARE_APPS)[number];

const segmenter = new Intl.Segmenter(undefined, { granularity: "grapheme" });
/** Length as a reader counts it. */
export const visibleLength = (text: string) => [...segmenter.segment(text)].length;

/** `text` cut to `max` visible characters with "…", and whether it was cut. */
export function cutText(text: string, max: number): { text: string; cut: boolean } {
  const parts = [...segmenter.segment(text)].map((s) => s.segment);
  if (parts.length <= max) return { text, cut: false };
  return { text: `${parts.slice(0, max - 1).join("").trimEnd()}…`, cut: true };
}

/** One page as an app shows a link to it. */
export interface AppPreview {
  app: ShareApp;
  title?: { text: string; cut: boolean };
  /** Undefined when the app shows none (or the page has none). */
  description?: { text: string; cut: boolean };
  image?: string;
  /** The picture above the text, full width (LinkedIn; X for `twitter:card` summary_large_image), or a thumbnail beside it. */
  large: boolean;
}

export interface PagePreview {
  route: string;
  /** The values the apps read (after the usual fallbacks: og:title → <title>…). */
  title?: string;
  description?: string;
  siteName?: string;
  /** The host the apps print under the title. */
  domain?: string;
  /** og:image as the page gives it, and where this server has it (undefined when it has not). */
  image?: { url: string; local?: string; alt?: string };
  apps: AppPreview[];
  warnings: string[];
}

const list = (items: string[]) => (items.length <= 2 ? items.join(" and ") : `${items.slice(0, -1).join(", ")} and ${items.at(-1)}`);

/**
 * Each page's previews and warnings. `localImage` says where this server has the file an
 * absolute image URL names (a path of the built site), or undefined when it has none.
 */
export function sharePreviews(pages: readonly { route: string; meta: PageMeta }[], localImage: (url: string) => string | undefined): PagePreview[] {
  const previews = pages.map(({ route, meta }): PagePreview => {
    const m = meta.meta;
    const title = m["og:title"] || meta.title || undefined;
    const description = m["og:description"] || meta.description || undefined;
    const imageUrl = m["og:image"] || m["og:image:url"] || undefined;
    const pageUrl = m["og:url"] || meta.canonical;
    let domain: string | undefined;
    try {
      domain = pageUrl ? new URL(pageUrl).host : undefined;
    } catch {
      domain = undefined;
    }
    const image = imageUrl ? { url: imageUrl, local: localImage(imageUrl), alt: m["og:image:alt"] || undefined } : undefined;
    const apps = SHARE_APPS.map((app): AppPreview => {
      // X reads its own tags first and falls back to Open Graph.
      const t = app.id === "x" ? m["twitter:title"] || title : title;
      const d = app.id === "x" ? m["twitter:description"] || description : description;
      const i = app.id === "x" ? m["twitter:image"] || imageUrl : imageUrl;
      return {
        app,
        title: t ? cutText(t, app.title) : undefined,
        description: d && app.description !== undefined ? cutText(d, app.description) : undefined,
        image: i ? (localImage(i) ?? i) : undefined,
        large: app.id === "linkedin" || (app.id === "x" && m["twitter:card"] === "summary_large_image"),
      };
    });
    const warnings: string[] = [];
    if (!title) warnings.push("No title: add og:title (or a <title>); the apps show the bare address.");
    else {
      const cutBy = apps.filter((a) => a.title?.cut).map((a) => `${a.app.name} (about ${a.app.title})`);
      if (cutBy.length > 0) warnings.push(`The title is ${visibleLength(title)} characters long: it will be cut in ${list(cutBy)}. Shorten it, or put what matters first.`);
    }
    if (!description) warnings.push("No description: add og:description (the article's lead or description); WhatsApp and X show nothing under the title.");
    else {
      const cutBy = apps.filter((a) => a.description?.cut).map((a) => `${a.app.name} (about ${a.app.description})`);
      if (cutBy.length > 0) warnings.push(`The description is ${visibleLength(description)} characters long: it will be cut in ${list(cutBy)}.`);
    }
    if (!image) warnings.push("No image (og:image): the link is shared without a picture.");
    else if (!image.local) warnings.push(`The image ${image.url} is not a file of this site: check that it exists once published.`);
    if (image && !image.alt) warnings.push("The image has no og:image:alt: people using a screen reader hear nothing for it.");
    if (!m["og:site_name"]) warnings.push("No og:site_name: WhatsApp and LinkedIn show only the address.");
    return { route, title, description, siteName: m["og:site_name"] || undefined, domain, image, apps, warnings };
  });
  // The same title or description on two pages: a reader cannot tell the links apart.
  for (const key of ["title", "description"] as const) {
    const byValue = new Map<string, string[]>();
    for (const p of previews) if (p[key]) byValue.set(p[key], [...(byValue.get(p[key]) ?? []), p.route]);
    for (const p of previews) {
      const others = (p[key] ? byValue.get(p[key])! : []).filter((r) => r !== p.route);
      if (others.length > 0) p.warnings.push(`Same ${key} as ${list(others)}: the shared links cannot be told apart.`);
    }
  }
  return previews;
}

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);

function appPreviewHtml(page: PagePreview, preview: AppPreview): string {
  const { app } = preview;
  const title = preview.title ? escapeHtml(preview.title.text) : '<span class="missing">(no title)</span>';
  const description =
    app.description === undefined ? "" : `<p class="desc">${preview.description ? escapeHtml(preview.description.text) : '<span class="missing">(no description)</span>'}</p>`;
  const site = escapeHtml(app.id === "x" ? (page.domain ?? "") : [page.siteName, page.domain].filter(Boolean).join(" · "));
  // The picture repeats the page's card shown beside: decorative here (alt="").
  const image = preview.image ? `<img class="thumb" src="${escapeHtml(preview.image)}" alt="" loading="lazy" decoding="async">` : '<div class="thumb none">no image</div>';
  return `<figure class="app app-${app.id}${preview.large ? " large" : ""}" data-app="${app.id}">
<figcaption>${escapeHtml(app.name)}</figcaption>
<div class="bubble">${image}<div class="text"><p class="site">${site}</p><p class="title" data-cut="${preview.title?.cut ?? false}">${title}</p>${description}</div></div>
</figure>`;
}

/** The share preview page: self-contained HTML (its own styles), in English, with the live-reload client. */
export function renderSharePage(previews: readonly PagePreview[], options: { clientScript?: string; left?: string } = {}): string {
  const warned = previews.filter((p) => p.warnings.length > 0).length;
  const toc = previews
    .map((p, i) => `<li><a href="#page-${i}">${escapeHtml(p.route)}</a>${p.warnings.length > 0 ? ` <span class="count">${p.warnings.length} warning${p.warnings.length === 1 ? "" : "s"}</span>` : ""}</li>`)
    .join("\n");
  const sections = previews
    .map((p, i) => {
      const card = p.image?.local
        ? `<img class="card" src="${escapeHtml(p.image.local)}" alt="${escapeHtml(p.image.alt ?? `Social card of ${p.route}`)}" width="600" height="315" decoding="async">`
        : `<p class="card none">${p.image ? `Image not found on this site: ${escapeHtml(p.image.url)}` : "No social card"}</p>`;
      const warnings =
        p.warnings.length > 0
          ? `<h3 id="page-${i}-warnings">Warnings</h3><ul class="warnings" aria-labelledby="page-${i}-warnings">${p.warnings.map((w) => `<li>${escapeHtml(w)}</li>`).join("")}</ul>`
          : '<p class="ok">Nothing to fix: no app cuts this title or description.</p>';
      return `<section class="page" id="page-${i}" data-route="${escapeHtml(p.route)}" aria-labelledby="page-${i}-title">
<h2 id="page-${i}-title"><a href="${escapeHtml(p.route)}">${escapeHtml(p.route)}</a></h2>
<div class="row"><div class="left">${card}${warnings}</div>
<div class="apps">${p.apps.map((a) => appPreviewHtml(p, a)).join("\n")}</div></div>
</section>`;
    })
    .join("\n");
  const limits = SHARE_APPS.map((a) => `${a.name}: title about ${a.title}${a.description === undefined ? ", no description shown" : `, description about ${a.description}`}`).join("; ");
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>Share preview · ${previews.length} pages</title>
<style>
:root{color-scheme:light;font:15px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;color:#1f1a17;background:#f6f3ef}
body{margin:0}main{max-width:1200px;margin:0 auto;padding:1.5rem}
h1{font-size:1.6rem;margin:0 0 .25rem}h2{font-size:1.15rem;margin:0 0 .75rem}h3{font-size:1rem;margin:1rem 0 .25rem}
a{color:#7c3a12}.intro{color:#4a403a;max-width:70ch}
nav ul{columns:3 16rem;padding-left:1.2rem}.count{color:#8a1c00;font-size:.85em}
.page{background:#fff;border:1px solid #ddd3c9;border-radius:10px;padding:1rem 1.25rem;margin:1.25rem 0}
.row{display:grid;grid-template-columns:minmax(0,1fr) minmax(0,1.4fr);gap:1.25rem}
@media (max-width:800px){.row{grid-template-columns:1fr}}
.card{width:100%;height:auto;border:1px solid #ddd3c9;border-radius:6px;display:block}
.none{display:flex;align-items:center;justify-content:center;background:#eee6de;color:#4a403a;min-height:6rem;padding:.5rem;text-align:center}
.warnings{margin:0;padding-left:1.2rem;color:#8a1c00}.ok{color:#1d5b2a}
.apps{display:grid;gap:.75rem}.app{margin:0}figcaption{font-weight:700;font-size:.85rem;margin-bottom:.25rem}
.bubble{display:flex;gap:.6rem;border-radius:8px;overflow:hidden;border:1px solid #d6ccc2}
.app-whatsapp .bubble{background:#dcf8c6}.app-linkedin .bubble{background:#f3f2ef}.app-x .bubble{background:#fff}
.thumb{width:8rem;height:4.2rem;object-fit:cover;flex:none;min-height:0;font-size:.8rem}
.large .bubble{flex-direction:column;gap:0;max-width:26rem}.large .thumb{width:100%;height:auto;aspect-ratio:1.91}.large .text{padding:.4rem .6rem}
.text{padding:.4rem .6rem .4rem 0;min-width:0}.text p{margin:0}
.site{font-size:.8rem;color:#4a403a}.title{font-weight:700}.desc{font-size:.9rem;color:#2f2925}.missing{color:#8a1c00;font-style:italic}
</style>
</head>
<body>
<main>
<h1>Share preview</h1>
<p class="intro">How a link to each page looks when shared, drawn from the page's own meta tags. ${previews.length} pages, ${warned} with warnings. This page is served by <code>npm run dev</code> only and updates on every save; it is never part of a build.</p>
<p class="intro">Cut lengths are approximate (${escapeHtml(limits)}); each app's real cut depends on the device.${options.left ? ` ${escapeHtml(options.left)}` : ""}</p>
<nav aria-label="Pages"><ul>${toc}</ul></nav>
${sections}
</main>
${options.clientScript ? `<script type="module" src="${escapeHtml(options.clientScript)}"></script>` : ""}
</body>
</html>
`;
}

/** A route of the dev build, as the builder reports it. */
export interface BuiltRoute {
  path: string;
  file: string;
  kind: string;
}

/**
 * The share preview of the site built in `outDir`: each route's page read from disk (the
 * 404 page left out: nobody shares it), its images looked up among the site's files.
 */
export async function sharePreviewPage(outDir: string, routes: readonly BuiltRoute[], clientScript?: string): Promise<string> {
  const shown = routes.filter((r) => r.kind !== "not-found");
  const pages = await Promise.all(
    shown.map(async (r) => ({ route: r.path, meta: readPageMeta(await readFile(path.join(outDir, r.file), "utf8").catch(() => "")) })),
  );
  const root = path.resolve(outDir);
  const localImage = (url: string) => {
    try {
      const pathname = decodeURIComponent(new URL(url, "http://localhost/").pathname);
      const file = path.resolve(root, `.${pathname}`);
      return file.startsWith(root + path.sep) && existsSync(file) ? pathname : undefined;
    } catch {
      return undefined;
    }
  };
  const left = routes.length > shown.length ? "The 404 page is left out: nobody shares it." : undefined;
  return renderSharePage(sharePreviews(pages, localImage), { clientScript, left });
}
