/**
 * The orchestrator. A build runs these stages in this order, each a function of its own
 * module that takes what it needs and returns what it made:
 *
 *   load → routes (and old addresses) → Markdown → checks → images → cards → assets → render → write
 *
 * Content errors are collected across the stages up to the images and reported together;
 * the site is written only when there are none. Each stage asks the cache (cache.ts) first:
 * an article whose text did not change is not parsed again, a body whose text and data did
 * not change is not rendered again, and a page none of whose dependencies changed
 * (dependencies.ts) is taken from the last build. `SiteBuilder` keeps the last run, so watch
 * mode's `update` decides what to read again and runs the same stages.
 */
import path from "node:path";
import { articleModel, displayPath, loadArticleFile, loadContent, type FailedArticle, type SiteContent } from "../stages/load/content.js";
import type { ContentError, ContentWarning } from "../lib/errors.js";
import { buildRoutes, byCodePoint, type Route } from "../stages/routes/routes.js";
import { addressStage } from "../stages/routes/addresses.js";
import { RouteHistory, updatePublishedRoutes } from "../stages/routes/published-routes.js";
import { renderedLinkErrors, type CheckedPage, type LinkTargets } from "../stages/checks/rendered-links.js";
import { markdownStage, type MarkdownBodies } from "../stages/markdown/markdown-stage.js";
import { siteBlockData } from "../stages/markdown/article-markdown.js";
import { checkStage } from "../stages/checks/checks.js";
import { DEFAULT_WIDTHS, ImageStage } from "../stages/images/images.js";
import { SocialCards } from "../stages/cards/cards.js";
import { assetStage } from "../stages/assets/assets.js";
import { renderStage } from "../stages/render/render.js";
import { writeStage } from "../stages/write/write.js";
import { BuildCache, type PageEntry } from "../incremental/build-cache.js";
import { DepValues } from "../incremental/dependencies.js";
import type { SiteWriter } from "../stages/write/writers.js";
import type { Theme } from "../theme.js";

export interface BuildOptions {
  contentDir: string;
  projectRoot: string;
  theme: Theme;
  /** Build `draft: true` articles too (dev mode). */
  drafts?: boolean;
  /** Files copied into the site as they are; `public/` of the project unless told otherwise. */
  publicDir?: string;
  /** The full Markdown pipeline for every file: the reference the lean pipeline must equal (tests). */
  reference?: boolean;
  /** The persistent cache (none: every stage does all its work, and the last build is kept in memory). */
  cache?: BuildCache;
  /**
   * The record of published addresses (published-routes.ts): `<contentDir>/published-routes.txt`
   * unless told otherwise; false: none. A build without drafts adds its new addresses to it.
   */
  publishedRoutes?: string | false;
}

export interface BuildResult {
  ok: boolean;
  routes: Route[];
  errors: ContentError[];
  warnings: ContentWarning[];
  /** Files written or removed, relative to the site root. */
  changed: string[];
  /** Pages rendered in this run (the others were unchanged and taken as they were). */
  rendered: number;
  /** How long each stage took, in milliseconds, in order (`--verbose` prints them). */
  timings?: [stage: string, ms: number][];
  /** Addresses added to the record of published addresses. */
  published?: string[];
}

/** What the load stage gives the others: the content, and the articles that did not load. */
interface Loaded {
  content?: SiteContent;
  errors: ContentError[];
  failed: Map<string, FailedArticle>;
  warnings: ContentWarning[];
}

export class SiteBuilder {
  private readonly cache: BuildCache;
  private readonly publicDir: string;
  /** Images and social cards keep what they encoded or drew across watch-mode runs. */
  private readonly images: ImageStage;
  private readonly cards: SocialCards;
  /** The last run's content and Markdown: watch mode's next edit starts from them. */
  private last: { loaded?: Loaded; markdown: MarkdownBodies; routes?: Route[] } = { markdown: new Map() };
  /** What earlier builds read: where the page of a vanished address went. */
  private readonly history = new RouteHistory();

  constructor(readonly options: BuildOptions) {
    const { projectRoot, theme } = options;
    this.cache = options.cache ?? BuildCache.none();
    this.publicDir = options.publicDir ?? path.join(projectRoot, "public");
    this.images = new ImageStage(projectRoot, this.publicDir, { sizes: theme.images?.sizes ?? "100vw", widths: theme.images?.widths ?? DEFAULT_WIDTHS });
    this.cards = new SocialCards(projectRoot, theme);
  }

