/**
 * Stage 3 — markdown: one article's Markdown → React elements, through unified
 * (remark-parse, remark-gfm, remark-directive, remark-rehype, rehype-react).
 *
 * Directives become validated blocks; links are checked against the link policy; headings
 * get ids; raw HTML is dropped with a warning, never passed through.
 */
import { createElement, useContext, type ReactElement, type ReactNode } from "react";
import { renderToString } from "react-dom/server";
import { Fragment, jsx, jsxs } from "react/jsx-runtime";
import { unified, type PluggableList, type Processor } from "unified";
import remarkParse from "remark-parse";
import remarkGfm from "remark-gfm";
import remarkDirective from "remark-directive";
import remarkRehype from "remark-rehype";
import rehypeReact from "rehype-react";
import GithubSlugger from "github-slugger";
import { VFile } from "vfile";
import type { Root, Nodes, Parents, Text } from "mdast";
import type { ContainerDirective, LeafDirective } from "mdast-util-directive";
import { toString } from "mdast-util-to-string";
import { ContentError, plainIssue, type ContentIssue, type ContentWarning } from "../../lib/errors.js";
import { exactJson, hashOfAll } from "../../lib/hash.js";
import { frontMatterKeys, markdownOf, type Article, type SiteContent } from "../load/content.js";
import { sourceText } from "../../lib/source-text.js";
import type { BlockDefinition, BlockProps, HeadingLevel, Theme } from "../../theme.js";
import { locate, locatorOf, schemaErrors } from "../../lib/yaml-source.js";
import { nearest } from "../../lib/nearest.js";
import { ImageSlot, type MarkdownImage } from "./image-slots.js";
import { dep, type DepId } from "../../incremental/dependencies.js";
import { isSafeUrl } from "../load/content-model.js";
import { outcomeIn, outcomeValue, siteValues } from "../../lib/site-values.js";
import { IslandContext, islandNames } from "../../islands.js";
import { BlockContext, markdownSession, type MarkdownSession, type ResolvedBlock } from "./markdown-context.js";
import { wordsFor } from "../../lib/language.js";
import { parseWithPlainBlocks } from "./plain-blocks.js";

/** An internal link found in Markdown, checked against the route table by the build. */
export interface InternalLink {
  url: string;
  file: string;
  line?: number;
  column?: number;
}

/** What one article's Markdown gave: its body as HTML and what the site-wide checks need. */
export interface MarkdownResult {
  html: string;
  /** What the body read besides its own text (`data:<name>`, `block:<name>`): dependencies.ts ids. */
  reads: DepId[];
  links: InternalLink[];
  headings: { id: string; text: string; depth: number }[];
  /** Its images, in order: `html` holds a marker for each that the page render replaces (images.ts). */
  images: MarkdownImage[];
  /** What is wrong with it, as plain data (made where it was found: a result crosses threads). */
  errors: ContentIssue[];
  warnings: ContentWarning[];
  /**
   * A file a block of it reads that did not load (its own errors are reported): this body, and
   * every check of it, is left out of the run.
   */
  unavailable?: string;
  /**
   * The block data it validated whose value parsed is the very value given (`blockDataKey`):
   * the next parse of this body (its text edited) takes such data as it is, unvalidated.
   */
  valid?: string[];
}

/**
 * What a parse of a body knows from the last parse of it: the keys of the block data found
 * valid then (`MarkdownResult.valid`), and the key of each block's code (its schema's module).
 */
export interface KnownValid {
  valid: readonly string[];
  code: (part: string) => string;
}

/**
 * The key of a block's data: the block, its code's key and the value as JSON. Undefined for a
 * value JSON does not give back exactly (a date, an undefined key): such data is always validated.
 */
function blockDataKey(name: string, value: unknown, known: KnownValid | undefined): { key: string; json: string } | undefined {
  if (!known || !exactJson(value)) return undefined;
  const json = JSON.stringify(value);
  return { key: hashOfAll(["block-data-1", name, known.code(`block:${name}`), json]), json };
}

interface PipelineData {
  article: Article;
  content: SiteContent;
  theme: Theme;
  blocks: ResolvedBlock[];
  result: Omit<MarkdownResult, "html">;
  session: MarkdownSession;
  known?: KnownValid;
}

