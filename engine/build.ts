/**
 * The orchestrator: load → route → markdown → check → bundle → render → write.
 *
 * `SiteBuilder` keeps what it built, so watch mode runs the same stages over a smaller set
 * of inputs (`update`) instead of a second build. Content errors are collected across every
 * stage and reported together; a full build commits the site only when there are none.
 */
import path from "node:path";
import { randomBytes } from "node:crypto";
import { ContentError, type ContentWarning } from "./errors.js";
import { brandTextOf, loadArticleFile, loadContent, readBrandText, type Article, type SiteContent } from "./content.js";
import { buildRoutes, byCodePoint, type Route, type RouteTable } from "./routes.js";
import { renderMarkdown, type InternalLink, type MarkdownResult } from "./markdown.js";
import { buildAssets, type BuiltAssets } from "./assets.js";
import { renderPage } from "./render.js";
import { contentSecurityPolicy, siteFiles } from "./site-files.js";
import type { SiteWriter } from "./output.js";
import { loadIcons } from "../templates/icons.js";
import { errorAt } from "./yaml-source.js";
import { memoryKeeper } from "./memory.js";
import type { AssetManifest, PageContext, RenderedArticle } from "../templates/page-context.js";

export interface BuildOptions {
  contentDir: string;
  projectRoot: string;
  /** Build `draft: true` articles too (dev mode). */
  drafts?: boolean;
  /**
   * Keep every article's rendered body between builds (watch mode, for fast updates). A
   * one-shot build renders each page as soon as its Markdown is parsed and keeps only
   * headings and links, so memory stays bounded however large the site.
   */
  keepBodies?: boolean;
  /**
   * The plain build every speed-up must equal byte for byte: the full Markdown pipeline for
   * every file and every page rendered whole. Used by the tests.
   */
  reference?: boolean;
  /** How the assets are built (tests slow it down to see pages rendered before it ends). */
  buildAssets?: typeof buildAssets;
}

/** What one article's Markdown gave: checks need the summary, pages need the body. */
interface MarkdownEntry {
  source: string;
  result: Omit<MarkdownResult, "body"> & { body?: MarkdownResult["body"] };
  /** The anchors this article gives its page, computed once. */
  ids?: Set<string>;
}

export interface BuildResult {
  ok: boolean;
  routes: Route[];
  errors: ContentError[];
  warnings: ContentWarning[];
  /** Files written (or removed), relative to the site root. */
  written: string[];
}

const EMPTY_SUMMARY: MarkdownEntry["result"] = Object.freeze({ headings: [], links: [], errors: [], warnings: [], blocks: [] });

/** Anchors every page has, from the layout. */
const LAYOUT_IDS = ["conteudo", "newsletter-title"];

export class SiteBuilder {
  private content?: SiteContent;
  private table?: RouteTable;
  private assets?: BuiltAssets;
  private readonly markdown = new Map<string, MarkdownEntry>();
  /**
   * Files whose Markdown gave errors, warnings or internal links: the whole-site checks read
   * these alone, so an update in a site of thousands of articles does not walk them all.
   */
  private readonly noteworthy = new Set<string>();
  /** Articles of each series, in route order; kept until an edit changes a listing. */
  private series?: Map<string, { route: string; title: string }[]>;
  /** Parse errors of article files, kept until the file is fixed. */
  private readonly articleErrors = new Map<string, ContentError[]>();
  private warnings: ContentWarning[] = [];
  private missingIcons: string[] = [];

  constructor(readonly options: BuildOptions) {}

  private get articlesDir() {
    return path.join(this.options.contentDir, "articles");
  }

