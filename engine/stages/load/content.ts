/**
 * Stage 1 — content: reads content/ into validated, typed entries. Every problem found is
 * collected as a ContentError; nothing here throws for bad input.
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import { listFiles, type StatedFile, type StatedFiles } from "../../lib/files.js";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import { ContentError, staged, type ContentWarning, type Staged } from "../../lib/errors.js";
import { baseFrontMatter, baseFrontMatterIn, engineSiteSettings, engineSiteSettingsIn, routePathIn, type BaseMeta, type EngineSiteSettings } from "./content-model.js";
import { exactJson, hashOf, hashOfAll, isJsonSafe, isRecord, jsonCopy, seal, unseal, type Sealed } from "../../lib/hash.js";
import { editorialRulesSchema, RULES_FILE, type EditorialRules } from "./rules-model.js";
import { frontMatterLineOffset, locatorOf, matter, parseJsonSource, parseYamlSource, schemaErrors, simpleYamlMap, type Locator, type ParsedSource } from "../../lib/yaml-source.js";
import { nearest } from "../../lib/nearest.js";
import { sourceText } from "../../lib/source-text.js";

/** An article's front matter as validated: the engine's keys, the theme's, and block data. */
export type ArticleMeta = BaseMeta & Record<string, unknown>;

/** An article; `Meta` is what its front matter holds besides the engine's keys (a theme's own). */
export interface Article<Meta extends object = Record<string, unknown>> {
  /** Path relative to the project root, e.g. `content/articles/artigo-transicao.md`. */
  file: string;
  route: string;
  /** One of the theme's languages; the first of them when neither file name nor front matter says. */
  lang: string;
  meta: BaseMeta & Meta;
  /** The whole front matter, including block data keys. */
  frontMatter: Record<string, unknown>;
  /** The file's absolute path. */
  path: string;
  /**
   * The file's whole text: only on an article parsed from a text given to it (`parseArticle`).
   * An article a build loads has none, read or taken on its file's evidence (`evidenceOf`):
   * `sourceText(article)` reads it when a stage needs it (its body made, a rule, an error's
   * lines), and stops the build if the file changed since. At 100,000 articles the texts
   * held from the load to the end were ~0.4 GB of a cold build's peak, in both threads.
   */
  source?: string;
  /** The hash of the file's text: the article's identity in caches and dependencies. */
  sourceHash: string;
  /** Where the Markdown body starts in `source` (`markdownOf` gives the body). */
  bodyOffset: number;
  /** Its values are located in its front matter (`locate`, `errorAt`). */
  format: "front-matter";
}

/** The Markdown body of an article, preceded by blank lines so that line numbers match the file. */
export function markdownOf(article: Pick<Article, "file" | "path" | "source" | "sourceHash" | "bodyOffset">): string {
  const { bodyOffset } = article;
  const source = sourceText(article);
  let lines = 0;
  for (let i = source.indexOf("\n"); i !== -1 && i < bodyOffset; i = source.indexOf("\n", i + 1)) lines++;
  return "\n".repeat(lines) + source.slice(bodyOffset);
}

/** A YAML or JSON file whose values can be traced back to their lines (`locate`, `errorAt`). */
export interface LocatedFile<T> {
  file: string;
  source: string;
  value: T;
}

/**
 * The content of a site. A theme sees it typed by its own schemas (`defineTheme`): `Site` is
 * its settings, `Meta` its front-matter keys, `Collections` its YAML collections' values.
 */
export interface SiteContent<Site = unknown, Meta extends object = Record<string, unknown>, Collections extends object = Record<string, unknown>> {
  root: string;
  /** Routes of `draft: true` articles left out of this build (listings pointing at them drop them). */
  draftRoutes: Set<string>;
  /** content/site.yaml, validated by the theme's schema (without the engine's keys). */
  site: LocatedFile<Site>;
  /** The engine's keys of site.yaml (`redirects`), located in `site`. */
  settings: EngineSiteSettings;
  /** The theme's YAML collections (cards.yaml…) by name, validated by their schemas. */
  collections: { [Name in keyof Collections]: LocatedFile<Collections[Name]> };
  articles: Article<Meta>[];
  /** JSON data tables by name (`note-tools` for content/data/note-tools.json). */
  data: Map<string, LocatedFile<unknown>>;
  /** The site's editorial rules (`rules.yaml` of the content folder), when it has that file. */
  rules?: LocatedFile<EditorialRules>;
  /**
   * The settings, collection and data files that did not load (their errors are reported):
   * each is still here, by its name, with an undefined `value`. Only a build that has errors
   * has any, and in it what reads one is left out (the home page without its cards, a block
   * without its data file): an error that only echoes another is noise.
   */
  unavailable: string[];
}