/** Where a directive stood in the Markdown: its block's component, with its data. */
function BlockSlot({ "data-block": index, children }: { "data-block"?: string; children?: ReactNode }) {
  const { blocks, lang } = useContext(BlockContext);
  const block = blocks[Number(index)];
  if (!block) return null;
  const props: BlockProps = { data: block.data, attributes: block.attributes, level: block.headingLevel, lang, children };
  return createElement(block.definition.component as (p: BlockProps) => ReactNode, props);
}

/**
 * The unified pipelines of a theme, per language (the footnote labels are the page's):
 * the full one, and the same without the GFM and directive extensions for text in which
 * they can match nothing. Every GFM construct and every directive needs one of the
 * characters `USES_EXTENSIONS` looks for; skipping them halves the parse time of plain
 * prose and changes no output (bench/README.md has the figure). Between the two,
 * `noEmail`: every extension but GFM's email autolink literal, for text with no `@`. That
 * one construct is tried at the start of every word (every letter and digit may begin an
 * address) and needs an `@` to match: prose with a link or a colon, and no address, parses
 * in about half the time without it, to the same tree.
 */
export type Pipelines = { full: Processor; lean: Processor; noEmail: Processor };
const USES_EXTENSIONS = /[|~@:]|\[\^|\[[ xX]\]|www\./;
/** Written right after an image, marks it as decorative: no alt text, skipped by screen readers. */
const DECORATIVE = "{decorative}";

function pipelinesFor(theme: Theme, lang: string, session: MarkdownSession): Pipelines {
  const byLang = session.pipelines as Map<string, Pipelines>;
  let found = byLang.get(lang);
  if (!found) {
    const toReact = {
      Fragment,
      jsx,
      jsxs,
      components: { ...theme.markdownComponents, "cafe-block": BlockSlot, "engine-image": ImageSlot },
      passKeys: true,
      passNode: false,
    } as const;
    const rehypeOptions = theme.markdownLabels?.(lang) ?? {};
    // The same pipeline, with the given syntax extensions between the parser and the blocks.
    const pipeline = (syntax: PluggableList) => unified().use(remarkParse).use(syntax).use(remarkBlocks).use(remarkRehype, rehypeOptions).use(rehypeIpv6Hosts).use(rehypeReact, toReact) as unknown as Processor;
    found = { full: pipeline([remarkGfm, remarkDirective]), lean: pipeline([]), noEmail: pipeline([remarkGfmWithoutEmail, remarkDirective]) };
    byLang.set(lang, found);
  }
  return found;
}

/**
 * remark-gfm with GFM's syntax as it is, less the tokenizer of email autolink literals
 * (`a@b.org`), found by its name among the constructs remark-gfm gives micromark. A construct
 * that fails leaves nothing behind, and this one fails where there is no `@`: for such text
 * the tree is the same (the test compares every Markdown file of the site and fixtures).
 */
function remarkGfmWithoutEmail(this: Processor) {
  remarkGfm.call(this as never);
  // micromark's syntax extension, as far as it is read here: its text constructs by character code.
  type Syntax = { text?: Record<number, { name?: string } | { name?: string }[] | undefined> };
  const syntax = this.data().micromarkExtensions as Syntax[];
  const gfm = syntax[syntax.length - 1]!;
  const text: NonNullable<Syntax["text"]> = {};
  for (const [code, constructs] of Object.entries(gfm.text ?? {})) {
    const kept = [constructs ?? []].flat().filter((construct) => construct.name !== "emailAutolink");
    if (kept.length > 0) text[Number(code)] = kept;
  }
  syntax[syntax.length - 1] = { ...gfm, text };
}

/** A node of the HTML tree (hast), typed only as far as it is read here. */
interface HtmlNode {
  type: string;
  properties?: Record<string, unknown>;
  children?: HtmlNode[];
}

/** What a visitor of `walk` says: go on into the node (nothing), or skip it and go on at the sibling of that index (after it changed its parent's children). */
type Step = void | readonly ["skip", number];

/**
 * Every node of a Markdown tree in document order, the parent before its children, as
 * unist-util-visit walks one (a node's children are read after its visitor ran). Without that
 * library's closure and debugging name set on every node: its walks were 3.5% of a
 * 4000-article cold build.
 */
function walk(node: Nodes, visitor: (node: Nodes, index: number | undefined, parent: Parents | undefined) => Step, index?: number, parent?: Parents): Step {
  const step = visitor(node, index, parent);
  if (step || !("children" in node)) return step;
  for (let i = 0; i < node.children.length; ) i = walk(node.children[i]!, visitor, i, node)?.[1] ?? i + 1;
}

/**
 * Gives an IPv6 host its brackets back (`http://[::1]:8080/`): turning Markdown into HTML
 * percent-encodes them (`%5B::1%5D`), which names no host.
 */
function rehypeIpv6Hosts() {
  return (tree: HtmlNode) => {
    const fix = (node: HtmlNode) => {
      if (node.type === "element") {
        for (const name of ["href", "src"] as const) {
          const value = node.properties?.[name];
          if (typeof value === "string") node.properties![name] = value.replace(/^(https?:\/\/(?:[^/?#@]*@)?)%5B([0-9a-f:.]+(?:%25[\w.~-]+)?)%5D/i, "$1[$2]");
        }
      }
      node.children?.forEach(fix);
    };
    fix(tree);
  };
}

/**
 * Renders an article's Markdown body to HTML with the theme's components. Never throws for
 * bad content: errors are returned. `lean: false` always uses the full pipeline (the
 * reference the lean one must equal).
 */
export function renderMarkdown(
  taken: Article,
  content: SiteContent,
  theme: Theme,
  { lean: leanAllowed, session = markdownSession(), known }: { lean?: boolean; session?: MarkdownSession; known?: KnownValid } = {},
): MarkdownResult {
  // Every body is made by the theme's Markdown overrides (their modules' key: incremental/code-keys.ts).
  const result: PipelineData["result"] = { reads: [dep.code("markdown")], links: [], headings: [], images: [], errors: [], warnings: [] };
  const blocks: ResolvedBlock[] = [];
  // Its text, read now if the load took it on its file's evidence (its errors quote it). A file
  // changed since is this body's error, as plain data: it crosses back from a worker thread.
  let article = taken;
  try {
    if (taken.source === undefined) article = { ...taken, source: sourceText(taken) };
  } catch (error) {
    if (error instanceof ContentError) return { html: "", ...result, errors: [plainIssue(error)] };
    throw error;
  }
  const markdown = markdownOf(article);
  // A body too large or too deeply nested would take minutes or the whole stack: an error at its file, before any parsing.
  const beyond = beyondLimits(article, markdown, theme.markdownLimits);
  if (beyond) return { html: "", ...result, errors: [beyond] };
  const file = new VFile({ path: article.file, value: markdown });
  file.data.pipeline = { article, content, theme, blocks, result, session, known } satisfies PipelineData;
  const { full, lean, noEmail } = pipelinesFor(theme, article.lang, session);
  const pipeline = leanAllowed === false ? full : !USES_EXTENSIONS.test(markdown) ? lean : markdown.includes("@") ? full : noEmail;
  try {
    // Plain paragraphs are read without micromark (plain-blocks.ts), but by the reference pipeline.
    const tree = leanAllowed === false ? pipeline.parse(file) : parseWithPlainBlocks(markdown, (text) => pipeline.parse(text) as Root);
    const body = pipeline.stringify(pipeline.runSync(tree, file), file) as unknown as ReactElement;
    const html = result.errors.length > 0 ? "" : renderToString(createElement(IslandContext.Provider, { value: { names: islandNames(theme), where: `in ${article.file}` } }, createElement(BlockContext.Provider, { value: { blocks, lang: article.lang } }, body)));
    return { html, ...result };
  } catch (error) {
    // A mistake of the theme's a block found while rendering (an island given props that are not plain data): at its line.
    if (error instanceof ContentError) return { html: "", ...result, errors: [...result.errors, plainIssue(error)] };
    // A nesting the scan let through that still ran out of stack: the same error, at the file.
    if (!(error instanceof RangeError && /call stack/i.test(error.message))) throw error;
    return { html: "", ...result, errors: [...result.errors, tooDeep(article, undefined, theme.markdownLimits)] };
  }
}

/** The default limits of an article's body (`Theme.markdownLimits` raises or lowers them). */
export const MARKDOWN_LIMITS = { maxBytes: 1_000_000, maxDepth: 100 } as const;

/**
 * Why an article's body is beyond what the Markdown stage takes, as an error at its file: more
 * bytes than `maxBytes`, or containers (`>` quotes, list items) or brackets nested deeper than
 * `maxDepth` on one line (what makes the parser recurse). A cheap scan of the text, no parsing.
 */
export function beyondLimits(article: Pick<Article, "file" | "source">, markdown: string, limits: Theme["markdownLimits"] = {}): ContentError | undefined {
  const { maxBytes, maxDepth } = { ...MARKDOWN_LIMITS, ...limits };
  const bytes = Buffer.byteLength(markdown);
  if (bytes > maxBytes) {
    return new ContentError({
      file: article.file,
      line: 1,
      message: `the article is ${sizeOf(bytes)}; an article's text may have at most ${sizeOf(maxBytes)}`,
      hint: `split it into articles of their own (a series), or raise the limit in the theme: markdownLimits: { maxBytes: ${Math.ceil(bytes / 1_000_000) * 1_000_000} }`,
    });
  }
  let line = 1;
  let brackets = 0;
  let atStart = true;
  let containers = 0;
  for (let i = 0; i < markdown.length; i++) {
    const c = markdown.charCodeAt(i);
    if (c === 10 /* \n */) {
      line++;
      atStart = true;
      containers = 0;
      // A blank line ends a paragraph, and the brackets left open in it.
      if (markdown.charCodeAt(i + 1) === 10 || markdown.charCodeAt(i + 1) === 13) brackets = 0;
      continue;
    }
    if (atStart) {
      if (c === 62 /* > */ || ((c === 45 /* - */ || c === 42 /* * */ || c === 43) /* + */ && markdown.charCodeAt(i + 1) === 32)) containers++;
      else if (c !== 32 && c !== 9 && c !== 13) atStart = false;
    }
    if (c === 91 /* [ */) brackets++;
    else if (c === 93 /* ] */ && brackets > 0) brackets--;
    if (containers > maxDepth || brackets > maxDepth) return tooDeep(article, line, limits);
  }
  return undefined;
}

/** 1.1 MB, 40 KB, 38 bytes. */
const sizeOf = (bytes: number) => (bytes >= 1_000_000 ? `${(bytes / 1_000_000).toFixed(1)} MB` : bytes >= 1000 ? `${Math.round(bytes / 1000)} KB` : `${bytes} bytes`);

function tooDeep(article: Pick<Article, "file" | "source">, line: number | undefined, limits: Theme["markdownLimits"] = {}): ContentError {
  const { maxDepth } = { ...MARKDOWN_LIMITS, ...limits };
  return new ContentError({
    file: article.file,
    line,
    source: line === undefined ? undefined : article.source,
    message: `the article nests quotes, lists or brackets deeper than ${maxDepth} levels${line === undefined ? "" : " here"}`,
    hint: `write it flatter (no text needs ${maxDepth} levels), or raise the limit in the theme: markdownLimits: { maxDepth: … }`,
  });
}

declare module "vfile" {
  interface DataMap {
    pipeline: PipelineData;
  }
}

function camelCase(name: string): string {
  return name.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
}


/** The remark plugin that gives directives, links, headings and raw HTML their meaning here. */
function remarkBlocks() {
  return (tree: Root, file: VFile) => {
    const { article, content, theme, blocks, result, session, known } = file.data.pipeline!;
    const knownKeys = (session.knownKeys ??= frontMatterKeys(theme));
    const consumedKeys = new Set<string>();
    const slugger = new GithubSlugger();
    // The page title is the h1; a block's headings go one level below the last heading.
    let sectionDepth = 1;
    const at = (node: Nodes) => ({ line: node.position?.start.line, column: node.position?.start.column });
    const fail = (node: Nodes, message: string, hint?: string) =>
      result.errors.push(plainIssue(new ContentError({ file: article.file, ...at(node), source: article.source, message, hint })));

    walk(tree, (node, index, parent) => {
      switch (node.type) {
        case "html":
          result.warnings.push({
            file: article.file,
            line: node.position?.start.line,
            message: "raw HTML is not rendered; use Markdown or a block directive instead",
          });
          if (parent && index !== undefined) {
            parent.children.splice(index, 1);
            return ["skip", index];
          }
          return;
        case "heading": {
          sectionDepth = node.depth;
          const text = toString(node);
          const id = slugger.slug(text);
          node.data = { ...node.data, hProperties: { ...node.data?.hProperties, id } };
          result.headings.push({ id, text, depth: node.depth });
          return;
        }
        case "link":
        case "definition":
          checkUrl(node.url, node);
          return;
        case "image": {
          // `![](./x.jpg){decorative}`: an image that adds nothing to the text says so.
          const next = parent && index !== undefined ? parent.children[index + 1] : undefined;
          const decorative = next?.type === "text" && next.value.startsWith(DECORATIVE);
          if (decorative) next.value = next.value.slice(DECORATIVE.length);
          const image = result.images.push({ url: node.url, alt: node.alt ?? "", decorative, ...at(node) }) - 1;
          node.data = { ...node.data, hName: "engine-image", hProperties: { dataImage: String(image) } };
          return;
        }
        case "imageReference":
          fail(node, "an image needs its address in place: `![alt][name]` is not supported", `write ![${node.alt ?? ""}](./name.jpg)`);
          return;
        case "textDirective":
          // `:word` in prose ("Dica:algo") is text, not a directive: give it back as written.
          if (parent && index !== undefined) {
            const start = node.position?.start.offset;
            const end = node.position?.end.offset;
            const value = start !== undefined && end !== undefined ? String(file.value).slice(start, end) : `:${node.name}`;
            parent.children.splice(index, 1, { type: "text", value } satisfies Text);
            return ["skip", index + 1];
          }
          return;
        case "leafDirective":
        case "containerDirective":
          resolveDirective(node);
          return;
      }
    });

    for (const key of Object.keys(article.frontMatter)) {
      if (knownKeys.includes(key) || consumedKeys.has(key)) continue;
      const guess = nearest(key, knownKeys);
      const pos = locate(article, [key], { key: true });
      result.errors.push(
        plainIssue(new ContentError({
          file: article.file,
          line: pos?.line,
          column: pos?.column,
          source: article.source,
          key,
          message: `unknown front-matter key \`${key}\``,
          hint:
            guess !== undefined
              ? `did you mean \`${guess}\`?`
              : `front-matter keys are ${knownKeys.join(", ")}${
                  theme.blocks.some((b) => b.source.from === "data")
                    ? ", plus data for a block placed in the body (\`::some-block\` reads \`someBlock\`)"
                    : ""
                }`,
        })),
      );
    }

    function checkUrl(url: string, node: Nodes) {
      if (url.startsWith("/") && !url.startsWith("//")) {
        result.links.push({ url, file: article.file, ...at(node) });
      } else if (url.startsWith("#")) {
        result.links.push({ url: `${article.route}${url}`, file: article.file, ...at(node) });
      } else if (!isSafeUrl(url)) {
        fail(
          node,
          `link target \`${url}\` is not allowed`,
          `link to an http(s) or mailto address, a route of this site such as ${wordsFor(article.lang).route}, or an #anchor`,
        );
      }
    }

    function resolveDirective(node: LeafDirective | ContainerDirective) {
      const name = node.name;
      const isContainer = node.type === "containerDirective";
      const marker = (d: BlockDefinition) => (d.source.from === "children" ? ":::" : "::");
      const definition = theme.blocks.find((d) => d.name === name);
      if (!definition || (definition.source.from === "children") !== isContainer) {
        const names = theme.blocks.map((d) => d.name);
        const guess = definition ?? theme.blocks.find((d) => d.name === nearest(name, names));
        fail(
          node,
          `unknown block \`${isContainer ? ":::" : "::"}${name}\``,
          guess ? `did you mean \`${marker(guess)}${guess.name}\`?` : `known blocks: ${theme.blocks.map((d) => `${marker(d)}${d.name}`).join(", ")}`,
        );
        return;
      }
      // The block's component and schema: the body is made again when its module changes.
      result.reads.push(dep.code(`block:${name}`));
      const attributes = Object.fromEntries(
        Object.entries(node.attributes ?? {}).filter((e): e is [string, string] => typeof e[1] === "string"),
      );
      const headingLevel = Math.min(sectionDepth + 1, 6) as HeadingLevel;
      const block: ResolvedBlock = { definition, attributes, headingLevel };
      const source = definition.source;
      if (source.from === "data") {
        const data = blockData(name, source.schema, attributes, node);
        if (data === undefined) return;
        block.data = data;
      } else if (source.from === "site") {
        result.reads.push(dep.block(name));
        const outcome = outcomeIn((session.values ??= siteValues(content, theme)).blocks, name);
        if (outcome && "thrown" in outcome && content.unavailable.length > 0) {
          // Its function read a file that did not load (its errors are reported).
          result.unavailable = `the data of ::${name}`;
          return;
        }
        block.data = outcome && outcomeValue(outcome);
      }
      for (const [attribute, hint] of Object.entries(definition.required ?? {})) {
        if (!attributes[attribute]) fail(node, `\`${marker(definition)}${name}\` needs the attribute \`${attribute}\``, hint);
      }
      const index = blocks.push(block) - 1;
      node.data = { ...node.data, hName: "cafe-block", hProperties: { dataBlock: String(index) } };
      if (!isContainer) node.children = [];
    }

    /**
     * Block data validated by its schema, or taken as it is when the last parse of this body found
     * the same data valid with the same code and parsed to itself (`blockDataKey`); noted for the
     * next parse when it parses to itself now.
     */
    function validated(name: string, schema: import("zod").ZodType, value: unknown): ReturnType<import("zod").ZodType["safeParse"]> {
      const keyed = blockDataKey(name, value, known);
      if (keyed && known!.valid.includes(keyed.key)) {
        (result.valid ??= []).push(keyed.key);
        return { success: true, data: JSON.parse(keyed.json) as unknown };
      }
      const parsed = schema.safeParse(value);
      if (keyed && parsed.success && exactJson(parsed.data) && JSON.stringify(parsed.data) === keyed.json) (result.valid ??= []).push(keyed.key);
      return parsed;
    }

    function blockData(name: string, schema: import("zod").ZodType, attributes: Record<string, string>, node: Nodes): unknown {
      if (attributes.src) {
        result.reads.push(dep.data(attributes.src));
        const table = content.data.get(attributes.src);
        // A data file that did not load (its errors are reported): this body is left out of the run.
        if (table && content.unavailable.includes(table.file)) {
          result.unavailable = table.file;
          return undefined;
        }
        if (!table) {
          const guess = nearest(attributes.src, [...content.data.keys()]);
          fail(
            node,
            `\`::${name}\` reads data/${attributes.src}.json, which does not exist`,
            guess ? `did you mean src="${guess}"?` : `put the table in ${content.root}/data/${attributes.src}.json`,
          );
          return undefined;
        }
        const parsed = validated(name, schema, table.value);
        if (!parsed.success) {
          result.errors.push(...schemaErrors(parsed.error.issues, table.file, table.source, locatorOf(table)).map(plainIssue));
          return undefined;
        }
        return parsed.data;
      }
      const key = attributes.data ?? camelCase(name);
      consumedKeys.add(key);
      if (!(key in article.frontMatter)) {
        fail(
          node,
          `\`::${name}\` needs data, but the front matter has no \`${key}\``,
          `add \`${key}:\` to the front matter, or point the block at another key with {data="..."}`,
        );
        return undefined;
      }
      const parsed = validated(name, schema, article.frontMatter[key]);
      if (!parsed.success) {
        result.errors.push(...schemaErrors(parsed.error.issues, article.file, sourceText(article), locatorOf(article), [key]).map(plainIssue));
        return undefined;
      }
      return parsed.data;
    }
  };
}