  /** Builds the whole site into `writer`; commits it only if there is no error. */
  async build(writer: SiteWriter): Promise<BuildResult> {
    // The bundler runs in its own process: start it while the content loads.
    const assetsBuilt = readBrandText(this.options.contentDir).then((brandText) =>
      (this.options.buildAssets ?? buildAssets)({ projectRoot: this.options.projectRoot, brandText }),
    );
    assetsBuilt.catch(() => {});
    const loaded = await loadContent(this.options.contentDir, { drafts: this.options.drafts });
    this.warnings = loaded.warnings;
    this.markdown.clear();
    this.noteworthy.clear();
    this.series = undefined;
    this.articleErrors.clear();
    if (!loaded.content) return this.fail(writer, loaded.errors);
    const content = (this.content = loaded.content);
    this.missingIcons = await loadIcons(content.cards.value.map((c) => c.icon));
    this.table = buildRoutes(content);
    const errors: ContentError[] = [...this.table.errors];
    const written: string[] = [];
    try {
      // Pages stream out as their Markdown is rendered, from before the assets are built;
      // after the first error, rendering stops and the remaining files are only checked, so
      // every error is still reported.
      const pages = this.pageRenderer(writer, written, assetsBuilt.then((assets) => (this.assets = assets)));
      for (const route of this.table.routes) {
        const articles = route.kind === "article" ? [route.article.pt, route.article.en] : [];
        for (const article of articles) if (article) errors.push(...this.markdownOf(article).result.errors);
        if (errors.length === 0) await pages.render(route);
        if (!this.options.keepBodies) for (const article of articles) if (article) this.dropBody(article);
      }
      errors.push(...this.siteChecks());
      if (errors.length > 0) return this.fail(writer, errors);
      await pages.finish(true);
      await writer.copyDir(path.join(this.options.projectRoot, "public"));
      for (const [file, data] of this.assets!.files) if (await writer.write(file, data)) written.push(file);
      await writer.commit();
    } catch (error) {
      await writer.abort();
      throw error;
    }
    this.collectWarnings();
    return { ok: true, routes: this.table.routes, errors: [], warnings: this.warnings, written: written.sort() };
  }

