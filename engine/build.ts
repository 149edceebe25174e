/**
 * The orchestrator. A build runs these stages in this order, each a function below:
 *
 *   load → routes → Markdown + checks → stop on any error → assets → render → write
 *
 * `SiteBuilder` keeps what it built, so watch mode runs the same stages again over what an
 * edit changed (`update`) instead of a second build. Content errors are collected across the
 * stages and reported together; the site is committed only when there are none.
 */
import path from "node:path";
import { ContentError, type ContentWarning } from "./errors.js";
import { articleModel, loadArticleFile, loadContent, type Article, type SiteContent } from "./content.js";
import { articleOf, buildRoutes, byCodePoint, type Route, type RouteTable } from "./routes.js";
import { renderMarkdown, type MarkdownResult } from "./markdown.js";
import { buildAssets, type BuiltAssets } from "./assets.js";
import { renderPage } from "./render.js";
import { contentSecurityPolicy, siteFiles, SITE_FILES } from "./site-files.js";
import type { SiteWriter } from "./output.js";
import type { PageContext, Theme } from "./theme.js";
import { DEFAULT_WIDTHS, ImageStage } from "./images.js";
import { SocialCards } from "./social-card.js";
import { isPublicFile, listPublicFiles, publicFileErrors } from "./public-files.js";

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
}

export interface BuildResult {
  ok: boolean;
  routes: Route[];
  errors: ContentError[];
  warnings: ContentWarning[];
  /** Files written (or removed), relative to the site root. */
  written: string[];
}

/** One article's Markdown, kept with the text it was rendered from. */
interface MarkdownEntry {
  source: string;
  result: MarkdownResult;
}

/** What the last successful run of the stages wrote. */
interface Built {
  table: RouteTable;
  assets: BuiltAssets;
  /** Processed images and social cards: path → bytes. */
  media: Map<string, Uint8Array>;
}

export class SiteBuilder {
  /** Every article's Markdown by file, rendered once per version of its text. */
  private readonly markdown = new Map<string, MarkdownEntry>();
  /** The content as last read, errors or not: watch mode's next edit starts from it. */
  private content?: SiteContent;
  /** Articles that no longer parse, by file: reported until fixed, their last good version kept. */
  private readonly parseErrors = new Map<string, ContentError[]>();
  private built?: Built;
  /** A run failed since `built` was written: edits made meanwhile are not on the writer yet. */
  private stale = false;
  /** The images articles show and the pages' social cards, kept across watch-mode runs. */
  private readonly images: ImageStage;
  private readonly cards: SocialCards;
  private readonly publicDir: string;

  constructor(readonly options: BuildOptions) {
    const { projectRoot, theme } = options;
    this.publicDir = options.publicDir ?? path.join(projectRoot, "public");
    this.images = new ImageStage(projectRoot, this.publicDir, { sizes: theme.images?.sizes ?? "100vw", widths: theme.images?.widths ?? DEFAULT_WIDTHS });
    this.cards = new SocialCards(projectRoot, theme);
  }

  /** Builds the whole site into `writer`; commits it only if there is no error. */
  async build(writer: SiteWriter): Promise<BuildResult> {
    const { theme } = this.options;
    // Settings and data files feed the blocks of any article: render every one again.
    this.markdown.clear();
    this.parseErrors.clear();
    const loaded = await loadContent(this.options.contentDir, theme, { drafts: this.options.drafts });
    this.content = loaded.content;
    if (!loaded.content) return fail(writer, loaded.errors, loaded.warnings);
    return this.buildFrom(loaded.content, loaded.warnings, writer);
  }

