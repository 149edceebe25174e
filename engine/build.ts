/**
 * The orchestrator. A build runs these stages in this order, each a function below:
 *
 *   load → routes → Markdown + checks → stop on any error → assets → render → write
 *
 * Each stage asks the cache first (cache.ts): an article whose text did not change is not
 * parsed again, a body whose text and data did not change is not rendered again, and a page
 * none of whose dependencies changed (dependencies.ts) is taken from the previous output.
 * `SiteBuilder` keeps what it built, so watch mode runs the same stages again after an edit
 * (`update`): the same dependencies decide what is rendered. Content errors are collected
 * across the stages and reported together; the site is committed only when there are none.
 */
import path from "node:path";
import { ContentError, type ContentWarning } from "./errors.js";
import { articleModel, loadArticleFile, loadContent, sourceHashOf, type Article, type SiteContent } from "./content.js";
import { articleOf, buildRoutes, byCodePoint, type Route, type RouteTable } from "./routes.js";
import { renderMarkdown, siteBlockData, type MarkdownResult } from "./markdown.js";
import { assetErrors, buildAssets } from "./assets.js";
import { renderPage } from "./render.js";
import { contentSecurityPolicy, siteFiles, SITE_FILES } from "./site-files.js";
import type { SiteWriter } from "./output.js";
import type { PageContext, Theme } from "./theme.js";
import { BuildCache, type AssetRecord, type PageEntry } from "./cache.js";
import { hashOf, isJsonSafe, seal, unseal } from "./hash.js";
import { DepValues, Recorder, recordedContent, type Deps } from "./dependencies.js";
import { DEFAULT_WIDTHS, ImageStage } from "./images.js";
import { SocialCards } from "./social-card.js";
import { listPublicFiles, publicFileErrors } from "./public-files.js";
import { buildRedirects } from "./aliases.js";
import { REDIRECT_FILES, redirectFiles } from "./redirect-files.js";
import { answeredRoutes, readPublishedRoutes, RECORD_FILE, RouteHistory, updatePublishedRoutes, vanishedRouteErrors, whereNow } from "./published-routes.js";
import { markdownLinkErrors, pageLinks, renderedLinkErrors, type LinkTargets } from "./link-check.js";

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
  /** The persistent cache (none: every stage does all its work). */
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
  /** Files written (or removed), relative to the site root. */
  written: string[];
  /** Pages rendered in this run (the others were unchanged and taken as they were). */
  rendered: number;
  /** Addresses added to the record of published addresses. */
  published?: string[];
}

/** One article's Markdown, with the text and the values it was rendered from. */
interface MarkdownEntry {
  sourceHash: string;
  deps: Deps;
  result: MarkdownResult;
}

export class SiteBuilder {
  private readonly cache: BuildCache;
  /** Every article's Markdown by file, while this builder lives (watch mode). */
  private readonly markdown = new Map<string, MarkdownEntry>();
  /** The content as last read, errors or not: watch mode's next edit starts from it. */
  private content?: SiteContent;
  /** Articles that no longer parse, by file: reported until fixed, their last good version kept. */
  private readonly parseErrors = new Map<string, ContentError[]>();
  /** What is on the writer now: each page with the dependencies it was rendered from, and the assets. */
  private written?: { pages: Record<string, PageEntry>; routes: Route[]; assets: AssetRecord; media: string[]; redirects: string[]; output?: string };
  /** What earlier builds read: where the page of a vanished address went. */
  private readonly history = new RouteHistory();
  /** The images articles show and the pages' social cards, kept across watch-mode runs. */
  private readonly images: ImageStage;
  private readonly cards: SocialCards;
  private readonly publicDir: string;

  constructor(readonly options: BuildOptions) {
    this.cache = options.cache ?? BuildCache.none();
    const { projectRoot, theme } = options;
    this.publicDir = options.publicDir ?? path.join(projectRoot, "public");
    this.images = new ImageStage(projectRoot, this.publicDir, { sizes: theme.images?.sizes ?? "100vw", widths: theme.images?.widths ?? DEFAULT_WIDTHS });
    this.cards = new SocialCards(projectRoot, theme);
  }

  /** Where the loader keeps parsed articles: the cache's, when there is one. */
  private get articleStore() {
    return this.cache.enabled ? this.cache.files : undefined;
  }