  /**
   * After files changed (absolute paths), rebuilds what they affect and writes it: an edited
   * article re-renders its own page, the home page when it is featured there and its series;
   * settings, cards and data re-render every page; CSS rebuilds the assets.
   */
  async update(changed: readonly string[], writer: SiteWriter): Promise<BuildResult> {
    if (!this.content || !this.assets) return this.build(writer);
    const { contentDir, projectRoot } = this.options;
    const inside = (dir: string, file: string) => !path.relative(dir, file).startsWith("..");
    const articleFiles = changed.filter((f) => inside(this.articlesDir, f) && f.endsWith(".md"));
    const settingsChanged = changed.some((f) => inside(contentDir, f) && /\.(ya?ml|json)$/.test(f));
    const cssChanged = changed.some((f) => f.endsWith(".css"));
    const publicFiles = changed.filter((f) => inside(path.join(projectRoot, "public"), f));

    const beforeTable = this.table!;
    const removeGone = async (written: string[]) => {
      // Routes can only have gone when the table was made again.
      if (this.table === beforeTable) return;
      for (const route of beforeTable.routes) {
        const routePath = route.path;
        if (!this.table?.byPath.has(routePath)) {
          await writer.remove(route.outFile);
          written.push(route.outFile);
        }
      }
    };
    if (settingsChanged) {
      // Settings, cards, editions and data tables feed every page: rebuild them all (the
      // writer skips files whose bytes did not change).
      const result = await this.build(writer);
      if (result.ok) await removeGone(result.written);
      return result;
    }

    const touchedRoutes = new Set<string>();
    const touchedSeries = new Set<string>();
    // The feed and sitemap list routes, titles, leads, dates and categories: rewrite them
    // only when an edit changes one of those.
    const listed = (a: Article | undefined) =>
      a ? JSON.stringify([a.route, a.lang, a.meta.title, a.meta.lead, a.meta.description, a.meta.date?.iso, a.meta.category, a.meta.draft]) : "";
    let listingChanged = false;
    for (const file of articleFiles) {
      const shown = path.relative(process.cwd(), file) || file;
      const old = this.content.articles.find((a) => a.file === shown);
      if (old) {
        touchedRoutes.add(old.route);
        if (old.meta.series) touchedSeries.add(old.meta.series);
      }
      const loaded = loadArticleFile(this.articlesDir, file);
      if (loaded && "errors" in loaded) {
        // Keep the last good version so the rest of the site stays whole; report the error.
        this.articleErrors.set(shown, loaded.errors);
        continue;
      }
      this.articleErrors.delete(shown);
      this.forget(shown);
      const others = this.content.articles.filter((a) => a.file !== shown);
      const article = loaded?.article;
      const visible = article && (this.options.drafts || !article.meta.draft);
      if (listed(old) !== listed(visible ? article : undefined)) listingChanged = true;
      if (old?.meta.series !== (visible ? article?.meta.series : undefined)) listingChanged = true;
      this.content.articles = visible ? [...others, article] : others;
      if (visible && old && !listingChanged) this.replaceInRoutes(old, article);
      if (article) {
        touchedRoutes.add(article.route);
        if (article.meta.series) touchedSeries.add(article.meta.series);
      }
    }

    if (listingChanged) this.series = undefined;
    const errors = this.check(listingChanged || !this.table, articleFiles);
    const written: string[] = [];
    if (cssChanged) {
      const old = this.assets;
      this.assets = await buildAssets({ projectRoot, brandText: brandTextOf(this.content.site.value) });
      for (const [file, data] of this.assets.files) {
        if (!old.files.has(file) && (await writer.write(file, data))) written.push(file);
      }
      for (const file of old.files.keys()) if (!this.assets.files.has(file)) await writer.remove(file);
    }
    for (const file of publicFiles) {
      const rel = path.relative(path.join(projectRoot, "public"), file);
      if (await writer.copyFile(file, rel)) written.push(rel);
      else await writer.remove(rel);
    }
    if (errors.length > 0) return { ok: false, routes: this.table!.routes, errors, warnings: this.warnings, written };

    const featured = this.content.site.value.home.featured;
    const affected = this.table!.routes.filter(
      (r) =>
        cssChanged ||
        touchedRoutes.has(r.path) ||
        (r.kind === "home" && touchedRoutes.has(featured)) ||
        (r.kind === "article" && r.article.pt.meta.series !== undefined && touchedSeries.has(r.article.pt.meta.series)),
    );
    written.push(...(await this.renderRoutes(affected, writer, listingChanged || cssChanged)));
    await removeGone(written);
    await writer.commit();
    return { ok: true, routes: this.table!.routes, errors: [], warnings: this.warnings, written };
  }

  /**
   * Routes, Markdown (cached per file by its text) and the whole-site checks. Only the
   * articles in `changedFiles` (absolute paths) can need their Markdown rendered again.
   */
  private check(routesChanged: boolean, changedFiles: readonly string[]): ContentError[] {
    const content = this.content!;
    if (routesChanged || !this.table) this.table = buildRoutes(content);
    const errors: ContentError[] = [...[...this.articleErrors.values()].flat(), ...this.table.errors];
    const changed = new Set(changedFiles.map((f) => path.relative(process.cwd(), f) || f));
    for (const article of content.articles) {
      if (changed.has(article.file)) this.markdownOf(article);
    }
    for (const entry of this.noteworthyEntries()) errors.push(...entry.result.errors);
    errors.push(...this.siteChecks());
    this.collectWarnings();
    return errors;
  }

  /** Swaps a new version of an article into the route table (same route, title, series). */
  private replaceInRoutes(old: Article, next: Article): void {
    const route = this.table?.byPath.get(old.route);
    if (route?.kind === "article" && route.article[old.lang] === old) route.article[old.lang] = next;
    for (const home of this.table?.routes ?? []) {
      if (home.kind === "home" && home.featured[old.lang] === old) home.featured[old.lang] = next;
    }
  }