export interface LoadResult<Content = SiteContent> {
  /** What loaded: a settings, collection or data file that did not is named in its `unavailable`. */
  content?: Content;
  /** Every error, those of the articles that did not load included. */
  errors: ContentError[];
  /** Articles that did not load, by file: the build goes on without them and reports their errors. */
  failed: Map<string, FailedArticle>;
  warnings: ContentWarning[];
  /** The articles parsed in this load (not taken from `previous`), for the cache to keep. */
  parsed: ArticleStore;
  /** The settings, collection, rules and data files validated (or taken as the last build validated them), for the next build. */
  sources: KeptSources;
  /** Every article file found, by the cache's keys (drafts and failed ones too). */
  present: ReadonlySet<string>;
}

/** An article that could not be read or parsed: its errors, and the route its path gives it. */
export interface FailedArticle {
  route: string;
  errors: ContentError[];
  /**
   * Its body, when the file could be split into front matter and Markdown but the front
   * matter failed its schema: still checked in the same run (its blocks, links and anchors),
   * never published. Its `meta` holds only a title; `frontMatter` is the front matter as written.
   */
  body?: Article;
}

/** An address the owner has still to set: `https://x.placeholder.invalid/…`. */
const PLACEHOLDER = /placeholder|\.invalid(\/|$)/i;

/** What an article's front matter holds besides the engine's keys, for a theme whose `frontMatter` is `Shape`. */
export type FrontMatterOf<Shape extends z.core.$ZodLooseShape> = z.output<z.ZodObject<Shape>>;

/** The content as a theme of these schemas sees it. */
export type ContentOf<Site, Shape extends z.core.$ZodLooseShape, Collections extends object> = SiteContent<Site, FrontMatterOf<Shape>, Collections>;

/** What a theme says about its content: the schemas of its settings, front matter and collections. */
export interface ContentModel<Site = any, Shape extends z.core.$ZodLooseShape = any, Collections extends object = any> {
  /** The site's languages, its default first: `x.en.md` is the English version of `x.md`. */
  languages: string[];
  /** Schema of content/site.yaml. */
  site: z.ZodType<Site>;
  /** Front-matter keys of this theme, besides the engine's own (title, route, lang, date…). */
  frontMatter: Shape;
  /** YAML files of content/ beside site.yaml: name → file and schema. */
  collections: { [Name in keyof Collections]: { file: string; schema: z.ZodType<Collections[Name]> } };
}

/** How a theme's articles are read: the front-matter schema, its keys and the languages. */
export interface ArticleModel {
  schema: z.ZodType<ArticleMeta>;
  keys: string[];
  /** The site's languages, the default first. */
  languages: readonly string[];
  /** What a route must be, its examples in the site's language: a route made from a file's name passes it too. */
  routeRule: z.ZodType<string>;
}

/** The article model of a theme: the engine's front-matter keys plus the theme's (made once per load). */
export function articleModel(theme: ContentModel): ArticleModel {
  const shape = { ...baseFrontMatterIn(theme.languages[0] ?? "en"), ...theme.frontMatter };
  const schema = z.looseObject(shape) as unknown as z.ZodType<ArticleMeta>;
  return { schema, keys: frontMatterKeys(theme), languages: theme.languages, routeRule: routePathIn(theme.languages[0] ?? "en") };
}

/** Every front-matter key an article of this theme may have: the engine's and the theme's. */
export function frontMatterKeys(theme: Pick<ContentModel, "frontMatter">): string[] {
  return Object.keys({ ...baseFrontMatter, ...theme.frontMatter });
}

