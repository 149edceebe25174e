/**
 * Stage 8 — render: each route's page through React's renderToString of the theme's template
 * for it, and the site's other files (feed, sitemap, robots.txt, `_headers`).
 *
 * A template reads the site through a context that records every value it reads
 * (dependencies.ts). Every value exists before the first page renders: the stages before
 * this one made them all. A page of the last build none of whose values changed is taken as
 * it is (`reuse`); the others are rendered one at a time, as the writer takes them.
 */
import { renderToString } from "react-dom/server";
import type { AssetRecord } from "../assets/assets.js";
import type { PageEntry } from "../../incremental/build-cache.js";
import type { Article, SiteContent } from "../load/content.js";
import { dep, DepValues, Recorder, recordedContent } from "../../incremental/dependencies.js";
import { hashOf } from "../../lib/hash.js";
import type { SiteImages } from "../images/images.js";
import { siteBlockData, type MarkdownResult } from "../markdown/article-markdown.js";
import type { MarkdownBodies } from "../markdown/markdown-stage.js";
import type { Route, RouteTable } from "../routes/routes.js";
import { contentSecurityPolicy, siteFiles } from "./site-files.js";
import type { Redirect } from "../routes/aliases.js";
import { pageLinks } from "../checks/rendered-links.js";
import { redirectFiles } from "../routes/redirect-files.js";
import type { SiteCards } from "../cards/cards.js";
import { themePlace, type PageContext, type Theme } from "../../theme.js";
import { codeError, siteCodePlace } from "../../lib/code-location.js";
import { ContentError } from "../../lib/errors.js";
import { nearest } from "../../lib/yaml-source.js";

export interface RenderInput {
  content: SiteContent;
  table: RouteTable;
  theme: Theme;
  markdown: MarkdownBodies;
  images: SiteImages;
  cards: SiteCards;
  assets: AssetRecord;
  /** The old addresses: each gets its page for hosts that cannot redirect, and a line in `_redirects`. */
  redirects: readonly Redirect[];
  /** The pages of the last build, by route. */
  previous: Record<string, PageEntry>;
  /** Takes a page of the last build into this one (of `size` bytes); false when it cannot. */
  reuse(file: string, size: number): Promise<boolean>;
}

export interface RenderOutput {
  /** Every page's record (filled as `files` is read: complete once it has been). */
  pages: Record<string, PageEntry>;
  /** The pages to write (rendered when read), then the site files and the old addresses' files. */
  files: Iterable<[string, string]>;
  /** How many pages are rendered (the others were taken from the last build). */
  rendered: number;
  /** The old addresses' files among `files`. */
  redirectFiles: string[];
}

/** Decides which pages to render, and renders them lazily. */
export async function renderStage(input: RenderInput): Promise<RenderOutput> {
  const { content, table, theme, markdown, images, cards, assets, redirects, previous, reuse } = input;
  const site = theme.siteMeta(content.site.value);
  const csp = contentSecurityPolicy(assets.manifest.inlineScript ? [assets.manifest.inlineScript] : [], site.connect);
  const bodyOf = (file: string) => {
    const result = markdown.get(file)?.result;
    return result ? images.fill(result.html, file, result.images) : undefined;
  };
  // A body without images is its Markdown's HTML: its hash is kept with it, across watch-mode runs.
  const bodyHash = (file: string) => {
    const result = markdown.get(file)?.result;
    if (!result || result.images.length > 0) return hashOf(bodyOf(file) ?? "");
    let hash = bodyHashes.get(result);
    if (hash === undefined) bodyHashes.set(result, (hash = hashOf(result.html)));
    return hash;
  };
  const values = new DepValues({
    content,
    table,
    bodyHash,
    listing: (name) => listingOf(content, theme, name),
    block: (name) => siteBlockData(content, theme, name),
    assets: hashOf(JSON.stringify(assets.manifest), csp),
    card: (routePath) => cards.byRoute.get(routePath),
    cover: (file, url) => images.imageOf(file, url),
  });
  const pages: Record<string, PageEntry> = {};
  const toRender: Route[] = [];
  for (const route of table.routes) {
    const entry = previous[route.path];
    if (entry?.outFile === route.outFile && values.unchanged(entry.deps) && (await reuse(route.outFile, entry.size))) pages[route.path] = entry;
    else toRender.push(route);
  }
  const titleOf = (routePath: string) => {
    const route = table.byPath.get(routePath);
    return route?.kind === "article" ? route.article.main.meta.title : site.name;
  };
  const moved = redirectFiles(redirects, { siteUrl: site.url, language: site.language, moved: site.moved, titleOf });
  const context: PageInput = { content, table, theme, csp, assets, bodyOf, values, images, cards };
  function* files(): Generator<[string, string]> {
    for (const route of toRender) {
      const { html, entry } = renderRoute(route, context);
      pages[route.path] = entry;
      yield [route.outFile, html];
    }
    yield* siteFiles(site, table.routes, csp, theme.summary, (route) => cards.byRoute.get(route.path));
    yield* moved;
  }
  return { pages, files: files(), rendered: toRender.length, redirectFiles: [...moved.keys()] };
}