  /** Routes → Markdown + checks → stop on any error → assets → render → write, for loaded content. */
  private async buildFrom(content: SiteContent, loadWarnings: ContentWarning[], writer: SiteWriter, only?: (route: Route) => boolean): Promise<BuildResult> {
    const { theme, projectRoot } = this.options;
    const table = buildRoutes(content, theme);
    const markdown = this.markdownStage(content);
    const publicFiles = listPublicFiles(this.publicDir);
    const errors = [
      ...[...this.parseErrors.values()].flat(),
      ...table.errors,
      ...[...markdown.values()].flatMap((m) => m.errors),
      ...(await checkSite(content, table, markdown, theme, publicFiles)),
      ...publicFileErrors(publicFiles, table, SITE_FILES),
      // Images are read and encoded here (or found in the cache): a bad one stops the build too.
      ...(await this.images.prepare(content, (article) => markdown.get(article.file)?.images ?? [])),
    ];
    const warnings = [...loadWarnings, ...[...markdown.values()].flatMap((m) => m.warnings)];
    if (errors.length > 0) {
      // What changed meanwhile was not written: the next run writes every page.
      this.stale = true;
      return fail(writer, errors, warnings);
    }

    const previous = this.built;
    const [assets] = await Promise.all([
      previous && only ? previous.assets : buildAssets({ projectRoot, theme, site: content.site.value }),
      this.cards.build(table.routes, content, theme.siteMeta(content.site.value).url),
    ]);
    const media = new Map([...this.images.files, ...this.cards.files]);
    const routes = only ? table.routes.filter(only) : table.routes;
    const written: string[] = [];
    try {
      const pages = renderPages(routes, { content, table, assets, markdown, theme, images: this.images, cards: this.cards });
      written.push(...(await writeFiles(writer, pages)));
      if (!only) {
        await writer.copyDir(this.publicDir);
        written.push(...(await writeFiles(writer, assets.files)));
      }
      // Content-hashed: a name written before holds the same bytes.
      written.push(...(await writeFiles(writer, only ? [...media].filter(([file]) => !previous?.media.has(file)) : media)));
      // Pages and assets that are gone (watch mode builds into the same folder).
      const gone = [
        ...(previous?.table.routes ?? []).filter((r) => !table.byPath.has(r.path)).map((r) => r.outFile),
        ...[...(previous?.assets.files.keys() ?? [])].filter((file) => !assets.files.has(file)),
        ...[...(previous?.media.keys() ?? [])].filter((file) => !media.has(file)),
      ];
      for (const file of gone) {
        await writer.remove(file);
        written.push(file);
      }
      await writer.commit();
    } catch (error) {
      await writer.abort();
      throw error;
    }
    this.built = { table, assets, media };
    this.stale = false;
    return { ok: true, routes: table.routes, errors: [], warnings, written: written.sort(byCodePoint) };
  }

  /** Stage 3: every article's Markdown, rendered once per version of its text. */
  private markdownStage(content: SiteContent): Map<string, MarkdownResult> {
    const results = new Map<string, MarkdownResult>();
    const lean = !this.options.reference;
    for (const article of content.articles) {
      let entry = this.markdown.get(article.file);
      if (entry?.source !== article.source) {
        entry = { source: article.source, result: renderMarkdown(article, content, this.options.theme, { lean }) };
        this.markdown.set(article.file, entry);
      }
      results.set(article.file, entry.result);
    }
    // Files no longer in the site are forgotten.
    for (const file of this.markdown.keys()) if (!results.has(file)) this.markdown.delete(file);
    return results;
  }

  /**
   * Watch mode: after files changed (absolute paths), runs the stages again and writes what
   * changed. An edit to an article's body re-renders the pages that show that article; any
   * other change (front matter, settings, data, CSS) renders every page again, with the
   * Markdown of unchanged articles reused and unchanged files left alone by the writer.
   */
  async update(changed: readonly string[], writer: SiteWriter): Promise<BuildResult> {
    if (!this.content) return this.build(writer);
    const { contentDir, theme } = this.options;
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
    if (rest.length === 0 && this.built && !this.stale) return { ok: true, routes: this.built.table.routes, errors: [], warnings: [], written };
    if (!rest.some((f) => inside(contentDir, f))) {
      // The theme's stylesheet or assets: the same content on every page, with new assets.
      const result = await this.buildFrom(this.content, [], writer);
      return { ...result, written: [...written, ...result.written].sort(byCodePoint) };
    }
    if (!rest.every((f) => inside(articlesDir, f) && f.endsWith(".md"))) {
      const result = await this.build(writer);
      return { ...result, written: [...written, ...result.written].sort(byCodePoint) };
    }

    // Only articles changed: read them again into the content built last time.
    const model = articleModel(theme);
    const articles = new Map(this.content.articles.map((a) => [a.file, a]));
    /** Routes whose article changed in its body alone; any front-matter change renders every page. */
    const bodyOnly = new Set<string>();
    let everyPage = false;
    for (const file of rest) {
      const shown = path.relative(process.cwd(), file) || file;
      const old = articles.get(shown);
      const loaded = loadArticleFile(articlesDir, file, model);
      if (loaded && "errors" in loaded) {
        this.parseErrors.set(shown, loaded.errors);
        continue;
      }
      this.parseErrors.delete(shown);
      const article = loaded && (this.options.drafts || !loaded.article.meta.draft) ? loaded.article : undefined;
      if (article) articles.set(shown, article);
      else articles.delete(shown);
      if (old && article && JSON.stringify(old.frontMatter) === JSON.stringify(article.frontMatter)) bodyOnly.add(article.route);
      else everyPage = true;
    }
    const content: SiteContent = { ...this.content, articles: [...articles.values()].sort((a, b) => byCodePoint(a.file, b.file)) };
    this.content = content;
    // Front matter can change titles, routes and listings anywhere: render every page.
    const only =
      everyPage || !this.built || this.stale
        ? undefined
        : (route: Route) => {
            const article = articleOf(route);
            return article !== undefined && bodyOnly.has(article.main.route);
          };
    const result = await this.buildFrom(content, [], writer, only);
    return { ...result, written: [...written, ...result.written].sort(byCodePoint) };
  }
}