  /** The Markdown of an article, rendered once per version of its text. */
  private markdownOf(article: Article): MarkdownEntry {
    let entry = this.markdown.get(article.file);
    if (!entry || entry.source !== article.source || (!entry.result.body && this.options.keepBodies)) {
      entry = { source: article.source, result: renderMarkdown(article, this.content!, { lean: !this.options.reference }) };
      this.markdown.set(article.file, entry);
      const { errors, warnings, links } = entry.result;
      if (errors.length + warnings.length + links.length > 0) this.noteworthy.add(article.file);
      else this.noteworthy.delete(article.file);
    }
    return entry;
  }

  /** The body of an article for its page, rendering it again if it was let go. */
  private bodyOf(article: Article): RenderedArticle {
    const entry = this.markdownOf(article);
    if (entry.result.body) return entry.result as RenderedArticle;
    const result = renderMarkdown(article, this.content!, { lean: !this.options.reference });
    return { body: result.body, blocks: result.blocks };
  }

  private forget(file: string): void {
    this.markdown.delete(file);
    this.noteworthy.delete(file);
  }

  /** Markdown of the articles with errors, warnings or links, in file order. */
  private noteworthyEntries(): MarkdownEntry[] {
    return [...this.noteworthy]
      .sort(byCodePoint)
      .map((file) => this.markdown.get(file))
      .filter((entry): entry is MarkdownEntry => entry !== undefined);
  }

  private dropBody(article: Article): void {
    const entry = this.markdown.get(article.file);
    if (!entry) return;
    const { headings, links, errors, warnings } = entry.result;
    const empty = headings.length + links.length + errors.length + warnings.length === 0;
    // Most articles of a huge site end up with nothing to remember: share one empty summary.
    entry.result = empty ? EMPTY_SUMMARY : { headings, links, errors, warnings, blocks: [] };
  }

  /** Checks that need every article: internal links and anchors, card icons. */
  private siteChecks(): ContentError[] {
    const content = this.content!;
    const errors = checkInternalLinks(content, this.table!.byPath, this.markdown, this.noteworthyEntries());
    const missing = new Set(this.missingIcons);
    content.cards.value.forEach((card, i) => {
      if (missing.has(card.icon)) {
        errors.push(
          errorAt(content.cards, [i, "icon"], {
            message: `unknown icon '${card.icon}'`,
            hint: "use a lucide icon name in kebab-case, such as 'heart-pulse' or 'trending-up' (see lucide.dev/icons)",
          }),
        );
      }
    });
    return errors;
  }

  private collectWarnings(): void {
    const markdownWarnings = this.noteworthyEntries().flatMap((entry) => entry.result.warnings);
    this.warnings = [...this.warnings.filter((w) => !w.message.startsWith("raw HTML")), ...markdownWarnings];
  }

  /** Renders routes and, with `siteFilesToo`, the feed, sitemap and headers. */
  private async renderRoutes(routes: readonly Route[], writer: SiteWriter, siteFilesToo = true): Promise<string[]> {
    const written: string[] = [];
    const pages = this.pageRenderer(writer, written, this.assets!);
    for (const route of routes) await pages.render(route);
    await pages.finish(siteFilesToo);
    return written.sort();
  }