  /** Builds the whole site into `writer`, reading the whole content folder; saves the cache when it succeeds. */
  async build(writer: SiteWriter): Promise<BuildResult> {
    const result = await this.run(() => this.loadAll(), writer);
    if (result.ok) await this.saveCache();
    return result;
  }

  /** The stages, in order. `load` reads the whole content folder, or (watch mode) what changed. */
  private async run(load: () => Promise<Loaded> | Loaded, writer: SiteWriter, { newAssets = false } = {}): Promise<BuildResult> {
    const { theme, projectRoot, reference } = this.options;
    const lap = stopwatch();
    const loaded = (this.last.loaded = lap("load", await load()));
    const { content } = loaded;
    if (!content) return fail(writer, loaded.errors, loaded.warnings);
    const table = lap("routes", buildRoutes(content, theme, new Set([...loaded.failed.values()].map((f) => f.route))));
    const { contentDir, publishedRoutes: recordFile } = this.options;
    const addresses = lap("addresses", addressStage({ content, table, contentDir, publicDir: this.publicDir, recordFile, history: this.history }));
    const values = new DepValues({ content, table, block: (name) => siteBlockData(content, theme, name) });
    const markdown = (this.last.markdown = lap("Markdown", markdownStage({ content, theme, values, previous: this.last.markdown, cache: this.cache, reference })));
    const checks = lap("checks", await checkStage({ content, table, markdown, theme, targets: addresses.targets }));
    const images = lap("images", await this.images.prepare(content, (article) => markdown.get(article.file)?.result.images ?? []));
    const bodies = [...markdown.values()].map((m) => m.result);
    const errors = [...loaded.errors, ...table.errors, ...addresses.errors, ...bodies.flatMap((b) => b.errors), ...checks, ...images.errors];
    const warnings = [...loaded.warnings, ...bodies.flatMap((b) => b.warnings)];
    if (errors.length > 0) return fail(writer, errors, warnings);
    const previous = this.cache.lastBuildFor(writer);
    const reuse = (file: string, size?: number) => writer.reuse(file, size);
    // Cards and assets at once: esbuild bundles in its own process while the cards are drawn here.
    const [cards, assets] = lap("cards + assets", await Promise.all([
      this.cards.build(table.routes, content, theme.siteMeta(content.site.value).url),
      assetStage({ projectRoot, theme, site: content.site.value, previous: previous.assets, force: newAssets, reuse }),
    ]));
    if ("errors" in assets) return fail(writer, assets.errors, warnings);
    const { redirects } = addresses.redirects;
    const pages = await renderStage({ content, table, theme, markdown, images: images.images, cards, assets: assets.record, redirects, previous: previous.pages, reuse });
    const media = new Map([...images.images.files, ...cards.files]);
    const next = { output: writer.output, pages: pages.pages, assets: assets.record, media: [...media.keys()], redirects: pages.redirectFiles };
    const verify = () => renderedLinkErrors(checkedPages(table.routes, pages.pages), withFiles(addresses.targets, assets.record.files), markdown);
    // Pages are rendered as the writer takes them: the two stages are timed together.
    const written = lap("render + write", await writeStage(writer, { assets: assets.files, pages: pages.files, media, publicDir: this.publicDir, previous, next, verify }));
    if ("errors" in written) return fail(writer, written.errors, warnings);
    this.cache.record(next);
    this.last.routes = table.routes;
    // The addresses published for the first time join the record (never from a build with drafts).
    const published = addresses.record && !this.options.drafts ? await updatePublishedRoutes(addresses.record, addresses.answered) : [];
    return { ok: true, routes: table.routes, errors: [], warnings, changed: written.changed.sort(byCodePoint), rendered: pages.rendered, timings: lap.laps, published };
  }

  /** Where the loader keeps parsed articles: the cache's, when there is one. */
  private get articleStore() {
    return this.cache.enabled ? this.cache.files : undefined;
  }

  /** Load: the whole content folder. */
  private loadAll(): Promise<Loaded> {
    const { contentDir, theme, drafts, projectRoot } = this.options;
    // Where each article was before this build reads any file (the hint of a vanished address).
    this.history.snapshot(this.articleStore);
    return loadContent(contentDir, theme, { drafts, projectRoot, cache: this.articleStore });
  }

  /** Writes the persistent cache (a build does it when it succeeds; watch mode when it is idle). */
  saveCache(): Promise<void> {
    return this.cache.save();
  }