/** Builds the whole site once. */
export async function buildSite(options: BuildOptions & { writer: SiteWriter }): Promise<BuildResult> {
  return new SiteBuilder(options).build(options.writer);
}

async function fail(writer: SiteWriter, errors: ContentError[], warnings: ContentWarning[]): Promise<BuildResult> {
  await writer.abort();
  return { ok: false, routes: [], errors, warnings, written: [] };
}

/** Stage 4: checks that need the whole site: internal links and anchors, then the theme's own. */
async function checkSite(
  content: SiteContent,
  table: RouteTable,
  markdown: Map<string, MarkdownResult>,
  theme: Theme,
  publicFiles: ReadonlySet<string>,
): Promise<ContentError[]> {
  const errors = checkInternalLinks(content, table, markdown, theme.pageAnchors ?? [], publicFiles);
  errors.push(...((await theme.check?.(content, table)) ?? []));
  return errors;
}

interface RenderInput {
  content: SiteContent;
  table: RouteTable;
  assets: BuiltAssets;
  markdown: Map<string, MarkdownResult>;
  theme: Theme;
  images: ImageStage;
  cards: SocialCards;
}

/** Stage 6: each route's page, then the feed, sitemap, robots.txt and headers; one at a time. */
function* renderPages(routes: readonly Route[], { content, table, assets, markdown, theme, images, cards }: RenderInput): Generator<[string, string]> {
  const site = theme.siteMeta(content.site.value);
  const csp = contentSecurityPolicy(assets.manifest.inlineScript ? [assets.manifest.inlineScript] : [], site.connect);
  const base: Omit<PageContext, "route"> = {
    site: content.site.value,
    content,
    routes: table,
    csp,
    assets: assets.manifest,
    bodyOf: (article: Article) => {
      const result = markdown.get(article.file);
      return result ? images.fill(result.html, article, result.images) : "";
    },
    imageOf: (article, url) => images.imageOf(article, url),
  };
  for (const route of routes) {
    const socialCard = cards.byRoute.get(route.path);
    yield [route.outFile, renderPage(route, socialCard ? { ...base, socialCard } : base, theme)];
  }
  yield* siteFiles(site, table.routes, csp, theme.summary, (route) => cards.byRoute.get(route.path));
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

/** Every /route and #anchor in Markdown must exist on the built site. */
function checkInternalLinks(
  content: SiteContent,
  table: RouteTable,
  markdown: Map<string, MarkdownResult>,
  pageAnchors: readonly string[],
  publicFiles: ReadonlySet<string>,
): ContentError[] {
  // Anchors of a route, gathered only for the routes a link points into with a #fragment.
  const idsOf = new Map<string, Set<string>>();
  const anchorsOf = (route: Route): Set<string> => {
    let ids = idsOf.get(route.path);
    if (!ids) {
      const variants = articleOf(route);
      const articles = variants ? [variants.main, ...variants.translations] : [];
      ids = new Set([...pageAnchors, ...articles.flatMap((a) => markdown.get(a.file)?.headings.map((h) => h.id) ?? [])]);
      idsOf.set(route.path, ids);
    }
    return ids;
  };
  const sourceOf = new Map(content.articles.map((a) => [a.file, a.source]));
  const errors: ContentError[] = [];
  for (const result of markdown.values()) {
    for (const link of result.links) {
      const [pathPart = "", anchor] = link.url.split("#", 2);
      const routePath = pathPart.length > 1 ? pathPart.replace(/\/+$/, "") : pathPart;
      const route = table.byPath.get(routePath);
      const where = { file: link.file, line: link.line, column: link.column, source: sourceOf.get(link.file) };
      // A file of public/ (a PDF, the favicon) is a link target too; its #fragment is not ours to check.
      if (!route && isPublicFile(publicFiles, pathPart)) continue;
      if (!route || route.kind === "not-found") {
        errors.push(
          new ContentError({
            ...where,
            message: `broken link: no page has the route ${routePath}`,
            hint: content.draftRoutes.has(routePath)
              ? `${routePath} is a draft: publish it (remove \`draft: true\`) or remove the link`
              : "link to an existing route (the file path under content/articles without .md), or fix the typo",
          }),
        );
      } else if (anchor) {
        const decoded = decodeURIComponent(anchor);
        if (!anchorsOf(route).has(decoded)) {
          errors.push(
            new ContentError({
              ...where,
              message: `broken link: ${routePath} has no heading with the anchor #${decoded}`,
              hint: `anchors are the headings' ids: ${[...anchorsOf(route)].slice(0, 6).map((id) => `#${id}`).join(", ")}…`,
            }),
          );
        }
      }
    }
  }
  return errors;
}