  /**
   * Renders pages one at a time (each route on its own) and writes them, keeping a few dozen
   * writes in flight: rendering is CPU work and writing is I/O.
   *
   * A build's assets (hashed file names, the boot script and the policy that allows it) come
   * from esbuild and the font cutter, in other processes, while the first pages render. Until
   * then pages render with stand-ins for those values and wait, as HTML, to have them put in
   * (at most `waitingChars` characters of HTML; then rendering waits for the assets).
   */
  private pageRenderer(writer: SiteWriter, written: string[], assets: BuiltAssets | Promise<BuiltAssets>, waitingChars = 8 * 1024 * 1024) {
    const content = this.content!;
    const table = this.table!;
    const series = (this.series ??= seriesOf(content.articles));
    const baseFor = (manifest: AssetManifest, csp: string): Omit<PageContext, "route"> => ({
      site: content.site.value,
      csp,
      cards: content.cards.value.filter((c) => table.byPath.has(c.route)),
      assets: manifest,
      rendered: (article) => this.bodyOf(article),
      seriesOf: (id) => series.get(id) ?? [],
    });
    let ready: { base: Omit<PageContext, "route">; manifest: AssetManifest; csp: string } | undefined;
    const settle = ({ manifest }: BuiltAssets) => {
      const csp = contentSecurityPolicy([manifest.bootScript], content.site.value.newsletter.endpoint);
      ready ??= { base: baseFor(manifest, csp), manifest, csp };
    };
    let provisional: ProvisionalAssets | undefined;
    let waiting: [file: string, html: string][] = [];
    let waitingSize = 0;
    let failed = false;
    if (assets instanceof Promise) {
      void assets.then(settle, () => (failed = true));
      provisional = new ProvisionalAssets();
    } else {
      settle(assets);
    }

    // At most 64 writes in flight; past that, wait for the oldest (the writer finishes them in
    // order, so this rarely waits at all, where waiting for all 64 idled the renderer ~6%).
    const inFlight: Promise<void>[] = [];
    const write = async (file: string, data: string) => {
      inFlight.push(writer.write(file, data).then((changed) => void (changed && written.push(file))));
      if (inFlight.length >= 64) await inFlight.shift();
    };
    /** Once the assets are in: the waiting pages get them and go out. */
    const catchUp = async () => {
      if (!ready) settle(await assets);
      if (provisional) {
        const fill = provisional.filler(ready!.manifest, ready!.csp);
        const pages = waiting;
        waiting = [];
        provisional = undefined;
        for (const [file, html] of pages) await write(file, fill(html));
      }
    };
    // A one-shot build lets each page go once written: keep the heap near the live set.
    // Watch mode keeps every body on purpose, so it leaves collection to V8.
    const memory = this.options.keepBodies ? undefined : memoryKeeper();
    const shareParts = !this.options.reference;
    return {
      render: async (route: Route) => {
        memory?.tick();
        if (provisional && !ready && !failed) {
          // Let the assets' replies in between pages.
          await new Promise<void>((resolve) => setImmediate(resolve));
        }
        if (provisional && !ready && !failed && waitingSize < waitingChars) {
          const html = renderPage(route, provisional.base(baseFor), { shareParts });
          waiting.push([route.outFile, html]);
          waitingSize += html.length;
          return;
        }
        await catchUp();
        await write(route.outFile, renderPage(route, ready!.base, { shareParts }));
      },
      finish: async (siteFilesToo: boolean) => {
        await catchUp();
        if (siteFilesToo) for (const [file, text] of siteFiles(content, table.routes, ready!.csp)) await write(file, text);
        await Promise.all(inFlight);
      },
    };
  }

  private async fail(writer: SiteWriter, errors: ContentError[]): Promise<BuildResult> {
    await writer.abort();
    return { ok: false, routes: this.table?.routes ?? [], errors, warnings: this.warnings, written: [] };
  }
}

/** Builds the whole site once. */
export async function buildSite(options: BuildOptions & { writer: SiteWriter }): Promise<BuildResult> {
  return new SiteBuilder(options).build(options.writer);
}

/** The Portuguese articles of each series, in route order. */
function seriesOf(articles: readonly Article[]): Map<string, { route: string; title: string }[]> {
  const series = new Map<string, { route: string; title: string }[]>();
  for (const a of articles) {
    if (!a.meta.series || a.lang !== "pt") continue;
    const list = series.get(a.meta.series) ?? [];
    list.push({ route: a.route, title: a.meta.title });
    series.set(a.meta.series, list);
  }
  for (const list of series.values()) list.sort((a, b) => byCodePoint(a.route, b.route));
  return series;
}

