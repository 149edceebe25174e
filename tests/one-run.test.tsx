/**
 * One run, every error (issue 32): a build with errors still runs every check it can on what
 * loaded (routes, duplicates, Markdown links and anchors, the links the templates write),
 * reports them all in one list ordered by file, and writes nothing. Nothing is reported
 * because of another error: a note that does not load takes its tag's page and its own
 * address with it, and neither is an error of its own.
 */
import { describe, expect, it } from "vitest";
import path from "node:path";
import { readFile, rm } from "node:fs/promises";
import { SiteBuilder } from "../engine/pipeline/site-builder.js";
import { MemoryWriter } from "../engine/stages/write/writers.js";
import { notebook } from "./fixtures/notebook/theme/theme.js";
import { buildInMemory, editedFixture, projectRoot, testCode } from "./helpers.js";

const NOTEBOOK_THEME = "tests/fixtures/notebook/theme";

async function buildNotebook(dir: string) {
  const writer = new MemoryWriter();
  // The notebook is a site of its own: its folder is its root.
  const result = await new SiteBuilder({ codeVersion: testCode(), contentDir: path.join(dir, "content"), projectRoot: dir, theme: notebook, themeFolders: ["theme"] }).build(writer);
  return { ...result, writer };
}

/** `file:line: message`, the copy's folder left out. */
const shown = (errors: { file: string; line?: number; message: string }[], dir: string) => {
  const copy = `${path.relative(projectRoot, dir)}/`;
  return errors.map((e) => `${e.file}${e.line ? `:${e.line}` : ""}: ${e.message}`.replaceAll(copy, ""));
};

/** The line of `text` in a file of the project. */
async function lineOf(file: string, text: string): Promise<number> {
  const lines = (await readFile(path.join(projectRoot, file), "utf8")).split("\n");
  return lines.findIndex((l) => l.includes(text)) + 1;
}

describe("a site with six mistakes, built once", async () => {
  const dir = await editedFixture("notebook", {
    // A misspelt key: `titel`. The only note tagged dessert, published before (its page and its tag's).
    "content/articles/notes/pudding.md": "---\ntitel: Pudding\ntags: [dessert]\n---\n\nSweet.\n",
    "content/published-routes.txt": (s) => `${s.replace("/about\n", "")}/notes/pudding\n/tags/dessert\n`,
    // A wrong type: a glossary definition must be text.
    "content/articles/notes/reading-slowly.md": (s) => s.replace("definition: Notes written in the margins of a book.", "definition: 42"),
    // A broken route link and a bad #anchor.
    "content/articles/notes/margins.md": (s) => `${s}\nSee [nowhere](/notes/nowhere) and [the reason](/notes/reading-slowly#why-fast).\n`,
    // A duplicate route.
    "content/articles/notes/margins-again.md": "---\ntitle: Margins again\nroute: /notes/margins\n---\n\nTwice.\n",
  });
  // A template link to a missing route: every page's header links to /about, which this site no longer has.
  await rm(path.join(dir, "content/articles/about.md"));
  const result = await buildNotebook(dir);
  const headerLine = await lineOf(`${NOTEBOOK_THEME}/page.tsx`, 'href="/about"');

  it("reports all six in one list, ordered by file, and writes nothing", async () => {
    expect(result.ok).toBe(false);
    expect(shown(result.errors, dir)).toEqual([
      "content/articles/notes/margins-again.md:3: two articles have the route /notes/margins: content/articles/notes/margins-again.md and content/articles/notes/margins.md",
      "content/articles/notes/margins.md:9: broken link: no page has the route /notes/nowhere",
      "content/articles/notes/margins.md:9: broken link: /notes/reading-slowly has no element with the id #why-fast",
      "content/articles/notes/pudding.md:2: `title` is required",
      "content/articles/notes/reading-slowly.md:7: `glossary[0].definition` Invalid input: expected string, received number",
      `theme/page.tsx:${headerLine}: broken link: no page has the route /about (a link written in the theme's code)`,
    ]);
    expect(result.writer.files.size).toBe(0);
  });

  it("names the template's line, with its code frame", () => {
    const template = result.errors.at(-1)!;
    expect(template.line).toBe(headerLine);
    expect(template.column).toBeGreaterThan(0);
    expect(template.source!.split("\n")[headerLine - 1]).toContain('<a href="/about">About</a>');
  });

  it("says nothing of what the note that did not load took with it: its published address, its tag's page", () => {
    const all = result.errors.map((e) => `${e.message} ${e.hint ?? ""}`).join("\n");
    expect(all).not.toContain("/tags/dessert");
    expect(all).not.toContain("/notes/pudding");
    expect(result.warnings.map((w) => w.message).join("\n")).not.toContain("/tags/dessert");
  });
});