/** Reads and validates everything under `root` (normally `content/`) with a theme's schemas. */
export async function loadContent<Site, Shape extends z.core.$ZodLooseShape, Collections extends object>(
  root: string,
  theme: ContentModel<Site, Shape, Collections>,
  options: { drafts?: boolean; previous?: ReadonlyArticleStore; projectRoot?: string; kept?: KeptFrom; stated?: StatedFiles } = {},
): Promise<LoadResult<ContentOf<Site, Shape, Collections>>> {
  const errors: ContentError[] = [];
  const warnings: ContentWarning[] = [];
  const display = displayPath(options.projectRoot ?? process.cwd());
  const model = articleModel(theme);
  const sources: KeptSources = {};
  const kept = keptSources(options.kept, sources);

  const unavailable: string[] = [];
  /** A file that did not load: still there by its name, its value undefined (see `SiteContent.unavailable`). */
  const orUnavailable = <T,>(loaded: LocatedFile<T> | undefined, file: string): LocatedFile<T> => {
    if (loaded) return loaded;
    unavailable.push(display(file));
    return { file: display(file), source: "", value: undefined as T };
  };
  const language = theme.languages[0] ?? "en";
  const siteFile = path.join(root, "site.yaml");
  const siteLoad = await kept.load(siteFile, display, errors, `site ${language}`, (source, shown) => loadSiteFile(source, shown, theme.site, errors, language));
  const site = orUnavailable(siteLoad?.file, siteFile) as LocatedFile<Site>;
  const collections: Record<string, LocatedFile<unknown>> = {};
  for (const [name, { file, schema }] of Object.entries<{ file: string; schema: z.ZodType }>(theme.collections)) {
    const loaded = await kept.load(path.join(root, file), display, errors, `collection ${name}`, (source, shown) => loadYamlFile(source, shown, schema, errors));
    collections[name] = orUnavailable(loaded?.file, path.join(root, file));
  }
  const data = await loadDataFiles(path.join(root, "data"), display, errors, orUnavailable, kept);
  const rulesFile = path.join(root, RULES_FILE);
  const rules = existsSync(rulesFile) ? orUnavailable((await kept.load(rulesFile, display, errors, "rules", (source, shown) => loadYamlFile(source, shown, editorialRulesSchema, errors)))?.file, rulesFile) : undefined;
  const failed = new Map<string, FailedArticle>();
  const parsed: ArticleStore = new Map();
  const articles = loadArticles(path.join(root, "articles"), model, display, failed, options.previous, parsed, options.stated);
  for (const { errors: articleErrors } of failed.values()) errors.push(...articleErrors);

  if (siteLoad?.warnings) warnings.push(...siteLoad.warnings);

  const visible = articles.filter((a) => !isLeftOut(a, options.drafts));
  const draftRoutes = new Set(articles.filter((a) => isLeftOut(a, options.drafts)).map((a) => a.route));
  // The one place the theme's types are given to the content: its schemas validated every value
  // (a file that did not validate is named in `unavailable`, and the build has its errors).
  const content = { root, draftRoutes, site, settings: siteLoad?.settings ?? {}, collections, data, ...(rules ? { rules } : {}), articles: visible, unavailable } as unknown as ContentOf<Site, Shape, Collections>;
  // Every article file this load found, shown as the cache's keys (the drafts left out and the failed ones too).
  const present = new Set([...articles.map((a) => a.file), ...failed.keys()]);
  return { content, errors, failed, warnings, parsed, sources, present };
}

/** What the load stage makes: the content (undefined only when a file every page needs could not be read), and the articles parsed or not. */
export interface LoadedContent {
  content?: SiteContent;
  /** Articles that did not load, by file: the build goes on without them and reports their errors. */
  failed: Map<string, FailedArticle>;
  /** The articles parsed in this load (not taken from `previous`), for the cache to keep. */
  parsed: ArticleStore;
  /** The settings, collection, rules and data files as validated, for the next build (`kept`). */
  sources: KeptSources;
  /**
   * A load of the whole folder: every article file it found (drafts and failed ones too), by
   * the cache's keys. The cache keeps no entry of another (an article gone: issue 38).
   */
  present?: ReadonlySet<string>;
  /**
   * Watch mode, after article files only: the articles this load read again over the last's
   * content (`from`, its very array of articles), each file with its article now; every other
   * article is the very object it was. Stages keep their state in place for these alone.
   */
  touched?: { from: readonly Article[]; files: ReadonlyMap<string, Article | undefined> };
}

/**
 * Stage 1: the whole content folder, read and validated; an article `previous` parsed from the
 * same text is not parsed again, nor a settings, collection, rules or data file the last build
 * validated from the same text with the same code (`kept`).
 */
export async function loadStage(
  input: { contentDir: string; projectRoot: string; drafts?: boolean; previous?: ReadonlyArticleStore; kept?: KeptFrom; stated?: StatedFiles },
  theme: ContentModel,
): Promise<Staged<LoadedContent>> {
  const { content, errors, failed, warnings, parsed, sources, present } = await loadContent(input.contentDir, theme, input);
  return staged({ content, failed, parsed, sources, present }, errors, warnings);
}

/** The draft rule: a `draft: true` article is left out of a build, unless it builds drafts (dev). */
export function isLeftOut(article: Article, drafts: boolean | undefined): boolean {
  return !drafts && article.meta.draft === true;
}

/**
 * Every URL of the settings that is still a placeholder: a warning, so a preview still builds.
 * Located by the parse the file was loaded with (`at`): one more parse per placeholder was a
 * fifth of a one-article rebuild's load stage.
 */
