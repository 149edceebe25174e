/**
 * Stage 3 — markdown: one article's Markdown → React elements, through unified
 * (remark-parse, remark-gfm, remark-directive, remark-rehype, rehype-react).
 *
 * Directives become validated blocks; links are checked against the link policy; headings
 * get ids; raw HTML is dropped with a warning, never passed through.
 */
import type { ReactElement } from "react";
import { Fragment, jsx, jsxs } from "react/jsx-runtime";
import { unified } from "unified";
import remarkParse from "remark-parse";
import remarkGfm from "remark-gfm";
import remarkDirective from "remark-directive";
import remarkRehype from "remark-rehype";
import rehypeReact from "rehype-react";
import { visit, SKIP } from "unist-util-visit";
import GithubSlugger from "github-slugger";
import { VFile } from "vfile";
import type { Root, Nodes, Parents, Text } from "mdast";
import type { ContainerDirective, LeafDirective, TextDirective } from "mdast-util-directive";
import { toString } from "mdast-util-to-string";
import { ContentError, type ContentWarning } from "./errors.js";
import type { Article, SiteContent } from "./content.js";
import { ARTICLE_KEYS, blockSchemas, containerBlocks, siteBlocks, type LeafBlockName } from "./schema.js";
import { nearest, schemaErrors } from "./yaml-source.js";
import { markdownComponents } from "../templates/markdown-components.js";

/** A directive resolved to its validated data, rendered by templates/blocks. */
export interface ResolvedBlock {
  name: string;
  data?: unknown;
  attributes: Record<string, string>;
  /** Level for the block's own headings: one below the section it stands in (2 to 6). */
  headingLevel: HeadingLevel;
}
export type HeadingLevel = 2 | 3 | 4 | 5 | 6;

/** An internal link found in Markdown, checked against the route table by the build. */
export interface InternalLink {
  url: string;
  file: string;
  line?: number;
  column?: number;
}

export interface MarkdownResult {
  body: ReactElement;
  blocks: ResolvedBlock[];
  links: InternalLink[];
  headings: { id: string; text: string; depth: number }[];
  errors: ContentError[];
  warnings: ContentWarning[];
}

interface PipelineData {
  article: Article;
  content: SiteContent;
  result: Omit<MarkdownResult, "body">;
}

const LEAF_BLOCKS = [...Object.keys(blockSchemas), ...siteBlocks];
const ALL_BLOCKS = [...LEAF_BLOCKS, ...containerBlocks];

const toReact = { Fragment, jsx, jsxs, components: markdownComponents, passKeys: true, passNode: false } as const;
const processor = unified()
  .use(remarkParse)
  .use(remarkGfm)
  .use(remarkDirective)
  .use(remarkSiteBlocks)
  .use(remarkRehype)
  .use(rehypeReact, toReact);

/**
 * The same pipeline without the GFM and directive extensions, for text in which they can
 * match nothing: every GFM construct and every directive needs one of the characters
 * `USES_EXTENSIONS` looks for. Skipping them halves the parse time of plain prose and
 * changes no output.
 */
