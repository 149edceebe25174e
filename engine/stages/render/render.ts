/**
 * Stage 8 — render, the compute core: each route's page through React's renderToString of
 * the theme's template for it, and the site's other files (feed, sitemap, robots.txt,
 * `_headers`, the old addresses' pages).
 *
 * A template reads the site through a context that records every value it reads
 * (dependencies.ts). Every value exists before the first page renders: the stages before
 * this one made them all, and they reach a worker as plain data (`PageSources`). The core
 * decides and renders; pipeline/render-pages.ts, the shell, asks the writer whether a page
 * it would keep is still there, hands the others to the threads, and yields each page to the
 * write stage in route order.
 */
import { createElement } from "react";
import { renderToString } from "react-dom/server";
import { IslandContext, ISLAND_MARK, islandNames, type IslandScope } from "../../islands.js";
import type { Article, SiteContent } from "../load/content.js";
import { dep, DepValues, Recorder, recordedContent, type DepId } from "../../incremental/dependencies.js";
import { fillParts, PartContext, PartMismatch, PartOutOfPlace, type PartMemory, type PartScope } from "./cached-parts.js";
import { hashOf } from "../../lib/hash.js";
import { ContentError, plainIssue, type ContentIssue } from "../../lib/errors.js";
import { fillImages, imageOf, type ShownImages } from "../images/images.js";
import type { MarkdownImage } from "../markdown/image-slots.js";
import { siteBlockData } from "../markdown/markdown-context.js";
import { articleOf, type Route, type RouteTable } from "../routes/routes.js";
import { contentSecurityPolicy, siteFiles, type SitemapMemo } from "./site-files.js";
import type { Redirect } from "../routes/aliases.js";
import { pageFindings, type PageEntry } from "../checks/rendered-links.js";
import { shareMessage } from "../checks/share-text.js";
import { absoluteDeps, ownIds, relativeDeps } from "../checks/page-reads.js";
import { redirectFiles } from "../routes/redirect-files.js";
import { themePlace, type AssetManifest, type PageContext, type SiteMeta, type SocialCard, type Theme } from "../../theme.js";
import { codeError, siteCodePlace } from "../../lib/code-location.js";
import { nearest } from "../../lib/nearest.js";
import { outcomeIn, outcomeValue, type SiteValues } from "../../lib/site-values.js";

/** What the render stage yields, in order: every page (made now, or kept from the last build), then the site's other files. */
export type RenderedFile =
  | { kind: "page"; route: string; file: string; html: string; entry: PageEntry }
  /** Pages of the last build taken as they were, a run of them in route order. */
  | { kind: "kept"; pages: [route: string, entry: PageEntry][] }
  | { kind: "file"; file: string; html: string; redirect: boolean };

/** What an article's body gives a page: its HTML (image markers in it) and the images to put there. */
export interface PageBody {
  /** Undefined for a body the persistent cache kept whose HTML was not read (no page of this run rendered it yet): a page that shows it comes back for it (`needs`). */
  html?: string;
  images: MarkdownImage[];
  /** The hash of `html` (a page's dependency on a body without images). */
  htmlHash: string;
}

/**
 * What every page of a run may read besides the content and the bodies, made by the stages
 * before render: handed to each worker once per run (pipeline/threads.ts), never with each task.
 */
export interface PageShare {
  /** The images, without their bytes (a page shows them; the write stage writes them). */
  images: ShownImages;
  /** Each route's social card. */
  cards: ReadonlyMap<string, SocialCard>;
  assets: AssetManifest;
  /** The policy every page carries. */
  csp: string;
  /** Articles that have no body in this run (a block of theirs reads a file that did not load). */
  absent: readonly string[];
}

/**
 * The bodies a page can read (undefined: the article has none this run). The build's thread
 * has every body; a worker has those of the articles its pages show (`pageBodies`), and a
 * page that reads another (`bodyNotHere`) comes back to be rendered on the build's thread
 * (`needs`): no worker holds every body of a large site.
 */
export type BodyOf = (file: string) => PageBody | undefined;

/** Everything a page is rendered from: the content, the route table, the run's site values, the bodies and the rest. */
export interface PageSources {
  content: SiteContent;
  table: RouteTable;
  values: SiteValues;
  share: PageShare;
  bodies: BodyOf;
  /** The keys of the theme's parts (incremental/code-keys.ts): a page is kept while its template's is the same. */
  code?: Readonly<Record<string, string>>;
}

