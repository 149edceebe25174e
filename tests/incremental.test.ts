/** SiteBuilder.update: an edit rebuilds what it affects, and the result equals a full build. */
import { describe, expect, it } from "vitest";
import { rm, writeFile, readFile } from "node:fs/promises";
import path from "node:path";
import { SiteBuilder } from "../engine/pipeline/site-builder.js";
import { MemoryWriter } from "../engine/stages/write/writers.js";
import { comparable, editedFixture, projectCopy, projectRoot, testCode } from "./helpers.js";
import { theme } from "../templates/theme.js";

describe("incremental rebuilds", () => {
  it("an article edit re-renders its own page only, and the output equals a full build", async () => {
    const content = await editedFixture("basic", {});
    const builder = new SiteBuilder({ codeVersion: testCode(), contentDir: content, projectRoot, theme });
    const writer = new MemoryWriter();
    expect((await builder.build(writer)).ok).toBe(true);

    const file = path.join(content, "articles/guia/so-titulo.md");
    // A new title too: the page's social card gets a new name, and the old one must go.
    await writeFile(file, "---\ntitle: Só o título\n---\n\nNovo texto.\n");
    const result = await builder.update([file], writer);
    expect(result.ok).toBe(true);
    expect(result.changed.filter((f) => f.endsWith(".html"))).toEqual(["guia/so-titulo.html"]);

    const fresh = new MemoryWriter();
    await new SiteBuilder({ codeVersion: testCode(), contentDir: content, projectRoot, theme }).build(fresh);
    expect([...writer.files.keys()].sort()).toEqual([...fresh.files.keys()].sort());
    for (const [name, data] of fresh.files) expect(comparable(writer.files.get(name)), name).toEqual(comparable(data));
  });

  it("an article edit asks the writer once for every page it keeps, not once a page (issue 38: 100,000 questions took 8 s)", async () => {
    const content = await editedFixture("basic", {});
    const builder = new SiteBuilder({ codeVersion: testCode(), contentDir: content, projectRoot, theme });
    /** The questions about pages the builder asks: how many pages each names. */
    const asked: number[] = [];
    const writer = new (class extends MemoryWriter {
      override reuse(...args: Parameters<MemoryWriter["reuse"]>) {
        const files: unknown[] = args[0] instanceof Map ? [...args[0].keys()] : [args[0]];
        const pages = files.filter((f) => String(f).endsWith(".html")).length;
        if (pages > 0) asked.push(pages);
        return super.reuse(...args);
      }
    })();
    const cold = await builder.build(writer);
    expect(cold.ok).toBe(true);
    asked.length = 0;

    const file = path.join(content, "articles/guia/so-titulo.md");
    await writeFile(file, `${await readFile(file, "utf8")}\nUm parágrafo a mais.\n`);
    const result = await builder.update([file], writer);
    expect(result.ok).toBe(true);
    const pages = result.routes.length;
    expect(result.changed.filter((f) => f.endsWith(".html"))).toEqual(["guia/so-titulo.html"]);
    // Every page but the edited one (and those that show it) is asked of the writer, in one question.
    expect(asked).toHaveLength(1);
    expect(asked[0]).toBe(pages - result.rendered);
  });

  it("the whole-site checks cover every article, not only the one edited", async () => {
    const content = await editedFixture("basic", {});
    const builder = new SiteBuilder({ codeVersion: testCode(), contentDir: content, projectRoot, theme });
    const writer = new MemoryWriter();
    expect((await builder.build(writer)).ok).toBe(true);
    const messages = (r: { errors: { file?: string; message: string }[] }) => r.errors.map((e) => `${e.file}: ${e.message}`);

    const guide = path.join(content, "articles/guia/so-titulo.md");
    await writeFile(guide, "---\ntitle: Só título\n---\n\nVeja [isto](/nao-existe).\n");
    const broken = [`${path.relative(process.cwd(), guide)}: broken link: no page has the route /nao-existe`];
    expect(messages(await builder.update([guide], writer))).toEqual(broken);

    // An edit to another article still reports the first one's broken link.
    const first = path.join(content, "articles/primeiro.md");
    await writeFile(first, `${await readFile(first, "utf8")}\nMais um parágrafo.\n`);
    expect(messages(await builder.update([first], writer))).toEqual(broken);

    // Fixed: the site builds clean again.
    await writeFile(guide, "---\ntitle: Só título\n---\n\nTexto.\n");
    expect((await builder.update([guide], writer)).ok).toBe(true);
  });

  it("editing the featured article re-renders the home page too", async () => {
    const content = await editedFixture("basic", {});
    const builder = new SiteBuilder({ codeVersion: testCode(), contentDir: content, projectRoot, theme });
    const writer = new MemoryWriter();
    await builder.build(writer);
    const file = path.join(content, "articles/primeiro.md");
    await writeFile(file, (await readFile(file, "utf8")).replace("O começo", "O início"));
    const result = await builder.update([file], writer);
    expect(result.changed.filter((f) => f.endsWith(".html")).sort()).toEqual(["index.html", "primeiro.html"]);
  });

  it("a deleted article's page is removed, and a new one is added", async () => {
    const content = await editedFixture("basic", {
      "articles/primeiro.md": (s) => s.replace("[link interno](/guia/so-titulo)", "link interno"),
      "cards.yaml": (s) => s.slice(0, s.indexOf("- route: /guia/so-titulo")),
      "editions.yaml": (s) => s.slice(0, s.indexOf("- id: agosto-2025")),
    });
    const builder = new SiteBuilder({ codeVersion: testCode(), contentDir: content, projectRoot, theme });
    const writer = new MemoryWriter();
    expect((await builder.build(writer)).ok).toBe(true);
    const gone = path.join(content, "articles/guia/so-titulo.md");
    await rm(gone);
    // Its address is let go: deleted from the record of published addresses.
    const record = path.join(content, "published-routes.txt");
    await writeFile(record, (await readFile(record, "utf8")).replace("/guia/so-titulo\n", ""));
    const added = path.join(content, "articles/novo.md");
    await writeFile(added, "---\ntitle: Novo\n---\nTexto.\n");
    const result = await builder.update([gone, added], writer);
    expect(result.ok).toBe(true);
    expect(writer.files.has("guia/so-titulo.html")).toBe(false);
    expect(writer.files.has("novo.html")).toBe(true);
  });

  it("a CSS edit rebuilds the stylesheet and every page that links it", async () => {
    const project = await projectCopy();
    const content = await editedFixture("basic", {});
    const builder = new SiteBuilder({ codeVersion: testCode(), contentDir: content, projectRoot: project, theme });
    const writer = new MemoryWriter();
    await builder.build(writer);
    const oldCss = [...writer.files.keys()].find((f) => /^assets\/styles-/.test(f))!;
    const css = path.join(project, "templates/styles.css");
    await writeFile(css, `${await readFile(css, "utf8")}\n.novo { color: red; }\n`);
    const result = await builder.update([css], writer);
    const newCss = result.changed.find((f) => /^assets\/styles-/.test(f))!;
    expect(newCss).toBeDefined();
    expect(newCss).not.toBe(oldCss);
    expect(writer.files.has(oldCss)).toBe(false);
    expect(result.changed.filter((f) => f.endsWith(".html")).sort()).toEqual(["404.html", "guia/so-titulo.html", "index.html", "primeiro.html"]);
    expect(writer.text("index.html")).toContain(`/${newCss}`);
  });

  it("a public/ file is copied when it changes", async () => {
    const project = await projectCopy();
    const content = await editedFixture("basic", {});
    const builder = new SiteBuilder({ codeVersion: testCode(), contentDir: content, projectRoot: project, theme });
    const writer = new MemoryWriter();
    await builder.build(writer);
    const file = path.join(project, "public/humans.txt");
    await writeFile(file, "Cris\n");
    const result = await builder.update([file], writer);
    expect(result.changed).toContain("humans.txt");
    expect(writer.text("humans.txt")).toBe("Cris\n");
  });
});
