/**
 * Watch mode's share preview (`/__cafe/share`, served by the dev server only, never written
 * into a site): every page as WhatsApp, LinkedIn and X would show a link to it, drawn from
 * the meta the page itself carries (og:*, twitter:*, <title>, description), with a warning
 * only where something is wrong: a title or description an app will cut (which app, where,
 * and what the title tag adds to it), something missing, or a title two pages share. A page
 * with nothing wrong shows none. Where each app cuts, and why: stages/checks/share-text.ts.
 *
 * It reads the pages the dev build wrote, not the theme: it works for any theme, and shows
 * exactly what a crawler would read.
 */
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { cutText, describeCuts, readPageMeta, SHARE_APPS, shareCuts, shareTextOf, shownBy, type PageMeta, type ShareApp } from "../stages/checks/share-text.js";

export { cutText, readPageMeta, SHARE_APPS, visibleLength, type PageMeta, type ShareApp } from "../stages/checks/share-text.js";

/** One page as an app shows a link to it. */
export interface AppPreview {
  app: ShareApp;
  /** Undefined when the app shows none (X under a large card), or the page has none. */
  title?: { text: string; cut: boolean };
  description?: { text: string; cut: boolean };
  image?: string;
  /** The picture above the text, full width (LinkedIn; X for `twitter:card` summary_large_image), or a thumbnail beside it. */
  large: boolean;
  /** X's large card: the picture and the domain over it, no text. */
  imageOnly: boolean;
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
const sentence = (text: string) => `${text[0]!.toUpperCase()}${text.slice(1)}`;

/**
 * Each page's previews and warnings. `localImage` says where this server has the file an
 * absolute image URL names (a path of the built site), or undefined when it has none.
 */
export function sharePreviews(pages: readonly { route: string; meta: PageMeta }[], localImage: (url: string) => string | undefined): PagePreview[] {
  const previews = pages.map(({ route, meta }): PagePreview => {
    const m = meta.meta;
    const share = shareTextOf(meta);
    const { title, description } = share;
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
      const shown = shownBy(app, share);
      const i = app.id === "x" ? m["twitter:image"] || imageUrl : imageUrl;
      const imageOnly = app.id === "x" && share.card === "summary_large_image";
      return {
        app,
        title: shown.title ? cutText(shown.title, app.title) : undefined,
        description: shown.description && app.description ? cutText(shown.description, app.description.shows) : undefined,
        image: i ? (localImage(i) ?? i) : undefined,
        large: app.id === "linkedin" || imageOnly,
        imageOnly,
      };
    });
    const warnings: string[] = [];
    if (!title) warnings.push("No title: add og:title (or a <title>); the apps show the bare address.");
    if (!description) warnings.push("No description: add og:description (the article's lead or description); WhatsApp shows nothing under the title.");
    for (const cut of describeCuts(shareCuts(share), share)) warnings.push(`${sentence(cut)}. Shorten it, or put what matters first.`);
    if (!image) warnings.push("No image (og:image): the link is shared without a picture.");
    else if (!image.local) warnings.push(`The image ${image.url} is not a file of this site: check that it exists once published.`);
    if (image && !image.alt) warnings.push("The image has no og:image:alt: people using a screen reader hear nothing for it.");
    if (!share.siteName) warnings.push("No og:site_name: WhatsApp and LinkedIn show only the address.");
    return { route, title, description, siteName: share.siteName, domain, image, apps, warnings };
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
  if (preview.imageOnly) {
    const picture = preview.image ? `<img class="thumb" src="${escapeHtml(preview.image)}" alt="" loading="lazy" decoding="async">` : '<div class="thumb none">no image</div>';
    return `<figure class="app app-${app.id} large image-only" data-app="${app.id}">
<figcaption>${escapeHtml(app.name)}</figcaption>
<div class="bubble">${picture}<p class="over">${escapeHtml(page.domain ?? "")}</p></div>
<p class="note">X shows a large card's picture and domain only, no title or description.</p>
</figure>`;
  }
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
          : '<p class="ok">Nothing to fix.</p>';
      return `<section class="page" id="page-${i}" data-route="${escapeHtml(p.route)}" aria-labelledby="page-${i}-title">
<h2 id="page-${i}-title"><a href="${escapeHtml(p.route)}">${escapeHtml(p.route)}</a></h2>
<div class="row"><div class="left">${card}${warnings}</div>
<div class="apps">${p.apps.map((a) => appPreviewHtml(p, a)).join("\n")}</div></div>
</section>`;
    })
    .join("\n");
  const limits = SHARE_APPS.map((a) => {
    const description = !a.description ? "no description shown" : a.description.warned ? `description cut after ${a.description.shows}` : `about the first ${a.description.shows} characters of the description (a teaser: not warned)`;
    return `${a.name}: title cut after ${a.title}, ${description}${a.id === "x" ? " (on summary cards; a large card shows no text)" : ""}`;
  }).join("; ");
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
.image-only .bubble{position:relative}.over{position:absolute;left:.5rem;bottom:.5rem;margin:0;padding:.1rem .4rem;border-radius:4px;background:rgba(0,0,0,.75);color:#fff;font-size:.8rem}.note{margin:.25rem 0 0;font-size:.8rem;color:#4a403a}
</style>
</head>
<body>
<main>
<h1>Share preview</h1>
<p class="intro">How a link to each page looks when shared, drawn from the page's own meta tags. ${previews.length} pages, ${warned} with warnings. This page is served by <code>npm run dev</code> only and updates on every save; it is never part of a build.</p>
<p class="intro">Where the apps cut, in characters as a reader counts them, what the title tag adds included: ${escapeHtml(limits)}. A warning means every reader loses the end; on a narrow phone WhatsApp may cut sooner, so put what matters first.${options.left ? ` ${escapeHtml(options.left)}` : ""}</p>
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