interface PageInput {
  content: SiteContent;
  table: RouteTable;
  theme: Theme;
  csp: string;
  assets: AssetRecord;
  bodyOf: (file: string) => string | undefined;
  values: DepValues;
  images: SiteImages;
  cards: SiteCards;
}

/** One page, through a context that records what its template reads. */
function renderRoute(route: Route, { content, table, theme, csp, assets, bodyOf, values, images, cards }: PageInput): { html: string; entry: PageEntry } {
  const recorder = new Recorder(values);
  const read = recorder.read;
  read(dep.route(route.path));
  const ctx: PageContext = {
    get site() {
      read(dep.site());
      return content.site.value;
    },
    content: recordedContent(content, read),
    get routes() {
      read(dep.routes());
      return table;
    },
    route,
    get csp() {
      read(dep.assets());
      return csp;
    },
    get assets() {
      read(dep.assets());
      return assets.manifest;
    },
    bodyOf: (article: Article) => {
      read(dep.body(article));
      return bodyOf(article.file) ?? "";
    },
    imageOf: (article: Article, url: string) => {
      read(dep.cover(article, url));
      return images.imageOf(article.file, url);
    },
    get socialCard() {
      read(dep.card(route.path));
      return cards.byRoute.get(route.path);
    },
    listing: (name: string) => {
      read(dep.listing(name));
      return listingOf(content, theme, name);
    },
  };
  const html = renderPage(route, ctx, theme);
  // Its links and ids, kept with it: a page taken unchanged from the last build is checked too.
  return { html, entry: { outFile: route.outFile, deps: recorder.deps, size: Buffer.byteLength(html), ...pageLinks(html) } };
}

/**
 * Renders a route to a complete HTML document with the theme's template. A mistake of the
 * theme's (a template it does not have, a template that throws) is thrown as a ContentError
 * at the theme's line, not as a crash.
 */
export function renderPage(route: Route, ctx: PageContext, theme: Theme): string {
  const template = theme.templates[route.template];
  if (!template) {
    const names = Object.keys(theme.templates);
    const guess = nearest(route.template, names);
    throw codeError(themePlace(theme), undefined, {
      message: `the theme has no template '${route.template}' (the page ${route.path} asks for it)`,
      hint: guess ? `did you mean '${guess}'?` : `the theme's templates: ${names.join(", ")}`,
      find: route.template,
      fallback: "the theme",
    });
  }
  try {
    return `<!DOCTYPE html>${renderToString(template(ctx))}`;
  } catch (error) {
    if (error instanceof ContentError) throw error;
    throw codeError(siteCodePlace((error as Error)?.stack) ?? themePlace(theme), undefined, {
      message: `the template '${route.template}' failed on ${route.path}: ${(error as Error)?.message ?? String(error)}`,
      hint: "fix the theme's code at this line",
      fallback: "the theme",
    });
  }
}

const listings = new WeakMap<SiteContent, Map<string, unknown>>();
const bodyHashes = new WeakMap<MarkdownResult, string>();

/** A theme's listing, computed once per version of the content. */
function listingOf(content: SiteContent, theme: Theme, name: string): unknown {
  let byName = listings.get(content);
  if (!byName) listings.set(content, (byName = new Map()));
  if (!byName.has(name)) {
    const compute = theme.listings?.[name];
    if (!compute) {
      const names = Object.keys(theme.listings ?? {});
      const guess = nearest(name, names);
      throw codeError(siteCodePlace(new Error().stack) ?? themePlace(theme), undefined, {
        message: `the theme has no listing '${name}'`,
        hint: guess ? `did you mean '${guess}'?` : names.length > 0 ? `the theme's listings: ${names.join(", ")}` : "declare it in the theme's `listings`",
        find: name,
        fallback: "the theme",
      });
    }
    byName.set(name, compute(content));
  }
  return byName.get(name);
}