  /** Stage 1, then the rest: builds the whole site into `writer`; commits it only if there is no error. */
  async build(writer: SiteWriter): Promise<BuildResult> {
    const { theme } = this.options;
    this.parseErrors.clear();
    this.history.snapshot(this.cache.enabled ? this.cache.files : undefined);
    const loaded = await loadContent(this.options.contentDir, theme, { drafts: this.options.drafts, cache: this.articleStore });
    this.content = loaded.content;
    if (!loaded.content) return fail(writer, loaded.errors, loaded.warnings);
    const result = await this.buildFrom(loaded.content, loaded.warnings, writer);
    if (result.ok) await this.saveCache();
    return result;
  }

  /** Writes the persistent cache (a build does it when it succeeds; watch mode when it is idle). */
  saveCache(): Promise<void> {
    return this.cache.save();
  }

  /** Routes → Markdown + checks → stop on any error → assets → render → write, for loaded content. */
  private async buildFrom(content: SiteContent, loadWarnings: ContentWarning[], writer: SiteWriter, newAssets = false): Promise<BuildResult> {
    const { theme } = this.options;
    const table = buildRoutes(content, theme);
    const byFile = new Map(content.articles.map((a) => [a.file, a]));
    /** An article's body with its images in place (their names carry their bytes' hash). */
    const bodyOf = (article: Article) => {
      const result = this.markdown.get(article.file)?.result;
      return result ? this.images.fill(result.html, article, result.images) : "";
    };
    const values = new DepValues({
      content,
      table,
      sourceHashes: new Map(content.articles.map((a) => [a.file, sourceHashOf(a)])),
      bodyHash: (file) => {
        const article = byFile.get(file);
        return article ? hashOf(bodyOf(article)) : undefined;
      },
      listing: (name) => listingOf(content, theme, name),
      block: (name) => siteBlockData(content, theme, name),
      other: {
        card: (routePath) => this.cards.byRoute.get(routePath),
        images: (file) => {
          const article = byFile.get(file);
          const result = this.markdown.get(file)?.result;
          return article && result ? result.images.map((image) => this.images.imageOf(article, image.url)) : undefined;
        },
        cover: (key) => {
          const [file, url] = key.split("\0") as [string, string];
          const article = byFile.get(file);
          return article ? this.images.imageOf(article, url) : undefined;
        },
      },
    });
    const markdown = this.markdownStage(content, values);
    const publicFiles = listPublicFiles(this.publicDir);
    // Old addresses (aliases, redirects), the record of published ones, and the link targets.
    const redirects = buildRedirects({ content, table, publicFiles, generated: [...SITE_FILES, ...REDIRECT_FILES] });
    const recordFile = this.options.publishedRoutes ?? path.join(this.options.contentDir, RECORD_FILE);
    const record = recordFile === false ? undefined : readPublishedRoutes(recordFile);
    const movedTo = whereNow(this.history.advance(content.articles), content.articles, record, table);
    const generated = new Set(SITE_FILES.map((f) => `/${f}`));
    const targets: LinkTargets = { content, table, redirects: redirects.byFrom, publicFiles, generated, movedTo };
    const answered = answeredRoutes(table, redirects.redirects);
    const errors = [
      ...[...this.parseErrors.values()].flat(),
      ...table.errors,
      ...[...markdown.values()].flatMap((m) => m.errors),
      ...(await checkSite(content, table, markdown, theme, targets)),
      ...redirects.errors,
      ...(record ? vanishedRouteErrors({ record, answered, content, table, movedTo: targets.movedTo }) : []),
      ...publicFileErrors(publicFiles, table, [...SITE_FILES, ...REDIRECT_FILES]),
      // Images are read and encoded here (or found in a cache): a bad one stops the build too.
      ...(await this.images.prepare(content, (article) => markdown.get(article.file)?.images ?? [])),
    ];
    const warnings = [...loadWarnings, ...[...markdown.values()].flatMap((m) => m.warnings)];
    if (errors.length > 0) return fail(writer, errors, warnings);

    let written: string[] = [];
    let assets: AssetRecord;
    try {
      let assetsWritten: string[];
      ({ assets, written: assetsWritten } = await this.assetStage(content, writer, newAssets));
      written = written.concat(assetsWritten);
    } catch (error) {
      const found = assetErrors(error, this.options.projectRoot);
      if (!found) throw error;
      return fail(writer, found, warnings);
    }
    const site = theme.siteMeta(content.site.value);
    await this.cards.build(table.routes, content, site.url);
    const csp = contentSecurityPolicy(assets.manifest.inlineScript ? [assets.manifest.inlineScript] : [], site.connect);
    values.setAssets(hashOf(JSON.stringify(assets.manifest), csp));

    let rendered = 0;
    try {
      // What the writer holds from the last build (watch mode) or the cache (a later build).
      const before = this.written && this.written.output === writer.output ? this.written.pages : this.cache.pagesIn(writer.reusable);
      const pages: Record<string, PageEntry> = {};
      const toRender: Route[] = [];
      for (const route of table.routes) {
        const entry = before[route.path];
        if (entry?.outFile === route.outFile && values.unchanged(entry.deps) && (await writer.reuse(route.outFile, entry.size))) pages[route.path] = entry;
        else toRender.push(route);
      }
      rendered = toRender.length;
      const files = renderPages(toRender, { content, table, assets, csp, bodyOf, theme, values, images: this.images, cards: this.cards }, pages);
      // concat, not push(...): a site of 100,000 pages is more arguments than a call can take.
      written = written.concat(await writeFiles(writer, files));
      // Every link of every page (rendered now or kept), and its #anchor, on the pages as written.
      for (const file of assets.files) generated.add(`/${file}`);
      const checked = table.routes.map((route) => ({ route, links: pages[route.path]?.links ?? [], ids: pages[route.path]?.ids ?? [], reads: Object.keys(pages[route.path]?.deps ?? {}) }));
      const linkErrors = renderedLinkErrors(checked, targets, markdown);
      if (linkErrors.length > 0) return fail(writer, linkErrors, warnings);
      written = written.concat(await writeFiles(writer, siteFiles(site, table.routes, csp, theme.summary, (route) => this.cards.byRoute.get(route.path))));
      const titleOf = (routePath: string) => {
        const route = table.byPath.get(routePath);
        return route?.kind === "article" ? route.article.main.meta.title : site.name;
      };
      const redirectOut = redirectFiles(redirects.redirects, { siteUrl: site.url, language: site.language, moved: site.moved, titleOf });
      written = written.concat(await writeFiles(writer, redirectOut));
      // Images and cards: content-hashed names, so one the last build wrote holds these bytes.
      const media = [...this.images.files, ...this.cards.files];
      const fresh: [string, Uint8Array][] = [];
      for (const [file, bytes] of media) if (!(await writer.reuse(file, bytes.length))) fresh.push([file, bytes]);
      written = written.concat(await writeFiles(writer, fresh));
      await writer.copyDir(this.publicDir);
      // Pages and assets that are gone (watch mode builds into the same folder).
      const gone = [
        ...(this.written?.routes ?? []).filter((r) => !table.byPath.has(r.path) && !redirectOut.has(r.outFile)).map((r) => r.outFile),
        ...(this.written?.redirects ?? []).filter((file) => !redirectOut.has(file) && !table.byPath.has(`/${file.replace(/\.html$/, "")}`)),
        ...(this.written?.assets.files ?? []).filter((file) => !assets.files.includes(file)),
        ...(this.written?.media ?? []).filter((file) => !media.some(([name]) => name === file)),
      ];
      for (const file of gone) {
        await writer.remove(file);
        written.push(file);
      }
      await writer.commit();
      this.written = { pages, routes: table.routes, assets, media: media.map(([file]) => file), redirects: [...redirectOut.keys()], output: writer.output };
    } catch (error) {
      await writer.abort();
      throw error;
    }
    this.cache.record(writer.output, this.written.pages, assets);
    // The addresses published for the first time join the record (never a build with drafts).
    const published = record && !this.options.drafts ? await updatePublishedRoutes(record, answered) : [];
    return { ok: true, routes: table.routes, errors: [], warnings, written: written.sort(byCodePoint), rendered, published };
  }