  /**
   * Watch mode: after files changed (absolute paths), runs the stages again. Changed articles
   * are read again into the content of the last run; any other content file reads the whole
   * content again; a change outside content/ (the stylesheet) bundles the assets again; a
   * file of public/ is copied (or removed) on its own, unless an article shows it as an image.
   * The pages' dependencies decide which are rendered.
   */
  async update(changed: readonly string[], writer: SiteWriter): Promise<BuildResult> {
    const before = this.last.loaded;
    if (!before?.content) return this.build(writer);
    const { contentDir } = this.options;
    const inside = (dir: string, file: string) => !path.relative(dir, file).startsWith("..");
    const articlesDir = path.join(contentDir, "articles");
    const copied: string[] = [];
    for (const file of changed.filter((f) => inside(this.publicDir, f))) {
      const rel = path.relative(this.publicDir, file);
      if (!(await writer.copyFile(file, rel))) await writer.remove(rel);
      copied.push(rel);
    }
    const rest = changed.filter((f) => !inside(this.publicDir, f) || this.images.uses(f));
    let result: BuildResult;
    if (rest.length === 0 && this.last.routes) {
      result = { ok: true, routes: this.last.routes, errors: [], warnings: [], changed: [], rendered: 0 };
    } else if (!rest.some((f) => inside(contentDir, f))) {
      result = await this.run(() => ({ ...before, warnings: [] }), writer, { newAssets: true });
    } else if (!rest.every((f) => inside(articlesDir, f) && f.endsWith(".md"))) {
      result = await this.build(writer);
    } else {
      result = await this.run(() => this.reloadArticles(before, rest, articlesDir), writer);
    }
    return { ...result, changed: [...copied, ...result.changed].sort(byCodePoint) };
  }

  /** Load, for watch mode: the last content with the given article files read again (added, edited or deleted). */
  private reloadArticles(before: Loaded, files: readonly string[], articlesDir: string): Loaded {
    const content = before.content!;
    const { theme, drafts, projectRoot } = this.options;
    const model = articleModel(theme);
    const display = displayPath(projectRoot);
    const articles = new Map(content.articles.map((a) => [a.file, a]));
    const failed = new Map(before.failed);
    const draftRoutes = new Set(content.draftRoutes);
    for (const file of files) {
      const shown = display(file);
      const loaded = loadArticleFile(articlesDir, file, model, display, this.articleStore);
      failed.delete(shown);
      if (loaded && "errors" in loaded) {
        // Its last good version stays in the site until it is fixed: its route, else its path's.
        failed.set(shown, { route: articles.get(shown)?.route ?? loaded.route, errors: loaded.errors });
        continue;
      }
      const old = articles.get(shown);
      if (old) draftRoutes.delete(old.route);
      const article = loaded?.article;
      if (article && (drafts || !article.meta.draft)) articles.set(shown, article);
      else articles.delete(shown);
      if (article?.meta.draft && !drafts) draftRoutes.add(article.route);
    }
    const next = { ...content, draftRoutes, articles: [...articles.values()].sort((a, b) => byCodePoint(a.file, b.file)) };
    return { content: next, failed, errors: [...failed.values()].flatMap((f) => f.errors), warnings: [] };
  }
}

/** Builds the whole site once. */
export async function buildSite(options: BuildOptions & { writer: SiteWriter }): Promise<BuildResult> {
  return new SiteBuilder(options).build(options.writer);
}

async function fail(writer: SiteWriter, errors: ContentError[], warnings: ContentWarning[]): Promise<BuildResult> {
  await writer.abort();
  return { ok: false, routes: [], errors, warnings, changed: [], rendered: 0 };
}

/** Every page as the rendered-link check sees it: its links, ids and what it read. */
function checkedPages(routes: readonly Route[], pages: Record<string, PageEntry>): CheckedPage[] {
  return routes.map((route) => {
    const entry = pages[route.path];
    return { route, links: entry?.links ?? [], ids: entry?.ids ?? [], reads: Object.keys(entry?.deps ?? {}) };
  });
}

/** Link targets with the assets' files too (a page may link to a stylesheet or a font). */
function withFiles(targets: LinkTargets, files: readonly string[]): LinkTargets {
  return { ...targets, generated: new Set([...targets.generated, ...files.map((file) => `/${file}`)]) };
}

/** Times stages one after another: `lap(name, value)` notes the time since the last lap and gives the value back. */
function stopwatch() {
  let last = performance.now();
  const laps: [string, number][] = [];
  const lap = <T,>(stage: string, value: T): T => {
    const now = performance.now();
    laps.push([stage, Math.round((now - last) * 10) / 10]);
    last = now;
    return value;
  };
  return Object.assign(lap, { laps });
}
