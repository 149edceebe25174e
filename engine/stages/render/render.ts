/**
 * Stage 8 — render: each route's page through React's renderToString of the theme's template
 * for it, and the site's other files (feed, sitemap, robots.txt, `_headers`).
 *
 * A template reads the site through a context that records every value it reads
 * (dependencies.ts). Every value exists before the first page renders: the stages before
 * this one made them all. A page of the last build none of whose values changed is taken as
 * it is (`reuse`); the others are rendered one at a time and yielded to the write stage,
 * which writes each as it comes.
 */
import { renderToString } from "react-dom/server";
import type { AssetRecord } from "../assets/assets.js";
import type { PageEntry } from "../../incremental/build-cache.js";
import type { Article, SiteContent } from "../load/content.js";
import { dep, DepValues, Recorder, recordedContent } from "../../incremental/dependencies.js";
import { hashOf } from "../../lib/hash.js";
import { UnavailableError } from "../../lib/errors.js";
import { fillImages, imageOf, type SiteImages } from "../images/images.js";
import { siteBlockData } from "../markdown/markdown-context.js";
import type { MarkdownBodies } from "../markdown/markdown-stage.js";
import type { Route, RouteTable } from "../routes/routes.js";
import { contentSecurityPolicy, siteFiles } from "./site-files.js";
import type { Redirect } from "../routes/aliases.js";
import { pageLinks } from "../checks/rendered-links.js";
import { readPageMeta, shareTextOf } from "../checks/share-text.js";
import { redirectFiles } from "../routes/redirect-files.js";
import type { SiteCards } from "../cards/cards.js";
import { themePlace, type PageContext, type Theme } from "../../theme.js";
import { codeError, siteCodePlace } from "../../lib/code-location.js";
import { ContentError } from "../../lib/errors.js";
import { nearest } from "../../lib/yaml-source.js";

export interface RenderInput {
  content: SiteContent;
  table: RouteTable;
  markdown: MarkdownBodies;
  images: SiteImages;
  cards: SiteCards;
  assets: AssetRecord;
  /** The old addresses: each gets its page for hosts that cannot redirect, and a line in `_redirects`. */
  redirects: readonly Redirect[];
  /** The pages of the last build, by route. */
  previous: Readonly<Record<string, PageEntry>>;
  /**
   * Pages rendered only to check their links, never written (the build has errors already):
   * a page that fails to render is left out (what it needs is among the errors); a page of
   * the last build is taken as recorded when only its card or the assets changed (neither
   * changes a link or an id, and the cards are not drawn for a check); no other file is made.
   */
  checkOnly?: boolean;
}

/** What the render stage yields, in order: every page (made now, or kept from the last build), then the site's other files. */
export type RenderedFile =
  | { kind: "page"; route: string; file: string; html: string; entry: PageEntry }
  | { kind: "kept"; route: string; entry: PageEntry }
  | { kind: "file"; file: string; html: string; redirect: boolean };

/**
 * Renders every page none of whose dependencies kept its last version, yielding each as it
 * is made (nothing holds every page's HTML). `reuse` asks the writer to take a page of the
 * last build of `size` bytes as it is; false when it cannot (then it is rendered).
 */
export async function* renderStage(input: RenderInput, theme: Theme, reuse: (file: string, size: number) => Promise<boolean>): AsyncGenerator<RenderedFile> {
  const { content, table, markdown, images, cards, assets, redirects, previous, checkOnly } = input;
  const site = theme.siteMeta(content.site.value);
  const csp = contentSecurityPolicy(assets.manifest.inlineScript ? [assets.manifest.inlineScript] : [], site.connect);
  const bodyOf = (file: string) => {
    const result = markdown.get(file)?.result;
    return result ? fillImages(images, result.html, file, result.images) : undefined;
  };
  // A body without images is its Markdown's HTML, whose hash the Markdown stage gave.
  const bodyHash = (file: string) => {
    const entry = markdown.get(file);
    return entry && entry.result.images.length === 0 ? entry.htmlHash : hashOf(bodyOf(file) ?? "");
  };
  const listings = new Map<string, unknown>();
  const blockData = new Map<string, unknown>();
  const listing = (name: string) => listingOf(content, theme, name, listings);
  const values = new DepValues({
    content,
    table,
    bodyHash,
    listing,
    block: (name) => siteBlockData(content, theme, name, blockData),
    assets: hashOf(JSON.stringify(assets.manifest), csp),
    card: (routePath) => cards.byRoute.get(routePath),
    cover: (file, url) => imageOf(images, file, url),
  });
  const context: PageInput = { content, table, theme, csp, assets, bodyOf, values, images, cards, listing };
  for (const route of table.routes) {
    const entry = previous[route.path];
    let made: { html: string; entry: PageEntry } | undefined;
    try {
      const deps = checkOnly && entry ? linkDeps(entry.deps) : entry?.deps;
      if (entry?.outFile === route.outFile && values.unchanged(deps) && (await reuse(route.outFile, entry.size))) {
        yield { kind: "kept", route: route.path, entry };
        continue;
      }
      made = renderRoute(route, context);
    } catch (error) {
      if (!checkOnly) throw error;
      continue;
    }
    yield { kind: "page", route: route.path, file: route.outFile, html: made.html, entry: made.entry };
  }
  if (checkOnly) return;
  for (const [file, html] of siteFiles(site, table.routes, csp, theme.summary, (route) => cards.byRoute.get(route.path))) yield { kind: "file", file, html, redirect: false };
  const titleOf = (routePath: string) => {
    const route = table.byPath.get(routePath);
    return route?.kind === "article" ? route.article.main.meta.title : site.name;
  };
  for (const [file, html] of redirectFiles(redirects, { siteUrl: site.url, language: site.language, moved: site.moved, titleOf })) yield { kind: "file", file, html, redirect: true };
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
  listing: (name: string) => unknown;
}

/** One page, through a context that records what its template reads. */
function renderRoute(route: Route, { content, table, theme, csp, assets, bodyOf, values, images, cards, listing }: PageInput): { html: string; entry: PageEntry } {
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
      // No body: a block of it reads a file that did not load (the build has its errors).
      const body = bodyOf(article.file);
      if (body === undefined) throw new UnavailableError(article.file);
      return body;
    },
    imageOf: (article: Article, url: string) => {
      read(dep.cover(article, url));
      return imageOf(images, article.file, url);
    },
    get socialCard() {
      read(dep.card(route.path));
      return cards.byRoute.get(route.path);
    },
    listing: (name: string) => {
      read(dep.listing(name));
      return listing(name);
    },
  };
  const html = renderPage(route, ctx, theme);
  // Its links and ids, kept with it: a page taken unchanged from the last build is checked too.
  return { html, entry: { outFile: route.outFile, deps: recorder.deps, size: Buffer.byteLength(html), ...pageLinks(html), share: shareTextOf(readPageMeta(html)) } };
}

/** A page's dependencies but its card and the assets: what its links and ids are made of. */
function linkDeps(deps: Readonly<Record<string, string>>): Record<string, string> {
  const card = dep.card("");
  return Object.fromEntries(Object.entries(deps).filter(([id]) => id !== dep.assets() && !id.startsWith(card)));
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

/** A theme's listing, computed once per render (`memo`, by name). */
function listingOf(content: SiteContent, theme: Theme, name: string, memo: Map<string, unknown>): unknown {
  if (!memo.has(name)) {
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
    memo.set(name, compute(content));
  }
  return memo.get(name);
}