function placeholderWarnings(site: LocatedFile<unknown>, at: Locator): ContentWarning[] {
  const warnings: ContentWarning[] = [];
  const visit = (value: unknown, keys: (string | number)[]) => {
    if (typeof value === "string") {
      if (/^https?:\/\//.test(value) && PLACEHOLDER.test(value)) {
        const key = keys.join(".");
        warnings.push({
          file: site.file,
          line: at(keys)?.line,
          message: `\`${key}\` is still a placeholder (${value}); set the real address in ${site.file} before publishing`,
        });
      }
    } else if (Array.isArray(value)) value.forEach((item, i) => visit(item, [...keys, i]));
    else if (value && typeof value === "object") for (const [k, v] of Object.entries(value)) visit(v, [...keys, k]);
  };
  visit(site.value, []);
  return warnings;
}

async function readText(file: string, shown: string, errors: ContentError[]): Promise<string | undefined> {
  try {
    return await readFile(file, "utf8");
  } catch (error) {
    const missing = (error as NodeJS.ErrnoException).code === "ENOENT";
    errors.push(
      new ContentError({
        file: shown,
        message: missing ? "file not found" : `cannot read file: ${(error as Error).message}`,
        hint: missing ? `this site's content folder needs ${path.basename(file)}: write it with the keys the theme's schema for it asks for (\`cafe init\` writes a starter site that has one)` : undefined,
        cause: error,
      }),
    );
    return undefined;
  }
}

/** A file's schema: what zod's `safeParse` gives. */
type Schema<T> = { safeParse(v: unknown): { success: true; data: T } | { success: false; error: { issues: readonly import("zod").z.core.$ZodIssue[] } } };

/** A YAML file's text parsed; undefined when it is not YAML, its error in `errors`. */
function parseOrReport(source: string, shown: string, errors: ContentError[]): ParsedSource | undefined {
  try {
    return parseYamlSource(source, shown, source);
  } catch (error) {
    errors.push(error as ContentError);
    return undefined;
  }
}

/** A YAML file's text parsed and validated by its schema; undefined (its errors in `errors`) when it does not load. */
function loadYamlFile<T>(source: string, shown: string, schema: Schema<T>, errors: ContentError[]): Loaded<T> | undefined {
  const parsed = parseOrReport(source, shown, errors);
  if (!parsed) return undefined;
  const result = schema.safeParse(parsed.value);
  if (!result.success) {
    errors.push(...schemaErrors(result.error.issues, shown, source, parsed.locate));
    return undefined;
  }
  return { file: { file: shown, source, value: result.data } };
}

/**
 * site.yaml: its engine keys taken out and validated by the engine (the examples of their
 * errors in the site's `language`), the rest by the theme's schema; with a warning for each
 * address still a placeholder, located by the same parse.
 */
function loadSiteFile<T>(source: string, shown: string, schema: Schema<T>, errors: ContentError[], language: string): Loaded<T> | undefined {
  const parsed = parseOrReport(source, shown, errors);
  if (!parsed) return undefined;
  let value = parsed.value;
  let settings: EngineSiteSettings | undefined;
  let failed = false;
  if (value && typeof value === "object" && !Array.isArray(value)) {
    const own: Record<string, unknown> = {};
    const rest: Record<string, unknown> = {};
    for (const [key, v] of Object.entries(value)) (key in engineSiteSettings ? own : rest)[key] = v;
    const checked = z.object(engineSiteSettingsIn(language)).safeParse(own);
    if (checked.success) settings = checked.data;
    else {
      errors.push(...schemaErrors(checked.error.issues, shown, source, parsed.locate));
      failed = true;
    }
    value = rest;
  } else failed = true;
  const result = schema.safeParse(value);
  if (!result.success) {
    errors.push(...schemaErrors(result.error.issues, shown, source, parsed.locate));
    return undefined;
  }
  if (failed) return undefined;
  const file = { file: shown, source, value: result.data };
  return { file, settings, warnings: placeholderWarnings(file, parsed.locate) };
}

/** A settings, collection, rules or data file as loaded: with site.yaml's engine keys and placeholder warnings. */
interface Loaded<T> {
  file: LocatedFile<T>;
  settings?: EngineSiteSettings;
  warnings?: ContentWarning[];
}

/**
 * What a build keeps of a settings, collection, rules or data file it validated, by its
 * display path: the value, by a key of its text, its role and the code that validated it.
 */
export interface KeptSource {
  key: string;
  value: Sealed<unknown>;
  /** site.yaml: the engine's keys, and the warnings of its placeholder addresses (at their lines). */
  settings?: Sealed<EngineSiteSettings>;
  warnings?: ContentWarning[];
}