/** The articles whose bodies a route's page shows as its own: its article and translations, or the one it features. */
export function pageBodies(route: Route): Article[] {
  const variants = route.kind === "article" ? route.article : route.kind === "page" ? route.featured : undefined;
  return variants ? [variants.main, ...variants.translations] : [];
}

/** Thrown (on one thread, never across) where a page reads a body this thread was not given. */
class BodyNotHere extends Error {
  constructor(readonly file: string) {
    super(`the body of ${file} is not on this thread`);
  }
}

/** For a `BodyOf` that was not given the body of `file`: the page is rendered again where every body is. */
export function bodyNotHere(file: string): never {
  throw new BodyNotHere(file);
}

/** The policy of a site's pages, from its assets' inline script. */
export const pagePolicy = (site: SiteMeta, assets: AssetManifest) => contentSecurityPolicy(assets.inlineScript ? [assets.inlineScript] : [], site.connect);

/**
 * What a page read, hashed: made once per run (and per worker) from its sources. `bodies` is
 * read when a hash is first asked for: a worker's changes with each task.
 */
export function pageValues({ content, table, values, share, bodies, code }: PageSources, theme: Theme, known?: Readonly<Record<string, string>>): DepValues {
  const { images, cards, assets, csp } = share;
  return new DepValues({
    content,
    table,
    // A body without images is its Markdown's HTML, whose hash the Markdown stage gave.
    bodyHash: (file) => {
      const body = bodies(file);
      return body && body.images.length === 0 ? body.htmlHash : hashOf(bodyHtml(body, images, file) ?? "");
    },
    listing: (name) => listingOf(values, theme, name),
    block: (name) => siteBlockData(values, name),
    values,
    assets: hashOf(JSON.stringify(assets), csp),
    card: (routePath) => cards.get(routePath),
    cover: (file, url) => imageOf(images, file, url),
    code,
  }, known);
}

/** An article's body with its images in place; undefined when it has none. */
function bodyHtml(body: PageBody | undefined, images: ShownImages, file: string): string | undefined {
  if (body?.html === undefined) return body && bodyNotHere(file);
  return fillImages(images, body.html, file, body.images);
}

/**
 * Whether the page of the last build at a route can be taken as it is: same file, and none of
 * the values it read changed (a check-only run ignores its card and the assets, which change
 * no link or id). After the record the last run checked, `changed` says which routes read a
 * value that changed (pipeline/render-pages.ts asks only the values that may have: each once,
 * for all its readers). The writer has the last word: it may not hold the page.
 */
export function wouldKeep(route: Route, entry: PageEntry | undefined, values: DepValues, checkOnly = false, changed?: ReadonlySet<string>): entry is PageEntry {
  if (!entry || entry.outFile !== route.outFile) return false;
  // `changed`: the routes whose values changed, known from what each value's readers recorded.
  if (changed) return entry.deps !== undefined && !changed.has(route.path);
  // Its own ids as the route names them now: another article's body reads as changed.
  return values.unchanged(entry.deps && absoluteDeps(route, checkOnly ? linkDeps(entry.deps) : entry.deps));
}

/**
 * What the values each page reads on its own (its route, its body, its card) were made of in
 * a run: the last run's is compared with this one's (`sameSince`), so a save in a site of
 * thousands of pages hashes only what it changed.
 */
export interface PageSnapshot {
  table: RouteTable;
  bodies: ReadonlyMap<string, PageBody>;
  cards: ReadonlyMap<string, SocialCard>;
  /** The run's articles and Markdown bodies (the very objects): a save's delta (`SaveDelta`) is over them, or not used. */
  articles?: readonly Article[];
  markdown?: ReadonlyMap<string, unknown>;
  /** The `routes` value's hash, once a run made it (kept by the next when no route moved: `sameOrder`). */
  routesHash?: string;
  /** The run's sitemap with what it was made of (`siteFiles`): the next run's, when no page's path or date changed. */
  sitemap?: SitemapMemo;
}

/**
 * What a watch-mode save changed, as the stages before the pages know it: the article files
 * it read again (each with its article now; content.ts's `touched`), over the articles of
 * `from`, and the bodies whose Markdown entry is not the very one of `bodiesFrom`'s run.
 */
export interface SaveDelta {
  from: readonly Article[];
  files: ReadonlyMap<string, Article | undefined>;
  bodiesFrom: ReadonlyMap<string, unknown>;
  fresh: readonly string[];
}