  /** Stage 3: every article's Markdown, rendered again only when its text or what it read changed. */
  private markdownStage(content: SiteContent, values: DepValues): Map<string, MarkdownResult> {
    const results = new Map<string, MarkdownResult>();
    const lean = !this.options.reference;
    for (const article of content.articles) {
      const sourceHash = sourceHashOf(article);
      let entry = this.markdown.get(article.file);
      if (entry?.sourceHash !== sourceHash || !values.unchanged(entry.deps)) {
        const cached = this.cache.files.get(article.file);
        const before = cached?.sourceHash === sourceHash ? unseal(cached.markdown) : undefined;
        if (before && values.unchanged(before.deps)) {
          const { deps, ...result } = before;
          entry = { sourceHash, deps, result: { ...result, reads: Object.keys(deps), errors: [] } };
        } else {
          const result = renderMarkdown(article, content, this.options.theme, { lean });
          const deps = Object.fromEntries(result.reads.map((id) => [id, values.hash(id)]));
          entry = { sourceHash, deps, result };
          const { html, headings, links, warnings, images } = result;
          if (this.cache.enabled && cached?.sourceHash === sourceHash && result.errors.length === 0 && isJsonSafe({ headings, links, warnings, images })) {
            cached.markdown = seal({ deps, html, headings, links, warnings, images });
          }
        }
        this.markdown.set(article.file, entry);
      }
      results.set(article.file, entry.result);
    }
    // Files no longer in the site are forgotten.
    for (const file of this.markdown.keys()) if (!results.has(file)) this.markdown.delete(file);
    return results;
  }

