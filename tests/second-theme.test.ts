/**
 * The engine is a generator, not this blog: a second theme (an English-only notebook, in
 * tests/fixtures/notebook) builds its own content with the same engine.
 */
import { describe, expect, it } from "vitest";
import path from "node:path";
import { writeFile } from "node:fs/promises";
import { SiteBuilder } from "../engine/pipeline/site-builder.js";
import { MemoryWriter } from "../engine/stages/write/writers.js";
import { notebook } from "./fixtures/notebook/theme/theme.js";
import { editedFixture, parseHtml, projectRoot, text, testCode } from "./helpers.js";

/** The notebook is a site of its own: its folder is its root (its asset entries are relative to it). */
const siteRoot = path.join(projectRoot, "tests/fixtures/notebook");
const contentDir = path.join(siteRoot, "content");

async function build(dir = contentDir) {
  const writer = new MemoryWriter();
  const result = await new SiteBuilder({ codeVersion: testCode(), contentDir: dir, projectRoot: siteRoot, theme: notebook }).build(writer);
  return { ...result, writer };
}

describe("a second theme on the same engine", () => {
  it("builds its list page, its notes and its 404 page, with none of the blog's parts", async () => {
    const { ok, errors, routes, writer } = await build();
    expect(errors).toEqual([]);
    expect(ok).toBe(true);
    expect(routes.map((r) => r.path)).toEqual(["/", "/404", "/about", "/notes/margins", "/notes/reading-slowly", "/tags/reading"]);

    const list = parseHtml(writer.text("index.html"));
    expect(list.documentElement.getAttribute("lang")).toBe("en");
    expect([...list.querySelectorAll(".notes a")].map((a) => [a.getAttribute("href"), text(a)])).toEqual([
      ["/notes/margins", "Margins"],
      ["/notes/reading-slowly", "Reading slowly"],
    ]);

    const note = parseHtml(writer.text("notes/reading-slowly.html"));
    expect(note.title).toBe("Reading slowly · Field Notebook");
    expect(note.querySelector("time")?.getAttribute("datetime")).toBe("2025-10-02");
    expect(note.querySelector("h2#why-slow")).not.toBeNull();
    expect(text(note.querySelector(".glossary dt"))).toBe("Marginalia");
    expect(note.querySelector(".glossary h3")).not.toBeNull();
    // No islands, no newsletter, no client script: the theme has none.
    expect(note.querySelector("script, [data-island], form")).toBeNull();
    expect(note.querySelector('link[rel="stylesheet"]')?.getAttribute("href")).toMatch(/^\/assets\/style-[A-Z0-9]+\.css$/);
    expect(text(parseHtml(writer.text("404.html")).querySelector("h1"))).toBe("Nothing here");
    // A page per tag, made from the notes that carry it; each note links to its tags' pages.
    expect([...note.querySelectorAll(".tags a")].map((a) => a.getAttribute("href"))).toEqual(["/tags/reading"]);
    const tagged = parseHtml(writer.text("tags/reading.html"));
    expect(text(tagged.querySelector("h1"))).toBe("Notes tagged reading");
    expect([...tagged.querySelectorAll(".notes a")].map((a) => a.getAttribute("href"))).toEqual(["/notes/reading-slowly"]);

    const feed = writer.text("feed.xml");
    expect(feed).toContain("<language>en</language>");
    expect(feed).toContain("https://notes.example.org/notes/reading-slowly");
  });

  it("knows only its own blocks, and checks its links and front matter like any site", async () => {
    const dir = await editedFixture("notebook", {
      "content/articles/notes/margins.md": "---\ntitle: Margins\nlang: pt\n---\n\n::pillars\n\n[x](/notes/none)\n",
    });
    const { ok, errors } = await build(path.join(dir, "content"));
    expect(ok).toBe(false);
    // The body is checked all the same (issue 39): one run, every error.
    expect(errors.map((e) => e.message)).toEqual(["`lang` must be one of en; got 'pt'", "unknown block `::pillars`", "broken link: no page has the route /notes/none"]);

    await writeFile(path.join(dir, "content/articles/notes/margins.md"), "---\ntitle: Margins\n---\n\n::pillars\n\n[x](/notes/none)\n");
    const again = await build(path.join(dir, "content"));
    // All in one run: the other note's link to a heading the edit removed too (anchors are checked on the rendered pages).
    expect(again.errors.map((e) => `${e.file.split("/").pop()}:${e.line}: ${e.message}`)).toEqual([
      "margins.md:5: unknown block `::pillars`",
      "margins.md:7: broken link: no page has the route /notes/none",
      "reading-slowly.md:12: broken link: /notes/margins has no element with the id #what-to-write",
    ]);
    expect(again.errors[0]!.hint).toBe("known blocks: ::glossary");
  });

  it("speaks English, the site's language: a date reads as an English reader writes it, and the hints' examples are English", async () => {
    const note = parseHtml((await build()).writer.text("notes/reading-slowly.html"));
    // Written 2025-10-02: not 02/10/2025, which an English reader takes for February 10.
    expect(text(note.querySelector("time"))).toBe("Oct 2, 2025");

    const dir = await editedFixture("notebook", {
      "content/articles/notes/margins.md": "---\ntitle: Margins\ndate: yesterday\n---\n\nNotes.\n",
      "content/articles/about.md": "---\ntitle: About\n---\n\n![](./nowhere.png)\n",
    });
    const { errors } = await build(path.join(dir, "content"));
    const messages = errors.map((e) => `${e.message} ${e.hint ?? ""}`).join("\n");
    expect(messages).toContain('month and year ("August 2025")');
    expect(messages).toContain("![The team around the table](./nowhere.png)");
    expect(messages).not.toMatch(/Agosto|Foto da equipe/);
  });
});