/**
 * `changedSince` after a save that `delta` describes: only the routes, bodies and cards of
 * the articles it read again, the bodies the Markdown stage did not keep as they were, the
 * routes that are not an article's, and the cards (if any) are compared; `compared` counts
 * them. Undefined, for `changedSince` over everything, where the delta cannot vouch for the
 * rest: a delta over another run than `last`, a changed number of routes or of bodies, an
 * article deleted or moved to another route, a translation on either side.
 */
export function changedAfter(last: PageSnapshot, now: PageSnapshot, delta: SaveDelta): { changed: Set<string>; compared: number } | undefined {
  if (delta.from !== last.articles || delta.bodiesFrom !== last.markdown) return undefined;
  if (last.table.routes.length !== now.table.routes.length || last.bodies.size !== now.bodies.size || last.cards.size !== now.cards.size) return undefined;
  const changed = new Set<string>();
  let compared = 0;
  const route = (path: string) => {
    if (!sameRoute(last.table.byPath.get(path), now.table.byPath.get(path)!)) changed.add(dep.route(path));
    compared++;
  };
  const body = (file: string) => {
    if (!sameBody(last.bodies.get(file), now.bodies.get(file))) changed.add(`body:${file}`);
    compared++;
  };
  for (const [file, article] of delta.files) {
    if (!article) return undefined;
    const before = last.table.byPath.get(article.route);
    const after = now.table.byPath.get(article.route);
    const single = (r: Route | undefined) => r?.kind === "article" && r.article.main.file === file && r.article.translations.length === 0;
    if (!single(before) || !single(after)) return undefined;
    route(article.route);
    body(file);
  }
  for (const file of delta.fresh) if (!delta.files.has(file)) body(file);
  for (const r of now.table.routes) if (r.kind !== "article") route(r.path);
  for (const r of last.table.routes) if (r.kind !== "article" && !now.table.byPath.has(r.path)) changed.add(dep.route(r.path));
  // A body with images is its HTML with them in place: hashed again, whatever the save.
  for (const [file, b] of now.bodies) if (b.images.length > 0) changed.add(`body:${file}`);
  // A card is made by the theme from anything in the content: every one is compared (none when the site draws none).
  for (const [path, card] of now.cards) {
    if (!sameCard(last.cards.get(path), card)) changed.add(dep.card(path));
    compared++;
  }
  return { changed, compared };
}

/** Whether two tables list the same routes (kind, path, template) in the same order: the `routes` value is then the same. */
export function sameOrder(last: RouteTable, now: RouteTable): boolean {
  if (last.routes.length !== now.routes.length) return false;
  for (let i = 0; i < now.routes.length; i++) {
    const a = last.routes[i]!;
    const b = now.routes[i]!;
    if (a.kind !== b.kind || a.path !== b.path || a.template !== b.template) return false;
  }
  return true;
}

/** A page's own value's id (`route:`, `body:`, `card:`): one `changedSince` can vouch for. */
export const ownId = (id: string): boolean => id.startsWith("route:") || id.startsWith("body:") || id.startsWith("card:");

/**
 * The ids of the pages' own values (`route:`, `body:`, `card:`) that may differ in `now` from
 * `last`: compared part by part, without a hash, for every route, body and card; every other
 * own id has the same value in both. Where it cannot tell (a body with images, whose value is
 * its HTML with the images in place; a card with a value that is not a string or a number),
 * the id is among them, and is hashed. Every other kind of id (the site, a listing, the
 * assets: one hash a run) is never vouched for.
 */
export function changedSince(last: PageSnapshot, now: PageSnapshot): Set<string> {
  const changed = new Set<string>();
  for (const route of now.table.routes) if (!sameRoute(last.table.byPath.get(route.path), route)) changed.add(dep.route(route.path));
  for (const { path } of last.table.routes) if (!now.table.byPath.has(path)) changed.add(dep.route(path));
  for (const [file, body] of now.bodies) if (!sameBody(last.bodies.get(file), body)) changed.add(`body:${file}`);
  for (const file of last.bodies.keys()) if (!now.bodies.has(file)) changed.add(`body:${file}`);
  for (const [path, card] of now.cards) if (!sameCard(last.cards.get(path), card)) changed.add(dep.card(path));
  for (const path of last.cards.keys()) if (!now.cards.has(path)) changed.add(dep.card(path));
  return changed;
}

/** Two bodies of the same HTML, neither with images (a body with images is its HTML with them in place: hashed again). */
function sameBody(a: PageBody | undefined, b: PageBody | undefined): boolean {
  return !!a && !!b && a.htmlHash === b.htmlHash && a.images.length === 0 && b.images.length === 0;
}