  /** The key of the assets besides the code (the cache's version): the text the fonts are cut to. */
  private assetKey(content: SiteContent): string {
    return hashOf(JSON.stringify((this.options.theme.assets.fonts ?? []).map((f) => [f.name, f.text(content.site.value) ?? null])));
  }

  /** Stage 5: the assets, taken from the last build when the code and the fonts' text are the same. */
  private async assetStage(content: SiteContent, writer: SiteWriter, newAssets: boolean): Promise<{ assets: AssetRecord; written: string[] }> {
    const key = this.assetKey(content);
    if (!newAssets) {
      const previous = this.written && this.written.output === writer.output ? this.written.assets : undefined;
      if (previous?.key === key) return { assets: previous, written: [] };
      const cached = this.cache.assets;
      if (cached?.key === key && cached.files.length > 0) {
        let all = true;
        for (const file of cached.files) all &&= await writer.reuse(file);
        if (all) return { assets: cached, written: [] };
      }
    }
    const { projectRoot, theme } = this.options;
    const built = await buildAssets({ projectRoot, theme, site: content.site.value });
    const written = await writeFiles(writer, built.files);
    return { assets: { key, manifest: built.manifest, files: [...built.files.keys()] }, written };
  }

  /**
   * Watch mode: after files changed (absolute paths), runs the stages again. Changed articles
   * are read again into the content built last time; any other content file reads the whole
   * content again; a change outside content/ (the stylesheet) builds the assets again. The
   * pages' dependencies decide which are rendered.
   */
  async update(changed: readonly string[], writer: SiteWriter): Promise<BuildResult> {
    if (!this.content) return this.build(writer);
    const { contentDir } = this.options;
    const inside = (dir: string, file: string) => !path.relative(dir, file).startsWith("..");
    const articlesDir = path.join(contentDir, "articles");
    const publicDir = this.publicDir;
    const written: string[] = [];
    for (const file of changed.filter((f) => inside(publicDir, f))) {
      const rel = path.relative(publicDir, file);
      if (!(await writer.copyFile(file, rel))) await writer.remove(rel);
      written.push(rel);
    }
    // A file of public/ an article shows as an image is processed again with the pages.
    const rest = changed.filter((f) => !inside(publicDir, f) || this.images.uses(f));
    if (rest.length === 0 && this.written) return { ok: true, routes: this.written.routes, errors: [], warnings: [], written, rendered: 0 };
    let result: BuildResult;
    if (!rest.some((f) => inside(contentDir, f))) {
      result = await this.buildFrom(this.content, [], writer, true);
    } else if (!rest.every((f) => inside(articlesDir, f) && f.endsWith(".md"))) {
      result = await this.build(writer);
    } else {
      result = await this.buildFrom(this.reloadArticles(rest, articlesDir), [], writer);
    }
    return { ...result, written: [...written, ...result.written].sort(byCodePoint) };
  }

  /** The last content with the given article files read again (added, edited or deleted). */
  private reloadArticles(files: readonly string[], articlesDir: string): SiteContent {
    const content = this.content!;
    const model = articleModel(this.options.theme);
    const articles = new Map(content.articles.map((a) => [a.file, a]));
    const draftRoutes = new Set(content.draftRoutes);
    for (const file of files) {
      const shown = path.relative(process.cwd(), file) || file;
      const loaded = loadArticleFile(articlesDir, file, model, undefined, this.articleStore);
      if (loaded && "errors" in loaded) {
        this.parseErrors.set(shown, loaded.errors);
        continue;
      }
      this.parseErrors.delete(shown);
      const old = articles.get(shown);
      if (old) draftRoutes.delete(old.route);
      const article = loaded?.article;
      if (article && (this.options.drafts || !article.meta.draft)) articles.set(shown, article);
      else articles.delete(shown);
      if (article?.meta.draft && !this.options.drafts) draftRoutes.add(article.route);
    }
    this.content = { ...content, draftRoutes, articles: [...articles.values()].sort((a, b) => byCodePoint(a.file, b.file)) };
    return this.content;
  }
}