const leanProcessor = unified().use(remarkParse).use(remarkSiteBlocks).use(remarkRehype).use(rehypeReact, toReact);
const USES_EXTENSIONS = /[|~@:]|\[\^|\[[ xX]\]|www\./;

/**
 * Renders an article's Markdown body. Never throws for bad content: errors are returned.
 * `lean: false` always uses the full pipeline (the reference the lean one must equal).
 */
export function renderMarkdown(article: Article, content: SiteContent, options: { lean?: boolean } = {}): MarkdownResult {
  const result: PipelineData["result"] = { blocks: [], links: [], headings: [], errors: [], warnings: [] };
  const markdown = article.markdown;
  const file = new VFile({ path: article.file, value: markdown });
  file.data.pipeline = { article, content, result } satisfies PipelineData;
  const pipeline = options.lean !== false && !USES_EXTENSIONS.test(markdown) ? leanProcessor : processor;
  const body = pipeline.processSync(file).result as ReactElement;
  return { body, ...result };
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
function remarkSiteBlocks() {
  return (tree: Root, file: VFile) => {
    const { article, content, result } = file.data.pipeline!;
    const consumedKeys = new Set<string>();
    const slugger = new GithubSlugger();
    // The page title is the h1; a block's headings go one level below the last heading.
    let sectionDepth = 1;
    const at = (node: Nodes) => ({ line: node.position?.start.line, column: node.position?.start.column });
    const fail = (node: Nodes, message: string, hint?: string) =>
      result.errors.push(new ContentError({ file: article.file, ...at(node), source: article.source, message, hint }));

    visit(tree, (node, index, parent: Parents | undefined) => {
      switch (node.type) {
        case "html":
          result.warnings.push({
            file: article.file,
            line: node.position?.start.line,
            message: "raw HTML is not rendered; use Markdown or a block directive instead",
          });
          if (parent && index !== undefined) {
            parent.children.splice(index, 1);
            return [SKIP, index];
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
        case "image":
          checkUrl(node.url, node);
          return;
        case "textDirective":
          // `:word` in prose ("Dica:algo") is text, not a directive: give it back as written.
          if (parent && index !== undefined) {
            const start = node.position?.start.offset;
            const end = node.position?.end.offset;
            const value = start !== undefined && end !== undefined ? String(file.value).slice(start, end) : `:${node.name}`;
            parent.children.splice(index, 1, { type: "text", value } satisfies Text);
            return [SKIP, index + 1];
          }
          return;
        case "leafDirective":
        case "containerDirective":
          resolveDirective(node);
          return;
      }
    });

    for (const key of Object.keys(article.frontMatter)) {
      if (ARTICLE_KEYS.includes(key) || consumedKeys.has(key)) continue;
      const guess = nearest(key, ARTICLE_KEYS);
      const pos = article.locate([key], { key: true });
      result.errors.push(
        new ContentError({
          file: article.file,
          line: pos?.line,
          column: pos?.column,
          source: article.source,
          key,
          message: `unknown front-matter key \`${key}\``,
          hint:
            guess !== undefined
              ? `did you mean \`${guess}\`?`
              : `front-matter keys are ${ARTICLE_KEYS.join(", ")}, plus data for a block placed in the body (e.g. \`::stat-cards\` reads \`statCards\`)`,
        }),
      );
    }

    function checkUrl(url: string, node: Nodes) {
      if (url.startsWith("/") && !url.startsWith("//")) {
        result.links.push({ url, file: article.file, ...at(node) });
      } else if (url.startsWith("#")) {
        result.links.push({ url: `${article.route}${url}`, file: article.file, ...at(node) });
      } else if (!/^(https?:\/\/[^\s/]+|mailto:\S+@)/i.test(url)) {
        fail(
          node,
          `link target \`${url}\` is not allowed`,
          "link to an http(s) or mailto address, a route of this site such as /artigo-transicao, or an #anchor",
        );
      }
    }

    function resolveDirective(node: LeafDirective | ContainerDirective) {
      const name = node.name;
      const isContainer = node.type === "containerDirective";
      const known = isContainer ? (containerBlocks as readonly string[]) : LEAF_BLOCKS;
      if (!known.includes(name)) {
        const guess = nearest(name, ALL_BLOCKS);
        const marker = isContainer ? ":::" : "::";
        fail(
          node,
          `unknown block \`${marker}${name}\``,
          guess ? `did you mean \`${ALL_BLOCKS.includes(guess) && (containerBlocks as readonly string[]).includes(guess) ? ":::" : "::"}${guess}\`?` : `known blocks: ${ALL_BLOCKS.join(", ")}`,
        );
        return;
      }
      const attributes = Object.fromEntries(
        Object.entries(node.attributes ?? {}).filter((e): e is [string, string] => typeof e[1] === "string"),
      );
      const headingLevel = Math.min(sectionDepth + 1, 6) as HeadingLevel;
      const block: ResolvedBlock = { name, attributes, headingLevel };
      if (name in blockSchemas) {
        const data = blockData(name as LeafBlockName, attributes, node);
        if (data === undefined) return;
        block.data = data;
      } else if (name === "editions-carousel") {
        block.data = content.editions.value.filter((e) => !content.draftRoutes.has(e.route));
      }
      if (name === "quote" && !attributes.author) {
        fail(node, "`:::quote` needs an author", 'write it as :::quote{author="Nome"}');
      }
      const index = result.blocks.push(block) - 1;
      node.data = { ...node.data, hName: "cafe-block", hProperties: { dataBlock: String(index) } };
      if (!isContainer) node.children = [];
    }

    function blockData(name: LeafBlockName, attributes: Record<string, string>, node: Nodes): unknown {
      const schema = blockSchemas[name];
      if (attributes.src) {
        const table = content.data.get(attributes.src);
        if (!table) {
          const guess = nearest(attributes.src, [...content.data.keys()]);
          fail(
            node,
            `\`::${name}\` reads data/${attributes.src}.json, which does not exist`,
            guess ? `did you mean src="${guess}"?` : `put the table in ${content.root}/data/${attributes.src}.json`,
          );
          return undefined;
        }
        const parsed = schema.safeParse(table.value);
        if (!parsed.success) {
          result.errors.push(...schemaErrors(parsed.error.issues, table.file, table.source, table.locate));
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
      const parsed = schema.safeParse(article.frontMatter[key]);
      if (!parsed.success) {
        result.errors.push(...schemaErrors(parsed.error.issues, article.file, article.source, article.locate, [key]));
        return undefined;
      }
      return parsed.data;
    }
  };
}
