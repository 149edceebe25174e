/**
 * Stage 1 — content: reads content/ into validated, typed entries. Every problem found is
 * collected as a ContentError; nothing here throws for bad input.
 */
import { readFileSync } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import matter from "gray-matter";
import { parse as parseYaml } from "yaml";
import { ContentError, type ContentWarning } from "./errors.js";
import {
  ARTICLE_KEYS,
  articleFrontMatterSchema,
  cardsSchema,
  editionsSchema,
  siteSchema,
  type ArticleFrontMatter,
  type Card,
  type Edition,
  type SiteSettings,
} from "./schema.js";
import { nearest, parseJsonSource, parseYamlSource, schemaErrors, type Locator, type ParsedSource } from "./yaml-source.js";

export interface Article {
  /** Path as an author sees it, e.g. `content/articles/artigo-transicao.md`. */
  file: string;
  route: string;
  lang: "pt" | "en";
  meta: ArticleFrontMatter;
  /** The whole front matter, including block data keys. */
  frontMatter: Record<string, unknown>;
  /** The Markdown body, preceded by blank lines so that line numbers match the file. */
  markdown: string;
  source: string;
  locate: Locator;
}

/** A YAML or JSON file whose values can be traced back to their lines. */
export interface LocatedFile<T> {
  file: string;
  source: string;
  value: T;
  locate: Locator;
}

export interface SiteContent {
  root: string;
  /** Routes of `draft: true` articles left out of this build (cards pointing at them are dropped). */
  draftRoutes: Set<string>;
  site: LocatedFile<SiteSettings>;
  cards: LocatedFile<Card[]>;
  editions: LocatedFile<Edition[]>;
  articles: Article[];
  /** JSON data tables by name (`note-tools` for content/data/note-tools.json). */
  data: Map<string, LocatedFile<unknown>>;
}

export interface LoadResult {
  content?: SiteContent;
  errors: ContentError[];
  warnings: ContentWarning[];
}

const PLACEHOLDER = /placeholder|\.invalid(\/|$)/i;

/** Reads and validates everything under `root` (normally `content/`). */
export async function loadContent(root: string, options: { drafts?: boolean } = {}): Promise<LoadResult> {
  const errors: ContentError[] = [];
  const warnings: ContentWarning[] = [];
  const display = (abs: string) => path.relative(process.cwd(), abs) || abs;

  const [site, cards, editions, data, articles] = await Promise.all([
    loadYamlFile(path.join(root, "site.yaml"), siteSchema, display, errors),
    loadYamlFile(path.join(root, "cards.yaml"), cardsSchema, display, errors),
    loadYamlFile(path.join(root, "editions.yaml"), editionsSchema, display, errors),
    loadDataFiles(path.join(root, "data"), display, errors),
    loadArticles(path.join(root, "articles"), display, errors),
  ]);

  if (site) {
    for (const [key, url] of [
      ["brand.url", site.value.brand.url],
      ["privacyUrl", site.value.privacyUrl],
      ["siteUrl", site.value.siteUrl],
    ] as const) {
      if (PLACEHOLDER.test(url)) {
        const pos = site.locate(key.split("."));
        warnings.push({
          file: site.file,
          line: pos?.line,
          message: `\`${key}\` is still a placeholder (${url}); set the real address in ${site.file} before publishing`,
        });
      }
    }
  }

  const hidden = (a: Article) => !options.drafts && a.meta.draft === true;
  const visible = articles.filter((a) => !hidden(a));
  const draftRoutes = new Set(articles.filter(hidden).map((a) => a.route));
  if (!site || !cards || !editions || errors.length > 0) return { errors, warnings };
  return { content: { root, draftRoutes, site, cards, editions, data, articles: visible }, errors, warnings };
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
        hint: missing ? "every site needs site.yaml, cards.yaml and editions.yaml in its content folder" : undefined,
        cause: error,
      }),
    );
    return undefined;
  }
}

async function loadYamlFile<T>(
  file: string,
  schema: { safeParse(v: unknown): { success: true; data: T } | { success: false; error: { issues: readonly import("zod").z.core.$ZodIssue[] } } },
  display: (p: string) => string,
  errors: ContentError[],
): Promise<LocatedFile<T> | undefined> {
  const shown = display(file);
  const source = await readText(file, shown, errors);
  if (source === undefined) return undefined;
  let parsed: ParsedSource;
  try {
    parsed = parseYamlSource(source, shown, source);
  } catch (error) {
    errors.push(error as ContentError);
    return undefined;
  }
  const result = schema.safeParse(parsed.value);
  if (!result.success) {
    errors.push(...schemaErrors(result.error.issues, shown, source, parsed.locate));
    return undefined;
  }
  return { file: shown, source, value: result.data, locate: parsed.locate };
}

async function listFiles(dir: string, extension: string): Promise<string[]> {
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true, recursive: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw error;
  }
  return entries
    .filter((e) => e.isFile() && e.name.endsWith(extension) && !e.name.startsWith("."))
    .map((e) => path.join(e.parentPath, e.name))
    .sort();
}

async function loadDataFiles(
  dir: string,
  display: (p: string) => string,
  errors: ContentError[],
): Promise<Map<string, LocatedFile<unknown>>> {
  const data = new Map<string, LocatedFile<unknown>>();
  for (const file of await listFiles(dir, ".json")) {
    const shown = display(file);
    const source = await readText(file, shown, errors);
    if (source === undefined) continue;
    try {
      const parsed = parseJsonSource(source, shown);
      const name = path.relative(dir, file).replace(/\.json$/, "").split(path.sep).join("/");
      data.set(name, { file: shown, source, value: parsed.value, locate: parsed.locate });
    } catch (error) {
      errors.push(error as ContentError);
    }
  }
  return data;
}

