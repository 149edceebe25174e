/**
 * Keys of the code (engine/incremental/code-keys.ts), end to end: after an edit to the theme's code, a
 * build renders again only the bodies and pages whose parts reach the edited module, and
 * writes exactly what a cold build writes; where the engine cannot tell which modules a part
 * uses, it counts them all. The command line on a copy of the project and of the basic
 * fixture (3 articles: /primeiro with its English version, /guia/so-titulo; 4 pages with the
 * home page and the 404).
 */
import { describe, expect, it } from "vitest";
import { copyFile, readFile, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { cliSite, fixture } from "./helpers.js";

// Each test on a copy of its own, with its own cache: run side by side (the command's builds are
// most of their time, one core each, and integration files run one at a time).
describe.concurrent("a build after an edit to the theme's code", () => {
  it("keeps every body across a template edit and renders again only the pages whose template reaches it", async () => {
    const { project, compare, edit } = await cliSite();
    const cold = await compare();
    expect([cold.parsed, cold.rendered]).toEqual([3, 4]);
    // One body edited first: the store's texts are then in two packs, the old text of that body
    // lying among the others in the first (the store reads a pack's texts in runs, across it).
    await edit("articles/primeiro.md", (t) => `${t}\nMais uma frase.\n`);
    expect((await compare()).parsed).toBe(1);

    // The article's view: the article pages show it, and so does the home page (its featured article); the 404 does not.
    await edit(path.join(project, "templates/article-view.tsx"), (t) => t.replace('<article className="article">', '<article className="article" data-view="2">'));
    const view = await compare();
    expect({ unchanged: view.unchanged, parsed: view.parsed, rendered: view.rendered }).toEqual({ unchanged: 1, parsed: 0, rendered: 3 });

    // The article template's own module: the two article pages only.
    await edit(path.join(project, "templates/pages/article-page.tsx"), (t) => t.replace('className="back-link"', 'className="back-link" data-page="2"'));
    const page = await compare();
    expect({ unchanged: page.unchanged, parsed: page.parsed, rendered: page.rendered }).toEqual({ unchanged: 2, parsed: 0, rendered: 2 });
  }, 300_000);

  it("keeps every page and body after an edit to the code's comments or layout only, as a cold build writes them, and renders again after an edit that changes the code", async () => {
    const { project, out, compare, edit } = await cliSite();
    await compare();
    const inode = async () => (await stat(path.join(out, "site/primeiro.html"))).ino;
    const before = await inode();

    // Comments (a line's, one in JSX), a blank line, a line indented otherwise and one broken in two in a template's module: esbuild makes the same code of it, so every page is the same.
    await edit(path.join(project, "templates/article-view.tsx"), (t) =>
      `${t}\n// a note to self\n`
        .replace("  const { site } = ctx;", "\n      const {\n    site, // the site\n  } = ctx;\n")
        .replace('<header className="article-header">', '<header className="article-header">{/* the header */}'),
    );
    const note = await compare();
    expect({ unchanged: note.unchanged, parsed: note.parsed, rendered: note.rendered }).toEqual({ unchanged: 4, parsed: 0, rendered: 0 });
    // The page is the live build's file, not a copy of it written again.
    expect(await inode()).toBe(before);

    // A comment in the theme's own module (counted in the version of all the code): nothing made again either.
    await edit(path.join(project, "templates/theme.tsx"), (t) => t.replace('name: "cafe-com-a-cris",', 'name: "cafe-com-a-cris", // the blog'));
    const version = await compare();
    expect({ unchanged: version.unchanged, parsed: version.parsed, rendered: version.rendered }).toEqual({ unchanged: 4, parsed: 0, rendered: 0 });

    // A change of the code, however small, in the same module: the pages that reach it are rendered again.
    await edit(path.join(project, "templates/article-view.tsx"), (t) => t.replace('const Heading = headingLevel === 1 ? "h1" : "h2";', 'const Heading = headingLevel !== 1 ? "h2" : "h1";'));
    const code = await compare();
    expect({ parsed: code.parsed, rendered: code.rendered }).toEqual({ parsed: 0, rendered: 3 });
  }, 300_000);

  it("parses again only the bodies that place a block whose component changed, and every body after a Markdown override's edit", async () => {
    const { project, compare, edit } = await cliSite();
    await compare();

    // ::tool-table is placed in primeiro.md only: its body is parsed again, and its page (with the home page, which features it) rendered.
    await edit(path.join(project, "templates/blocks/tables.tsx"), (t) => t.replace('className="data-table tool-table"', 'className="data-table tool-table tool-table-2"'));
    const block = await compare();
    expect(block.unchanged).toBe(2);
    expect({ parsed: block.parsed, rendered: block.rendered }).toEqual({ parsed: 1, rendered: 2 });

    // The Markdown overrides make every body.
    await edit(path.join(project, "templates/markdown-components.tsx"), (t) => t.replace('className="table-scroll"', 'className="table-scroll md-2"'));
    const overrides = await compare();
    expect(overrides.parsed).toBe(3);
  }, 300_000);

  it("equals a cold build after an edit to a stylesheet, an image, the social card or the engine, and counts every module where it cannot tell", async () => {
    const { project, content, compare, edit } = await cliSite();
    // An image in an article (copied from the images fixture).
    const photos = path.join(fixture("images"), "content/articles/com-fotos");
    await copyFile(path.join(photos, "capa.jpg"), path.join(content, "articles/guia/foto.jpg"));
    await edit("articles/guia/so-titulo.md", (t) => `${t}\n![Uma foto](foto.jpg)\n`);
    await compare();

    // The stylesheet: bundled again; no body parsed.
    await edit(path.join(project, "templates/styles.css"), (t) => `${t}\n.estilo-novo { color: red; }\n`);
    const css = await compare();
    expect(css.parsed).toBe(0);

    // The image replaced by another.
    await copyFile(path.join(photos, "equipe.jpg"), path.join(content, "articles/guia/foto.jpg"));
    const image = await compare();
    expect(image.parsed).toBe(0);

    // The social card's look (its module is not named by the theme: all of the code counts).
    await edit(path.join(project, "templates/social-card.tsx"), (t) => t.replace("letterSpacing: -1", "letterSpacing: -2"));
    await compare();

    // An engine file: a new version of everything.
    await edit(path.join(project, "engine/stages/render/site-files.ts"), (t) => t.replace("User-agent: *\\nAllow: /", "User-agent: *\\nAllow: /\\n"));
    const engine = await compare();
    expect({ parsed: engine.parsed, unchanged: engine.unchanged }).toEqual({ parsed: 3, unchanged: 0 });

    // A template module that imports a path made at run time: the engine cannot tell what it reaches.
    const articlePage = path.join(project, "templates/pages/article-page.tsx");
    await edit(articlePage, (t) => `${t}\nexport const later = (name: string) => import(\`../${"${name}"}.js\`);\n`);
    const computed = await compare();
    expect(computed.printed).toContain("templates/pages/article-page.tsx (reached from its template 'article') imports a path made at run time");
    // ...so an edit to it is an edit to all of the code.
    await writeFile(articlePage, (await readFile(articlePage, "utf8")).replace('className="back-link"', 'className="back-link" data-page="3"'));
    const after = await compare();
    expect({ parsed: after.parsed, unchanged: after.unchanged }).toEqual({ parsed: 3, unchanged: 0 });
  }, 300_000);
});

describe("a second theme's build after an edit to its code (the notebook fixture)", () => {
  it("renders again only the notes after an edit to the note's template, only the tag's page after the tag's, and only the body with the block after the block's", async () => {
    // 6 pages: the list, /tags/reading, 3 notes (/about, /notes/margins, /notes/reading-slowly) and the 404.
    const { root, compare, edit } = await cliSite({ site: "notebook" });
    const cold = await compare();
    expect([cold.parsed, cold.rendered]).toEqual([3, 6]);

    await edit(path.join(root, "theme/article.tsx"), (t) => t.replace('<div className="note-body"', '<div data-note="2" className="note-body"'));
    const note = await compare();
    expect({ unchanged: note.unchanged, parsed: note.parsed, rendered: note.rendered }).toEqual({ unchanged: 3, parsed: 0, rendered: 3 });

    await edit(path.join(root, "theme/tag.tsx"), (t) => t.replace("<h1>Notes tagged {tagged}</h1>", "<h1>Tagged: {tagged}</h1>"));
    const tag = await compare();
    expect({ unchanged: tag.unchanged, parsed: tag.parsed, rendered: tag.rendered }).toEqual({ unchanged: 5, parsed: 0, rendered: 1 });

    // ::glossary is placed in /notes/reading-slowly only.
    await edit(path.join(root, "theme/glossary.tsx"), (t) => t.replace('className="glossary"', 'className="glossary glossary-2"'));
    const block = await compare();
    expect({ unchanged: block.unchanged, parsed: block.parsed, rendered: block.rendered }).toEqual({ unchanged: 5, parsed: 1, rendered: 1 });
  }, 300_000);
});
