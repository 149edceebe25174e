/**
 * The orchestrator: load → route → markdown → check → bundle → render → write.
 * Content errors are collected across every stage and reported together; the site is
 * only committed when there are none.
 */
import path from "node:path";
import { ContentError, type ContentWarning } from "./errors.js";
import { loadContent, type SiteContent } from "./content.js";
import { buildRoutes, type Route } from "./routes.js";
import { renderMarkdown, type InternalLink, type MarkdownResult } from "./markdown.js";
import { buildAssets } from "./assets.js";
import { renderPage } from "./render.js";
import { contentSecurityPolicy, siteFiles } from "./site-files.js";
import type { SiteWriter } from "./output.js";
import { iconByName } from "../templates/icons.js";
import { errorAt } from "./yaml-source.js";
import type { RenderedArticle } from "../templates/page-context.js";

export interface BuildOptions {
  contentDir: string;
  projectRoot: string;
  writer: SiteWriter;
  /** Build `draft: true` articles too (dev mode). */
  drafts?: boolean;
}

export interface BuildResult {
  ok: boolean;
  routes: Route[];
  errors: ContentError[];
  warnings: ContentWarning[];
  /** Files written, relative to the site root. */
  written: string[];
}

/** Anchors every page has, from the layout. */
const LAYOUT_IDS = ["conteudo", "newsletter-title"];

export async function buildSite(options: BuildOptions): Promise<BuildResult> {
  const { writer } = options;
  const fail = async (errors: ContentError[], warnings: ContentWarning[], routes: Route[] = []) => {
    await writer.abort();
    return { ok: false, routes, errors, warnings, written: [] };
  };

  // 1. content
  const loaded = await loadContent(options.contentDir, { drafts: options.drafts });
  const warnings = [...loaded.warnings];
  if (!loaded.content) return fail(loaded.errors, warnings);
  const content = loaded.content;

  // 2. routes
  const table = buildRoutes(content);
  const errors = [...table.errors];

  // 3. markdown, once per article file
  const markdown = new Map<string, MarkdownResult>();
  for (const article of content.articles) {
    const result = renderMarkdown(article, content);
    markdown.set(article.file, result);
    errors.push(...result.errors);
    warnings.push(...result.warnings);
  }

  // 4. checks that need the whole site
  errors.push(...checkInternalLinks(content, table.byPath, markdown));
  content.cards.value.forEach((card, i) => {
    if (!iconByName(card.icon)) {
      errors.push(
        errorAt(content.cards, [i, "icon"], {
          message: `unknown icon '${card.icon}'`,
          hint: "use a lucide icon name in kebab-case, such as 'heart-pulse' or 'trending-up' (see lucide.dev/icons)",
        }),
      );
    }
  });
  if (errors.length > 0) return fail(errors, warnings, table.routes);

  // 5. assets
  const assets = await buildAssets({ projectRoot: options.projectRoot });

  // 6. render and write, route by route
  const rendered = (file: string): RenderedArticle => {
    const result = markdown.get(file);
    if (!result) throw new Error(`no Markdown rendered for ${file}`);
    return result;
  };
  const seriesCache = new Map<string, { route: string; title: string }[]>();
  const seriesOf = (series: string) => {
    let list = seriesCache.get(series);
    if (!list) {
      list = content.articles
        .filter((a) => a.meta.series === series && a.lang === "pt")
        .sort((a, b) => a.route.localeCompare(b.route))
        .map((a) => ({ route: a.route, title: a.meta.title }));
      seriesCache.set(series, list);
    }
    return list;
  };
  const csp = contentSecurityPolicy([assets.manifest.bootScript], content.site.value.newsletter.endpoint);
  const base = { site: content.site.value, csp, cards: content.cards.value, assets: assets.manifest, rendered, seriesOf };
  const written: string[] = [];
  try {
    await writer.copyDir(path.join(options.projectRoot, "public"));
    for (const [file, data] of assets.files) {
      await writer.write(file, data);
      written.push(file);
    }
    for (const route of table.routes) {
      await writer.write(route.outFile, renderPage(route, base));
      written.push(route.outFile);
    }
    for (const [file, text] of siteFiles(content, table.routes, csp)) {
      await writer.write(file, text);
      written.push(file);
    }
    await writer.commit();
  } catch (error) {
    await writer.abort();
    throw error;
  }
  return { ok: true, routes: table.routes, errors: [], warnings, written };
}

/** Every /route and #anchor in Markdown must exist on the built site. */
function checkInternalLinks(
  content: SiteContent,
  byPath: Map<string, Route>,
  markdown: Map<string, MarkdownResult>,
): ContentError[] {
  const idsOf = new Map<string, Set<string>>();
  for (const article of content.articles) {
    const ids = idsOf.get(article.route) ?? new Set(LAYOUT_IDS);
    for (const h of markdown.get(article.file)?.headings ?? []) ids.add(h.id);
    idsOf.set(article.route, ids);
  }
  const sourceOf = new Map(content.articles.map((a) => [a.file, a.source]));
  const errors: ContentError[] = [];
  const links: InternalLink[] = [...markdown.values()].flatMap((m) => m.links);
  for (const link of links) {
    const [pathPart = "", anchor] = link.url.split("#", 2);
    const routePath = pathPart.length > 1 ? pathPart.replace(/\/+$/, "") : pathPart;
    const route = byPath.get(routePath);
    const where = { file: link.file, line: link.line, column: link.column, source: sourceOf.get(link.file) };
    if (!route || route.kind === "not-found") {
      errors.push(
        new ContentError({
          ...where,
          message: `broken link: no page has the route ${routePath}`,
          hint: "link to an existing route (the file path under content/articles without .md), or fix the typo",
        }),
      );
    } else if (anchor) {
      const decoded = decodeURIComponent(anchor);
      const target = route.kind === "home" ? route.featured.pt.route : routePath;
      if (!idsOf.get(target)?.has(decoded)) {
        errors.push(
          new ContentError({
            ...where,
            message: `broken link: ${routePath} has no heading with the anchor #${decoded}`,
            hint: `anchors are the headings' ids: ${[...(idsOf.get(target) ?? [])].slice(0, 6).map((id) => `#${id}`).join(", ")}…`,
          }),
        );
      }
    }
  }
  return errors;
}