describe("a collection that does not load hides nothing else", () => {
  it("site.yaml with a wrong type: its error, the articles' own, and nothing that only echoes it", async () => {
    const dir = await editedFixture("basic", {
      "site.yaml": (s) => s.replace("author: Cris", "author: 42"),
      // The theme lists its pages from site.yaml: a link to a page that is not an article cannot be judged now.
      "articles/guia/so-titulo.md": "---\ntitle: Só título\n---\n\nVeja [isto](/nao-existe), [a capa](/) e [o primeiro](/primeiro).\n\n::nada\n",
      "articles/guia/outro.md": "---\ntitle: Outro\nroute: /primeiro\n---\n\nTexto.\n",
    });
    const result = await buildInMemory(dir);
    expect(result.ok).toBe(false);
    expect(shown(result.errors, dir)).toEqual([
      "articles/guia/outro.md:3: two articles have the route /primeiro: articles/guia/outro.md and articles/primeiro.md",
      "articles/guia/so-titulo.md:7: unknown block `::nada`",
      "site.yaml:5: `author` Invalid input: expected string, received number",
    ]);
  });

  it("cards.yaml with a wrong type: its error, and the article's broken #anchor, in one run; the home page that needs the cards says nothing", async () => {
    const dir = await editedFixture("basic", {
      "cards.yaml": (s) => s.replace("readTime: 5", "readTime: cinco"),
      "articles/guia/so-titulo.md": "---\ntitle: Só título\n---\n\nVeja [aquilo](/primeiro#nada).\n",
    });
    const result = await buildInMemory(dir);
    expect(result.ok).toBe(false);
    expect(shown(result.errors, dir)).toEqual([
      "articles/guia/so-titulo.md:5: broken link: /primeiro has no element with the id #nada",
      "cards.yaml:7: `[0].readTime` must be a whole number of minutes, like 8; got 'cinco'",
    ]);
  });
});

describe("an article whose front matter fails (issue 39)", () => {
  it("still has its body checked in the same run: its unknown block, its broken link and its broken #anchors, at their lines", async () => {
    const dir = await editedFixture("notebook", {
      // `tgas` is no key of the notebook's, and `title` is missing: the front matter fails its schema.
      "content/articles/notes/margins.md":
        "---\ntgas: [reading]\n---\n\n## What to write\n\nSee [nowhere](/notes/nowhere), [the reason](/notes/reading-slowly#why-fast) and [below](#what-to-read).\n\n::pillars\n",
    });
    const result = await buildNotebook(dir);
    expect(result.ok).toBe(false);
    expect(shown(result.errors, dir)).toEqual([
      "content/articles/notes/margins.md:2: `title` is required",
      "content/articles/notes/margins.md:2: unknown front-matter key `tgas`",
      "content/articles/notes/margins.md:7: broken link: no page has the route /notes/nowhere",
      "content/articles/notes/margins.md:7: broken link: /notes/reading-slowly has no element with the id #why-fast",
      "content/articles/notes/margins.md:7: broken link: /notes/margins has no element with the id #what-to-read",
      "content/articles/notes/margins.md:9: unknown block `::pillars`",
    ]);
    // A link from another note to this one's heading is not reported: the note did not load, its page is unknown.
    expect(result.writer.files.size).toBe(0);
  });

  it("a body that cannot be told from its front matter (the YAML does not parse) is not checked: one error", async () => {
    const dir = await editedFixture("notebook", {
      "content/articles/notes/margins.md": "---\ntitle: [Margins\n---\n\nSee [nowhere](/notes/nowhere).\n",
    });
    const result = await buildNotebook(dir);
    expect(result.ok).toBe(false);
    expect(result.errors).toHaveLength(1);
    expect(result.errors[0]!.file).toContain("margins.md");
  });
});