export type KeptSources = Record<string, KeptSource>;

/**
 * The last build's validated files and the code they are valid for: the keys of the theme's
 * parts (`code`, as the pipeline is given them; the cache's version stands for the rest of the
 * code, a store of another version being empty). Without it every file is validated.
 */
export interface KeptFrom {
  sources: unknown;
  code: string;
}

/**
 * The files the last build validated, taken when their text, role and code are the same;
 * what this load validated or took is put in `next`. It fails closed: an entry of another
 * shape, or whose sealed values do not match their hash (damaged), is validated again.
 */
function keptSources(from: KeptFrom | undefined, next: KeptSources) {
  const before = from && isRecord(from.sources) ? from.sources : undefined;
  const keyOf = (role: string, source: string) => hashOfAll(["kept-source-1", from!.code, role, source]);
  return {
    /** Reads a file and loads it with `load`, unless the last build loaded the same text for the same role with the same code. */
    async load<T>(file: string, display: (p: string) => string, errors: ContentError[], role: string, load: (source: string, shown: string) => Loaded<T> | undefined): Promise<Loaded<T> | undefined> {
      const shown = display(file);
      const source = await readText(file, shown, errors);
      if (source === undefined) return undefined;
      if (!from) return load(source, shown);
      const key = keyOf(role, source);
      const entry: unknown = before?.[shown];
      if (isRecord(entry) && entry.key === key) {
        const value = unseal(entry.value as Sealed<T>);
        const settings = entry.settings === undefined ? undefined : unseal(entry.settings as Sealed<EngineSiteSettings>);
        const warnings = entry.warnings ?? [];
        if (value !== undefined && (entry.settings === undefined || settings !== undefined) && isWarnings(warnings)) {
          next[shown] = entry as unknown as KeptSource;
          return { file: { file: shown, source, value }, ...(settings ? { settings } : {}), ...(entry.warnings ? { warnings } : {}) };
        }
      }
      const loaded = load(source, shown);
      // Kept only when JSON gives back exactly what was validated.
      if (loaded && exactJson(loaded.file.value) && (loaded.settings === undefined || exactJson(loaded.settings))) {
        next[shown] = { key, value: seal(loaded.file.value), ...(loaded.settings ? { settings: seal(loaded.settings) } : {}), ...(loaded.warnings ? { warnings: loaded.warnings } : {}) };
      }
      return loaded;
    },
  };
}

const isWarnings = (value: unknown): value is ContentWarning[] =>
  Array.isArray(value) && value.every((w) => isRecord(w) && typeof w.file === "string" && typeof w.message === "string" && (w.line === undefined || typeof w.line === "number"));

/** The files of `dir` with this extension (hidden ones left out), sorted. */
const filesOf = (dir: string, extension: string) => listFiles(dir).filter((file) => file.endsWith(extension));

async function loadDataFiles(
  dir: string,
  display: (p: string) => string,
  errors: ContentError[],
  orUnavailable: (loaded: LocatedFile<unknown> | undefined, file: string) => LocatedFile<unknown>,
  kept: ReturnType<typeof keptSources>,
): Promise<Map<string, LocatedFile<unknown>>> {
  const data = new Map<string, LocatedFile<unknown>>();
  for (const file of filesOf(dir, ".json")) {
    const name = path.relative(dir, file).replace(/\.json$/, "").split(path.sep).join("/");
    const loaded = await kept.load(file, display, errors, "data", (source, shown) => {
      try {
        return { file: { file: shown, source, value: parseJsonSource(source, shown).value } };
      } catch (error) {
        errors.push(error as ContentError);
        return undefined;
      }
    });
    // Still known by its name: a block reading it is left out, not told the file does not exist.
    data.set(name, orUnavailable(loaded?.file, file));
  }
  return data;
}

function loadArticles(
  dir: string,
  model: ArticleModel,
  display: (p: string) => string,
  failed: Map<string, FailedArticle>,
  previous: ReadonlyArticleStore | undefined,
  parsed: ArticleStore,
  stated?: StatedFiles,
): Article[] {
  const files = filesOf(dir, ".md");
  const articles: Article[] = [];
  // Read one after another, synchronously: thousands of small reads through the promise API
  // each take a trip through libuv's thread pool and cost several times more here.
  for (const file of files) {
    const result = loadArticleFile(dir, file, model, display, previous, parsed, stated);
    if (!result) continue;
    if ("errors" in result) failed.set(display(file), result);
    else articles.push(result.article);
  }
  return articles;
}