/** Two routes whose value (`dep.route`: routeParts) is made of the same parts: kind, template, and each article's file and text hash. */
function sameRoute(a: Route | undefined, b: Route): boolean {
  if (!a || a.kind !== b.kind || a.template !== b.template) return false;
  const before = articleOf(a);
  const after = articleOf(b);
  if (!before || !after) return before === after;
  const sameText = (x: Article, y: Article) => x === y || (x.file === y.file && x.sourceHash === y.sourceHash);
  return sameText(before.main, after.main) && before.translations.length === after.translations.length && before.translations.every((t, i) => sameText(t, after.translations[i]!));
}

/** Two social cards as a page names them, field by field (a field that is not a string or a number: not the same). */
function sameCard(a: SocialCard | undefined, b: SocialCard | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  return keys.every((key) => {
    const value = (a as unknown as Record<string, unknown>)[key];
    return (typeof value === "string" || typeof value === "number") && value === (b as unknown as Record<string, unknown>)[key];
  });
}

/**
 * One page as rendered: its HTML and its record; or left out (a check-only run); or what the
 * theme got wrong, as data; or the body of another article it reads, which this thread does
 * not hold (it is rendered again where every body is).
 */
export type PageOutcome =
  | { route: string; html: string; entry: PageEntry }
  | { route: string; left: true }
  | { route: string; failed: ContentIssue }
  | { route: string; needs: string };

/**
 * Renders the pages of some routes, in order, through React's renderToString of the theme's
 * template for each. Nothing is thrown for a mistake of the theme's: it is returned at its
 * place. A check-only run (a build that has errors) leaves out a page that cannot render
 * (what it needs is among the errors).
 */
export function renderPages(paths: readonly string[], sources: PageSources, values: DepValues, theme: Theme, parts: PartMemory, checkOnly = false): PageOutcome[] {
  return paths.map((routePath): PageOutcome => {
    const route = sources.table.byPath.get(routePath);
    try {
      if (!route) throw new Error(`no route ${routePath} in this run's table`);
      return { route: routePath, ...renderRoute(route, sources, values, theme, parts) };
    } catch (error) {
      if (error instanceof BodyNotHere) return { route: routePath, needs: error.file };
      if (checkOnly) return { route: routePath, left: true };
      if (error instanceof ContentError) return { route: routePath, failed: plainIssue(error) };
      throw error;
    }
  });
}

/** The site's other files, after its pages: the sitemap, robots.txt, `_headers`, and a page and a line for each old address (the feed comes after the cards: `feedFile`). */
export function otherFiles(content: SiteContent, table: RouteTable, share: Pick<PageShare, "csp">, redirects: readonly Redirect[], theme: Theme, memo?: { sitemap?: SitemapMemo }): [file: string, text: string, redirect: boolean][] {
  const site = theme.siteMeta(content.site.value);
  const files: [string, string, boolean][] = [];
  for (const [file, html] of siteFiles(site, table.routes, share.csp, memo)) files.push([file, html, false]);
  const titleOf = (routePath: string) => {
    const route = table.byPath.get(routePath);
    return route?.kind === "article" ? route.article.main.meta.title : site.name;
  };
  for (const [file, html] of redirectFiles(redirects, { siteUrl: site.url, language: site.language, moved: site.moved, titleOf })) files.push([file, html, true]);
  return files;
}