describe("what a page does that fails in the browser, though it builds (issue 39)", () => {
  it("warns, once and at the theme's line, of a favicon that names no file, an inline script the policy blocks and an inline handler", async () => {
    const dir = await editedFixture("notebook", {});
    // The favicon siteMeta names, gone from public/.
    await rm(path.join(dir, "public/favicon.svg"));
    const theme: typeof notebook = {
      ...notebook,
      templates: {
        ...notebook.templates,
        article: (ctx) => {
          const route = ctx.route as Extract<typeof ctx.route, { kind: "article" }>;
          return (
            <html lang="en">
              <head>
                <meta charSet="utf-8" />
                <meta httpEquiv="Content-Security-Policy" content={ctx.csp} />
                <title>{route.article.main.meta.title}</title>
                <link rel="icon" href={notebook.siteMeta(ctx.site).favicon} />
                <script dangerouslySetInnerHTML={{ __html: "window.counted = (window.counted || 0) + 1;" }} />
                <script type="application/ld+json" dangerouslySetInnerHTML={{ __html: '{"@type":"Article"}' }} />
              </head>
              <body>
                <main id="main" dangerouslySetInnerHTML={{ __html: `<h1>${route.article.main.meta.title}</h1>${ctx.bodyOf(route.article.main)}<button onclick="go()">Go</button>` }} />
              </body>
            </html>
          );
        },
      },
    };
    const writer = new MemoryWriter();
    const result = await new SiteBuilder({ codeVersion: testCode(), contentDir: path.join(dir, "content"), projectRoot: dir, theme, themeFolders: ["theme"] }).build(writer);
    expect(result.errors).toEqual([]);
    const faviconLine = await lineOf(`${NOTEBOOK_THEME}/theme.tsx`, 'favicon: "/favicon.svg"');
    const warnings = result.warnings.map((w) => `${w.file}${w.line ? `:${w.line}` : ""}: ${w.message}`);
    expect(warnings.filter((w) => w.includes("/favicon.svg"))).toEqual([
      `theme/theme.tsx:${faviconLine}: the favicon (siteMeta's \`favicon\`) /favicon.svg names no file of the site: every page's browser asks for it and gets a 404; put the file in public/, or correct the path`,
    ]);
    expect(warnings.filter((w) => w.includes("inline <script>"))).toHaveLength(1);
    expect(warnings.find((w) => w.includes("inline <script>"))).toContain("window.counted");
    expect(warnings.filter((w) => w.includes("inline event handler"))).toEqual([
      "the 'article' template (page /about): an inline event handler (<button onclick>, on /about) is blocked by the page's Content-Security-Policy: attach the handler from a script of the theme's assets, or from an island",
    ]);
  });

  it("warns of the favicon siteMeta names even when no page links it: browsers ask for one all the same", async () => {
    const dir = await editedFixture("notebook", {});
    await rm(path.join(dir, "public/favicon.svg"));
    const result = await buildNotebook(dir);
    expect(result.ok).toBe(true);
    const line = await lineOf(`${NOTEBOOK_THEME}/theme.tsx`, 'favicon: "/favicon.svg"');
    expect(result.warnings.filter((w) => w.message.includes("favicon")).map((w) => `${w.file}:${w.line}`)).toEqual([`theme/theme.tsx:${line}`]);
  });

  it("says nothing of a site whose pages load only what it has", async () => {
    const result = await buildNotebook(await editedFixture("notebook", {}));
    expect(result.warnings.filter((w) => /names no file|Content-Security-Policy/.test(w.message))).toEqual([]);
  });
});