/**
 * How a file is named in errors and in what is kept across runs (the cache's keys): relative
 * to the project's root, so a build run from another folder names it the same.
 */
export const displayPath = (projectRoot: string) => {
  // Each folder's path made relative once, not each file's (a site's articles are in a few folders).
  const folders = new Map<string, string>();
  return (file: string) => {
    const folder = path.dirname(file);
    let shown = folders.get(folder);
    if (shown === undefined) folders.set(folder, (shown = path.relative(projectRoot, folder)));
    return path.join(shown, path.basename(file)) || file;
  };
};

/** An article read, one that failed (with the route its path gives it), or none: the file is gone. */
type ArticleLoad = { article: Article } | FailedArticle | undefined;

/**
 * Reads and parses one article file; undefined when it no longer exists. An article `previous`
 * parsed from the same text is taken as it was; one parsed here is added to `parsed`. A file
 * whose evidence (`evidenceOf`) is what the last build recorded with its entry is not read:
 * its article is the entry's. Either way the article holds no text (`Article.source`).
 */
export function loadArticleFile(
  articlesDir: string,
  file: string,
  model: ArticleModel,
  display: (p: string) => string,
  previous: ReadonlyArticleStore | undefined,
  parsed: ArticleStore,
  stated?: StatedFiles,
): ArticleLoad {
  const shown = display(file);
  const failed = (errors: ContentError[], body?: Article): FailedArticle => ({ route: body?.route ?? routeFromPath(path.relative(articlesDir, file), model.languages).route, errors, ...(body ? { body } : {}) });
  const entry = previous?.get(shown);
  // The file as the inputs' fingerprint stat'ed it, when it did (fingerprint.ts: once a build),
  // with the clock before: a time close to it may be shared by a write still to come (`settled`).
  // What the fingerprint saw is what the build is recorded as built from: a save since then
  // makes the next build run, and that one reads the file.
  const known = stated?.files.get(file);
  const now = known ? stated!.at : Date.now();
  let stat: StatedFile | undefined = known;
  if (!stat) {
    try {
      stat = statSync(file, { throwIfNoEntry: false });
      if (!stat) return undefined;
    } catch {
      // Said by the read below.
    }
  }
  const seen = stat && entry ? evidenceOf(stat, entry.sourceHash) : undefined;
  if (seen !== undefined && entry?.seen === seen) {
    if (isRecord(entry.article)) return { article: articleFrom(entry.article, undefined, entry.sourceHash, shown, file) };
  }
  let source: string;
  try {
    source = readFileSync(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    return failed([new ContentError({ file: shown, message: `cannot read file: ${(error as Error).message}`, cause: error })]);
  }
  const sourceHash = hashOf(source);
  // The evidence of this text, taken before it was read: kept only when no write can share the file's times (`settled`).
  const evidence = stat && settled(stat, now) ? { seen: evidenceOf(stat, sourceHash) } : {};
  const parsedBefore = entry?.sourceHash === sourceHash && isRecord(entry.article) ? entry.article : undefined;
  if (parsedBefore) {
    // The same text with other evidence (a file touched, copied, checked out again): the entry as it was, with this evidence.
    if (evidence.seen !== undefined && evidence.seen !== entry!.seen) parsed.set(shown, { ...entry!, ...evidence });
    return { article: articleFrom(parsedBefore, undefined, sourceHash, shown, file) };
  }
  // Only the body edited: the front matter as the last build parsed it, with the entry of this text.
  const sameHead = entry && sameFrontMatter(source, entry);
  if (sameHead) {
    parsed.set(shown, { sourceHash, head: entry.head, article: entry.article, ...evidence });
    return { article: articleFrom(sameHead, undefined, sourceHash, shown, file) };
  }
  const result = parseArticle(source, shown, path.relative(articlesDir, file), model, sourceHash, file);
  if ("article" in result) {
    // Kept only when JSON gives back exactly what was parsed.
    const { parsed: parts } = result;
    if (parts && isJsonSafe(parts.meta) && isJsonSafe(parts.frontMatter)) {
      // Its parts as the cache keeps them: a copy whose strings are not slices of the text (which they would keep whole).
      const kept = jsonCopy(parts);
      parsed.set(shown, { sourceHash, head: headHash(source, parts.bodyOffset), article: kept, ...evidence });
      return { article: articleFrom(kept, undefined, sourceHash, shown, file) };
    }
    // Not kept (not JSON's kind): the article as parsed, without its text all the same.
    const { source: _text, ...article } = result.article;
    return { article };
  }
  return failed(result.errors, result.body);
}

/**
 * What a file's text is taken on without reading it, as git's index and make take it: its
 * size, modification and change times and inode, with the hash of the text read with them (an
 * entry whose hash was damaged does not match). Any write changes the change time, which no
 * tool sets back (`touch -r` and a copy that keeps times set the modification time only).
 */
function evidenceOf(stat: StatedFile, sourceHash: string): string {
  return hashOf("evidence-1", `${stat.size}:${stat.mtimeMs}:${stat.ctimeMs}:${stat.ino}:${stat.dev}`, sourceHash);
}

/** Times this far before the clock are a file's own: a write to come cannot be given the same ones (file systems keep times to 2 s at worst). */
const SETTLED_MS = 3000;

/** Whether a write after `now` could leave the file with these times: if it could, its evidence is not kept, and the next build reads it. */
const settled = (stat: StatedFile, now: number) => Math.max(stat.mtimeMs, stat.ctimeMs) < now - SETTLED_MS;

/**
 * The hash of an article's text up to its body (its front matter between the `---` lines,
 * and the line break after them), when that ends with the closing `---` line: then a text
 * that starts with the same characters has the same front matter, split at the same place
 * (gray-matter takes the first line that starts with `---` after the opening one, and one
 * line break after it). Undefined otherwise: an article whose front matter is not closed that
 * way is parsed again whenever its text changes.
 */
function headHash(source: string, bodyOffset: number): string | undefined {
  const head = source.slice(0, bodyOffset);
  return /\n---\r?\n$/.test(head) ? hashOf("front matter", head) : undefined;
}

/** The parsed article of the last build's entry when `source` differs from its text in the body only (`headHash`). */
function sameFrontMatter(source: string, entry: { head?: string; article?: ParsedArticle }): ParsedArticle | undefined {
  if (typeof entry.head !== "string") return undefined;
  const before = entry.article;
  if (!isRecord(before) || typeof before.bodyOffset !== "number" || before.bodyOffset > source.length) return undefined;
  return headHash(source, before.bodyOffset) === entry.head ? before : undefined;
}

/**
 * `artigo/tarifas.md` → `/artigo/tarifas`; `x.en.md` → `/x` in English (when English is one
 * of the site's `languages`); `x/index.md` → `/x`.
 */
export function routeFromPath(relative: string, languages: readonly string[] = []): { route: string; lang?: string } {
  const parts = relative.split(/[\\/]/);
  let name = parts.pop()!.replace(/\.md$/, "");
  let lang: string | undefined;
  const suffix = /\.([a-z]{2})$/.exec(name)?.[1];
  if (suffix && languages.includes(suffix)) {
    lang = suffix;
    name = name.slice(0, -3);
  }
  if (name !== "index") parts.push(name);
  return { route: `/${parts.join("/")}`.toLowerCase(), lang };
}

/**
 * Parses one article file. `relative` is its path under the articles folder, from which the
 * route and language are derived when the front matter does not give them.
 */
export function parseArticle(
  source: string,
  file: string,
  relative: string,
  model: ArticleModel,
  sourceHash = hashOf(source),
  at = file,
): { article: Article; parsed?: ParsedArticle } | { errors: ContentError[]; body?: Article } {
  // A file that cannot be split into front matter and body: said at its first line.
  const unreadable = (message: string, hint: string, cause?: unknown) => ({ errors: [new ContentError({ file, line: 1, source, message, hint, cause })] });
  if (!/^---\r?\n/.test(source)) {
    return unreadable("missing front matter", "start the file with a YAML block between two `---` lines holding at least a `title:`");
  }
  let raw: ReturnType<typeof matter>;
  try {
    raw = matter(source, {
      engines: {
        // Front matter of plain `key: value` lines is read without the YAML parser (lib/yaml-source.ts).
        yaml: (text: string) => simpleYamlMap(text) ?? ((parseYamlSource(text, file, source, frontMatterLineOffset(text)).value ?? {}) as object),
      },
    });
  } catch (error) {
    if (error instanceof ContentError) return { errors: [error] };
    return unreadable(`cannot read front matter: ${(error as Error).message}`, "close the front matter with a line holding only `---`", error);
  }
  // The parsed YAML document is large and only needed to point at an error: let it go, and
  // parse the front matter again on the rare call (memory stays flat on huge sites).
  const locate = locatorOf({ file, source, format: "front-matter" });
  const data = raw.data as Record<string, unknown>;
  if (typeof data !== "object" || data === null || Array.isArray(data)) {
    return {
      errors: [new ContentError({ file, line: 2, source, message: "front matter must be a set of `key: value` lines" })],
    };
  }
  const fromPath = routeFromPath(relative, model.languages);
  /**
   * The body of an article whose front matter failed: checked all the same, at the route and
   * in the language its path (or its valid keys) give. A key its errors already name (`you
   * wrote \`titel\``) is left out of its front matter: not reported again as unknown.
   */
  const standIn = (errors: readonly ContentError[]): Article => {
    const named = errors.map((e) => `${e.message} ${e.hint ?? ""}`).join("\n");
    const frontMatter = Object.fromEntries(Object.entries(data).filter(([key]) => !named.includes(`\`${key}\``)));
    const route = typeof data.route === "string" && routeFromPath(`${data.route.slice(1)}.md`).route === data.route ? data.route : fromPath.route;
    const lang = typeof data.lang === "string" && model.languages.includes(data.lang) ? data.lang : (fromPath.lang ?? model.languages[0]!);
    const title = typeof data.title === "string" ? data.title : route;
    const meta = { title } as ArticleMeta;
    return articleFrom({ route, lang, meta, frontMatter, bodyOffset: source.length - raw.content.length }, source, sourceHash, file, at);
  };
  const result = model.schema.safeParse(data);
  if (!result.success) {
    const errors = schemaErrors(result.error.issues, file, source, locate, [], (key) => {
      // A required key that is missing next to a key nobody knows: most likely one misspelt.
      if (data[key] === undefined) {
        const written = Object.keys(data).filter((k) => !model.keys.includes(k) && nearest(k, [key]) !== undefined);
        if (written[0] !== undefined) return `you wrote \`${written[0]}\` (line ${locate([written[0]], { key: true })?.line ?? "?"}): did you mean \`${key}\`?`;
      }
      const guess = nearest(key, model.keys);
      return guess && guess !== key ? `did you mean \`${guess}\`?` : undefined;
    });
    return { errors, body: standIn(errors) };
  }
  const meta = result.data;
  if (meta.lang !== undefined && !model.languages.includes(meta.lang)) {
    const pos = locate(["lang"]);
    return {
      body: standIn([]),
      errors: [
        new ContentError({
          file,
          line: pos?.line,
          column: pos?.column,
          source,
          key: "lang",
          message: `\`lang\` must be one of ${model.languages.join(", ")}; got '${meta.lang}'`,
          hint: `this site is written in ${model.languages.join(" and ")}`,
        }),
      ],
    };
  }
  if (meta.route === undefined) {
    // The file's name is the route: it passes the rules a `route:` key does (a space, an accent,
    // a `;` or a backslash in a name would reach the sitemap, the redirects and the record of published addresses).
    const checked = model.routeRule.safeParse(fromPath.route);
    if (!checked.success) {
      return {
        errors: [
          new ContentError({
            file,
            line: 1,
            source,
            message: `the file's name gives it the route ${JSON.stringify(fromPath.route)}, which is not one: a route ${checked.error.issues[0]!.message}`,
            hint: "rename the file with lowercase letters, digits and hyphens only (e.g. artigo-transicao.md), or give it a `route:` in the front matter",
          }),
        ],
      };
    }
  }
  const parsed: ParsedArticle = {
    route: meta.route ?? fromPath.route,
    lang: meta.lang ?? fromPath.lang ?? model.languages[0]!,
    meta,
    frontMatter: data,
    bodyOffset: source.length - raw.content.length,
  };
  return { article: articleFrom(parsed, source, sourceHash, file, at), parsed };
}

/**
 * Where parsed articles are kept between builds, by file (the persistent cache's entries):
 * each by the hash of its text, and of its text up to the body (`head`, `headHash`), so that
 * a body edit takes the front matter as it was.
 */
export type ArticleStore = Map<string, { sourceHash: string; head?: string; article?: ParsedArticle; seen?: string }>;
export type ReadonlyArticleStore = ReadonlyMap<string, { readonly sourceHash: string; readonly head?: string; readonly article?: ParsedArticle; readonly seen?: string }>;

/** What parsing an article gives, besides its text: the part the cache keeps. */
export interface ParsedArticle {
  route: string;
  lang: string;
  meta: ArticleMeta;
  frontMatter: Record<string, unknown>;
  bodyOffset: number;
}

/** An article from its parsed parts and its text (none: taken on its file's evidence, `sourceText` reads it). */
function articleFrom(parsed: ParsedArticle, source: string | undefined, sourceHash: string, file: string, at: string): Article {
  const { route, lang, meta, frontMatter, bodyOffset } = parsed;
  return { file, path: at, route, lang, meta, frontMatter, ...(source === undefined ? {} : { source }), sourceHash, bodyOffset, format: "front-matter" };
}