/** Every /route and #anchor in Markdown must exist on the built site. */
function checkInternalLinks(
  content: SiteContent,
  byPath: Map<string, Route>,
  markdown: Map<string, MarkdownEntry>,
  withLinks: readonly MarkdownEntry[],
): ContentError[] {
  // Anchors of a route, gathered only for the routes a link points into with a #fragment:
  // watch mode runs this check after every save, and a site may have thousands of routes.
  const idsOf = new Map<string, Set<string>>();
  const anchorsOf = (routePath: string): Set<string> | undefined => {
    let ids = idsOf.get(routePath);
    if (ids) return ids;
    const route = byPath.get(routePath);
    if (route?.kind !== "article") return undefined;
    for (const article of [route.article.pt, route.article.en]) {
      const entry = article && markdown.get(article.file);
      if (!entry) continue;
      entry.ids ??= new Set([...LAYOUT_IDS, ...entry.result.headings.map((h) => h.id)]);
      ids = ids ? new Set([...ids, ...entry.ids]) : entry.ids;
    }
    if (ids) idsOf.set(routePath, ids);
    return ids;
  };
  const sourceOf = (file: string) => content.articles.find((a) => a.file === file)?.source;
  const errors: ContentError[] = [];
  const links: InternalLink[] = withLinks.flatMap((entry) => entry.result.links);
  for (const link of links) {
    const [pathPart = "", anchor] = link.url.split("#", 2);
    const routePath = pathPart.length > 1 ? pathPart.replace(/\/+$/, "") : pathPart;
    const route = byPath.get(routePath);
    const where = () => ({ file: link.file, line: link.line, column: link.column, source: sourceOf(link.file) });
    if (!route || route.kind === "not-found") {
      errors.push(
        new ContentError({
          ...where(),
          message: `broken link: no page has the route ${routePath}`,
          hint: content.draftRoutes.has(routePath)
            ? `${routePath} is a draft: publish it (remove \`draft: true\`) or remove the link`
            : "link to an existing route (the file path under content/articles without .md), or fix the typo",
        }),
      );
    } else if (anchor) {
      const decoded = decodeURIComponent(anchor);
      const target = route.kind === "home" ? route.featured.pt.route : routePath;
      if (!anchorsOf(target)?.has(decoded)) {
        errors.push(
          new ContentError({
            ...where(),
            message: `broken link: ${routePath} has no heading with the anchor #${decoded}`,
            hint: `anchors are the headings' ids: ${[...(anchorsOf(target) ?? [])].slice(0, 6).map((id) => `#${id}`).join(", ")}…`,
          }),
        );
      }
    }
  }
  return errors;
}

/**
 * Stand-ins for a build's asset values, and how to put the real ones in a page rendered with
 * them: the same bytes React would have written (attributes escaped as React escapes them,
 * the boot script as it is). The stand-ins carry a random mark, so no content can hold one.
 */
class ProvisionalAssets {
  private readonly mark = randomBytes(6).toString("hex");
  private readonly manifest: AssetManifest = {
    css: this.token("css"),
    js: this.token("js"),
    brandFont: this.token("brandFont"),
    bootScript: this.token("bootScript"),
  };
  private readonly csp = this.token("csp");
  private cached?: Omit<PageContext, "route">;

  private token(name: string): string {
    return `cafe-asset-${name}-${this.mark}`;
  }

  base(make: (manifest: AssetManifest, csp: string) => Omit<PageContext, "route">): Omit<PageContext, "route"> {
    return (this.cached ??= make(this.manifest, this.csp));
  }

  filler(manifest: AssetManifest, csp: string): (html: string) => string {
    const values = new Map<string, string>([
      [this.manifest.css, escapeAttribute(manifest.css)],
      [this.manifest.js, escapeAttribute(manifest.js)],
      [this.manifest.brandFont, escapeAttribute(manifest.brandFont)],
      [this.manifest.bootScript, manifest.bootScript],
      [this.csp, escapeAttribute(csp)],
    ]);
    const pattern = new RegExp(`cafe-asset-[A-Za-z]+-${this.mark}`, "g");
    return (html) => html.replace(pattern, (token) => values.get(token) ?? token);
  }
}

/** Escapes text for an HTML attribute exactly as React's server renderer does. */
function escapeAttribute(text: string): string {
  return text.replace(/["'&<>]/g, (c) => ({ '"': "&quot;", "'": "&#x27;", "&": "&amp;", "<": "&lt;", ">": "&gt;" })[c]!);
}