async function loadArticles(dir: string, display: (p: string) => string, errors: ContentError[]): Promise<Article[]> {
  const files = await listFiles(dir, ".md");
  const articles: Article[] = [];
  // Read one after another, synchronously: thousands of small reads through the promise API
  // each take a trip through libuv's thread pool and cost several times more here.
  for (const file of files) {
    const result = loadArticleFile(dir, file, display);
    if (!result) continue;
    if ("errors" in result) errors.push(...result.errors);
    else articles.push(result.article);
  }
  return articles;
}

/** The letters set in the script face: the brand name and the author's initial. */
export function brandTextOf(site: { brand: { name: string }; author: string }): string {
  return [...new Set(`${site.brand.name}${site.author.slice(0, 1)}`)].join("");
}

/**
 * The brand text read straight from site.yaml, so the assets can be cut while the rest of
 * the content loads; undefined (the whole font) if the file cannot be read yet.
 */
export async function readBrandText(contentDir: string): Promise<string | undefined> {
  try {
    const site = parseYaml(await readFile(path.join(contentDir, "site.yaml"), "utf8")) as { brand?: { name?: unknown }; author?: unknown };
    if (typeof site?.brand?.name !== "string" || typeof site.author !== "string") return undefined;
    return brandTextOf({ brand: { name: site.brand.name }, author: site.author });
  } catch {
    return undefined;
  }
}

/** gray-matter's front matter starts with the newline that ends the opening `---` line. */
const frontMatterLineOffset = (text: string) => (text.startsWith("\n") || text.startsWith("\r\n") ? 0 : 1);

type ArticleLoad = { article: Article } | { errors: ContentError[] } | undefined;

/** Reads and parses one article file; undefined when it no longer exists. */
export function loadArticleFile(
  articlesDir: string,
  file: string,
  display: (p: string) => string = (p) => path.relative(process.cwd(), p) || p,
): ArticleLoad {
  const shown = display(file);
  let source: string;
  try {
    source = readFileSync(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    return { errors: [new ContentError({ file: shown, message: `cannot read file: ${(error as Error).message}`, cause: error })] };
  }
  return parseArticle(source, shown, path.relative(articlesDir, file));
}

/** `artigo/tarifas.md` → `/artigo/tarifas`; `x.en.md` → `/x` in English; `x/index.md` → `/x`. */
export function routeFromPath(relative: string): { route: string; lang?: "en" } {
  const parts = relative.split(/[\\/]/);
  let name = parts.pop()!.replace(/\.md$/, "");
  let lang: "en" | undefined;
  if (name.endsWith(".en")) {
    lang = "en";
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
): { article: Article } | { errors: ContentError[] } {
  if (!/^---\r?\n/.test(source)) {
    return {
      errors: [
        new ContentError({
          file,
          line: 1,
          source,
          message: "missing front matter",
          hint: "start the file with a YAML block between two `---` lines holding at least a `title:`",
        }),
      ],
    };
  }
  let raw: matter.GrayMatterFile<string>;
  try {
    raw = matter(source, {
      engines: {
        yaml: (text: string) => {
          return (parseYamlSource(text, file, source, frontMatterLineOffset(text)).value ?? {}) as object;
        },
      },
    });
  } catch (error) {
    if (error instanceof ContentError) return { errors: [error] };
    return {
      errors: [
        new ContentError({
          file,
          line: 1,
          source,
          message: `cannot read front matter: ${(error as Error).message}`,
          hint: "close the front matter with a line holding only `---`",
          cause: error,
        }),
      ],
    };
  }
  // The parsed YAML document is large and only needed to point at an error: let it go, and
  // parse the front matter again on the rare call (memory stays flat on huge sites).
  const frontMatterText = raw.matter;
  let located: Locator | undefined;
  const locate: Locator = (path, options) => {
    located ??= parseYamlSource(frontMatterText, file, source, frontMatterLineOffset(frontMatterText)).locate;
    return located(path, options);
  };
  const data = raw.data as Record<string, unknown>;
  if (typeof data !== "object" || data === null || Array.isArray(data)) {
    return {
      errors: [new ContentError({ file, line: 2, source, message: "front matter must be a set of `key: value` lines" })],
    };
  }
  const result = articleFrontMatterSchema.safeParse(data);
  if (!result.success) {
    return {
      errors: schemaErrors(result.error.issues, file, source, locate, [], (key) => {
        const guess = nearest(key, ARTICLE_KEYS);
        return guess && guess !== key ? `did you mean \`${guess}\`?` : undefined;
      }),
    };
  }
  const meta = result.data;
  const fromPath = routeFromPath(relative);
  const bodyOffset = source.length - raw.content.length;
  const linesBefore = source.slice(0, bodyOffset).split("\n").length - 1;
  return {
    article: {
      file,
      route: meta.route ?? fromPath.route,
      lang: meta.lang ?? fromPath.lang ?? "pt",
      meta,
      frontMatter: data,
      // Derived when asked for, not stored: on a huge site a second copy of every text adds up.
      get markdown() {
        return "\n".repeat(linesBefore) + source.slice(bodyOffset);
      },
      source,
      locate,
    },
  };
}