/** One page, through a context that records what its template reads. */
function renderRoute(route: Route, { content, table, share, values: siteData, bodies }: PageSources, values: DepValues, theme: Theme, memory: PartMemory): { html: string; entry: PageEntry } {
  const { images, cards, assets, csp } = share;
  const own = ownIds(route);
  const recorder = new Recorder(values, (id) => id === own.route || id === own.card || id === own.body);
  // What a cached part renders from is noted with it, and noted again on each page that reuses it.
  let captured: Set<DepId> | undefined;
  const read = (id: DepId) => {
    recorder.read(id);
    captured?.add(id);
  };
  const parts: PartScope = {
    memory,
    route: route.path,
    read,
    capture: () => void (captured = new Set()),
    release: () => {
      const ids = [...(captured ?? [])];
      captured = undefined;
      return ids;
    },
  };
  read(dep.route(route.path));
  // The template's code: its module and what that reaches (incremental/code-keys.ts).
  read(dep.code(`template:${route.template}`));
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
      return assets;
    },
    bodyOf: (article: Article) => {
      read(dep.body(article));
      // No body: a block of it reads a file that did not load (the build has its errors).
      const body = bodyHtml(bodies(article.file), images, article.file);
      if (body === undefined) throw new Error(`${article.file} did not load`);
      return body;
    },
    imageOf: (article: Article, url: string) => {
      read(dep.cover(article, url));
      return imageOf(images, article.file, url);
    },
    get socialCard() {
      read(dep.card(route.path));
      return cards.get(route.path);
    },
    listing: (name: string) => {
      read(dep.listing(name));
      return listingOf(siteData, theme, name);
    },
  };
  const html = renderPage(route, ctx, theme, parts);
  // Its links and ids, kept with it: a page taken unchanged from the last build is checked too.
  // Copied (structuredClone makes new strings): read out of the page, each is a slice of its
  // HTML and would keep the whole page alive as long as the record (156 MB at 4000 articles).
  // What a link to it loses when shared is said here: the record holds the sentence of the few
  // pages that lose some (copied with the rest: it quotes the title's suffix), not every page's
  // title and description (~0.3 KB a page).
  const { share: shown, ...links } = pageFindings(html);
  const shareSays = shareMessage(route.path, shown);
  const found = structuredClone(shareSays === undefined ? links : { ...links, shareSays });
  return { html, entry: { outFile: route.outFile, deps: relativeDeps(route, recorder.deps, own), size: Buffer.byteLength(html), ...found } };
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
export function renderPage(route: Route, ctx: PageContext, theme: Theme, parts: PartScope): string {
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
    const islands: IslandScope = { names: islandNames(theme), where: `on ${route.path}` };
    const page = createElement(PartContext.Provider, { value: parts }, createElement(IslandContext.Provider, { value: islands }, template(ctx)));
    const html = `<!DOCTYPE html>${fillParts(renderToString(page), parts.memory, route.path)}`;
    // An island rendered by the template or in an article's body (React escapes every `<` of a text).
    return html.includes(ISLAND_MARK) ? withIslandRuntime(html, ctx.assets.islandRuntime) : html;
  } catch (error) {
    if (error instanceof ContentError || error instanceof BodyNotHere) throw error;
    if (error instanceof PartOutOfPlace) {
      throw codeError(themePlace(theme), undefined, {
        message: `the cached part '${error.part}' on ${error.route} is in the page's <head>, where React moves a <link>, <meta>, <script> or <title> out of it: the page would lose them`,
        hint: "write the head's tags in the template itself, without <Cached> (a part caches what the <body> shows)",
        find: error.part,
        fallback: "the theme",
      });
    }
    if (error instanceof PartMismatch) {
      throw codeError(themePlace(theme), undefined, {
        message: `the cached part '${error.part}' renders differently on ${error.again} than on ${error.first}, for the same name, \`vary\` and values given to its children`,
        hint: "what it shows depends on something else it reads (a React context, a value of the module): give that to its children, or add it to its `vary`",
        find: error.part,
        fallback: "the theme",
      });
    }
    throw codeError(siteCodePlace((error as Error)?.stack) ?? themePlace(theme), undefined, {
      message: `the template '${route.template}' failed on ${route.path}: ${(error as Error)?.message ?? String(error)}`,
      hint: "fix the theme's code at this line",
      fallback: "the theme",
    });
  }
}

/**
 * A page that renders an island loads the islands' runtime (the one script it needs before
 * the reader acts), as a module from the site's own assets: the policy allows it. At the end
 * of `<head>` (a module script runs once the page is parsed, whatever its place).
 */
function withIslandRuntime(html: string, runtime: string | undefined): string {
  if (!runtime) return html;
  const script = `<script type="module" src="${runtime}"></script>`;
  const at = html.indexOf("</head>");
  return at >= 0 ? `${html.slice(0, at)}${script}${html.slice(at)}` : html.replace(/<\/body>|$/, (end) => `${script}${end}`);
}

/** A theme's listing, as the run computed it; a name the theme does not declare is an error at the template's line. */
function listingOf(values: SiteValues, theme: Theme, name: string): unknown {
  const outcome = outcomeIn(values.listings, name);
  if (outcome) return outcomeValue(outcome);
  const names = Object.keys(theme.listings ?? {});
  const guess = nearest(name, names);
  throw codeError(siteCodePlace(new Error().stack) ?? themePlace(theme), undefined, {
    message: `the theme has no listing '${name}'`,
    hint: guess ? `did you mean '${guess}'?` : names.length > 0 ? `the theme's listings: ${names.join(", ")}` : "declare it in the theme's `listings`",
    find: name,
    fallback: "the theme",
  });
}