/** Builds the whole site once. */
export async function buildSite(options: BuildOptions & { writer: SiteWriter }): Promise<BuildResult> {
  return new SiteBuilder(options).build(options.writer);
}

async function fail(writer: SiteWriter, errors: ContentError[], warnings: ContentWarning[]): Promise<BuildResult> {
  await writer.abort();
  return { ok: false, routes: [], errors, warnings, written: [], rendered: 0 };
}

const listings = new WeakMap<SiteContent, Map<string, unknown>>();

/** A theme's listing, computed once per version of the content. */
function listingOf(content: SiteContent, theme: Theme, name: string): unknown {
  let byName = listings.get(content);
  if (!byName) listings.set(content, (byName = new Map()));
  if (!byName.has(name)) {
    const compute = theme.listings?.[name];
    if (!compute) throw new Error(`the theme has no listing '${name}' (Theme.listings)`);
    byName.set(name, compute(content));
  }
  return byName.get(name);
}

/** Stage 4: checks that need the whole site: the routes of Markdown links (anchors: once rendered), then the theme's own. */
async function checkSite(content: SiteContent, table: RouteTable, markdown: Map<string, MarkdownResult>, theme: Theme, targets: LinkTargets): Promise<ContentError[]> {
  const errors = markdownLinkErrors(content, markdown, targets);
  errors.push(...((await theme.check?.(content, table)) ?? []));
  return errors;
}

interface RenderInput {
  content: SiteContent;
  table: RouteTable;
  assets: AssetRecord;
  csp: string;
  bodyOf: (article: Article) => string;
  theme: Theme;
  values: DepValues;
  images: ImageStage;
  cards: SocialCards;
}

/**
 * Stage 6: each route's page, one at a time, through a context that records what the
 * template reads: `pages` gets each page's dependencies.
 */
function* renderPages(routes: readonly Route[], input: RenderInput, pages: Record<string, PageEntry>): Generator<[string, string]> {
  const { content, table, assets, csp, bodyOf, theme, values, images, cards } = input;
  for (const route of routes) {
    const recorder = new Recorder(values);
    const read = recorder.read;
    read(`route:${route.path}`);
    const ctx: PageContext = {
      get site() {
        read("site");
        return content.site.value;
      },
      content: recordedContent(content, read),
      get routes() {
        read("routes");
        return table;
      },
      route,
      get csp() {
        read("assets");
        return csp;
      },
      get assets() {
        read("assets");
        return assets.manifest;
      },
      bodyOf: (article: Article) => {
        read(`body:${article.file}`);
        return bodyOf(article);
      },
      imageOf: (article: Article, url: string) => {
        read(`cover:${article.file}\0${url}`);
        return images.imageOf(article, url);
      },
      get socialCard() {
        read(`card:${route.path}`);
        return cards.byRoute.get(route.path);
      },
      listing: <T,>(name: string) => {
        read(`listing:${name}`);
        return listingOf(content, theme, name) as T;
      },
    };
    const html = renderPage(route, ctx, theme);
    pages[route.path] = { outFile: route.outFile, deps: recorder.deps, size: Buffer.byteLength(html), ...pageLinks(html) };
    yield [route.outFile, html];
  }
}

/**
 * Stage 7: hands files to the writer, a few dozen at a time (rendering is CPU work, writing
 * is I/O: the next page renders while the last ones are written). Returns the files whose
 * bytes changed.
 */
async function writeFiles(writer: SiteWriter, files: Iterable<[string, string | Uint8Array]>): Promise<string[]> {
  const written: string[] = [];
  const inFlight: Promise<void>[] = [];
  for (const [file, data] of files) {
    inFlight.push(writer.write(file, data).then((changed) => void (changed && written.push(file))));
    if (inFlight.length >= 64) await inFlight.shift();
  }
  await Promise.all(inFlight);
  return written;
}
