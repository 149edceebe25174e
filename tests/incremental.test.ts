/** SiteBuilder.update: an edit rebuilds what it affects, and the result equals a full build. */
import { describe, expect, it } from "vitest";
import { cp, mkdir, mkdtemp, rm, writeFile, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { SiteBuilder } from "../engine/pipeline/site-builder.js";
import { LiveWriter, MemoryWriter } from "../engine/stages/write/writers.js";
import { listFiles } from "../engine/lib/files.js";
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

    await expectFreshBuild({ codeVersion: testCode(), contentDir: content, projectRoot, theme }, writer);
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

  it("a save keeps warning of every page whose shared title is cut, the pages it did not check again too, in a full build's order", async () => {
    const long = (title: string) => `---\ntitle: ${title}\n---\n\nTexto.\n`;
    const content = await editedFixture("basic", {
      "articles/a-longo.md": long("Um título tão comprido que o WhatsApp o corta bem antes do fim, com tudo o que a tag acrescenta"),
      "articles/m-longo.md": long("Outro título comprido demais para caber na prévia de um link compartilhado no WhatsApp, sem dúvida"),
      "articles/z-longo.md": long("Mais um título comprido demais para a prévia de um link compartilhado no WhatsApp, sem nenhuma dúvida"),
    });
    const shared = (r: { warnings: { file?: string; line?: number; message: string }[] }) => r.warnings.filter((w) => w.message.includes("when shared")).map((w) => `${w.file}:${w.line}: ${w.message}`);
    const builder = new SiteBuilder({ codeVersion: testCode(), contentDir: content, projectRoot, theme });
    const writer = new MemoryWriter();
    const cold = await builder.build(writer);
    expect(cold.ok).toBe(true);
    expect(shared(cold).map((w) => w.split(":")[0])).toEqual(["a-longo.md", "m-longo.md", "z-longo.md"].map((f) => path.relative(process.cwd(), path.join(content, "articles", f))));

    // The one in the middle is saved: its page is checked again, the two others' warnings are the last check's.
    const middle = path.join(content, "articles/m-longo.md");
    await writeFile(middle, `${await readFile(middle, "utf8")}\nMais um parágrafo.\n`);
    const saved = await builder.update([middle], writer);
    expect(saved.ok).toBe(true);
    expect(saved.changed.filter((f) => f.endsWith(".html"))).toEqual(["m-longo.html"]);
    const fresh = await new SiteBuilder({ codeVersion: testCode(), contentDir: content, projectRoot, theme }).build(new MemoryWriter());
    expect(shared(saved)).toEqual(shared(fresh));
    expect(shared(saved)).toEqual(shared(cold));
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

  it("a save hashes the values of the pages it changed, not of every page, and the output still equals a full build", async () => {
    const { content, article, edit, options } = await extraArticles(40);
    // Into a folder, as watch mode writes: kept across a failed save.
    const builder = new SiteBuilder(options);
    const out = path.join(content, "..", `${path.basename(content)}-out`);
    const writer = new LiveWriter(out);
    const built = await builder.build(writer);
    expect(built.ok).toBe(true);
    const pages = built.routes.length;
    expect(pages).toBeGreaterThan(40);
    // The same save, checked the way a run that cannot tell what the last one checked does: every page's values hashed.
    const full = new SiteBuilder({ ...options, cloneBetweenStages: true });
    const fullWriter = new MemoryWriter();
    await full.build(fullWriter);

    await edit(3, "Texto novo.");
    const saved = await builder.update([article(3)], writer);
    expect(saved.ok).toBe(true);
    expect(saved.changed.filter((f) => f.endsWith(".html"))).toEqual(["extra/3.html"]);
    expect(saved.hashed).toBeLessThan(pages / 2);
    expect((await full.update([article(3)], fullWriter)).hashed).toBeGreaterThanOrEqual(pages);

    // A save that fails, then one that fixes it and retitles another: what the last successful run checked is what is compared.
    await edit(7, "Veja [isto](/nao-existe).");
    expect((await builder.update([article(7)], writer)).ok).toBe(false);
    await edit(5, "Texto 5.", "Outro título");
    await edit(7, "Veja [isto](/extra/5).");
    const fixed = await builder.update([article(5), article(7)], writer);
    expect(fixed.ok).toBe(true);
    expect(fixed.changed.filter((f) => f.endsWith(".html")).sort()).toEqual(["extra/5.html", "extra/7.html"]);

    const fresh = new MemoryWriter();
    await new SiteBuilder(options).build(fresh);
    expect(listFiles(out).map((f) => path.relative(out, f).split(path.sep).join("/")).sort()).toEqual([...fresh.files.keys()].sort());
    for (const [name, data] of fresh.files) expect(comparable(await readFile(path.join(out, name))), name).toEqual(comparable(Buffer.from(data)));
  });

  it("a save of one body compares that article's route and body and the routes that are not an article's, not every page's, and the output still equals a full build", async () => {
    const { article, edit, options, builder, writer, built } = await builtWithoutCards(40);
    const pages = built.routes.length;
    const others = built.routes.filter((r) => r.kind !== "article").length;
    expect(pages).toBeGreaterThan(others + 40);
    await edit(3, "Texto novo.");
    const saved = await builder.update([article(3)], writer);
    expect(saved.ok).toBe(true);
    expect(saved.changed.filter((f) => f.endsWith(".html"))).toEqual(["extra/3.html"]);
    // Its route and its body, and the routes that are not an article's (the home page, the tags' pages, the 404): no other article's.
    expect(saved.compared).toBe(2 + others);
    // Then one that retitles it, and a new article: each equals a fresh build (a new article changes the routes: every page compared).
    await edit(3, "Texto novo.", "Outro título");
    expect((await builder.update([article(3)], writer)).compared).toBe(2 + others);
    await edit(40, "Texto 40.");
    expect((await builder.update([article(40)], writer)).compared).toBeGreaterThanOrEqual(pages);
    await expectFreshBuild(options, writer);
  });

  it("a save of one body hands the write stage a few runs of kept pages, not each page, and the site still equals a full build", async () => {
    const { article, edit, options, builder, writer, built } = await builtWithoutCards(300);
    expect(built.routes.length).toBeGreaterThan(300);
    await edit(150, "Texto novo.");
    const saved = await builder.update([article(150)], writer);
    expect(saved.ok).toBe(true);
    expect(saved.rendered).toBe(1);
    // The page made again, the runs of kept pages on either side of it and the site's other files (sitemap, 404, redirects): a handful, not 300.
    expect(saved.handedOver).toBeLessThan(12);
    await expectFreshBuild(options, writer);
  });

  it("a save of one body that keeps every route goes over no whole record of pages, and the site still equals a full build; a new article goes over them", async () => {
    const { article, edit, options, builder, writer, built } = await builtWithoutCards(300);
    expect(built.routes.length).toBeGreaterThan(300);
    // The first save makes the pages' readers from the whole record (the build read none of it): the next ones carry them.
    await edit(150, "Texto novo.");
    expect((await builder.update([article(150)], writer)).ok).toBe(true);
    await edit(151, "Texto novo.");
    const saved = await builder.update([article(151)], writer);
    expect(saved.ok).toBe(true);
    expect(saved.rendered).toBe(1);
    // The readers' index, the files that went and the pages that went are known from the page made again: no pass over 300 routes.
    expect(saved.walked).toBeLessThan(12);
    // A new article moves the routes: the records are gone over, and what the next save carries is made from them.
    await edit(300, "Texto 300.");
    const added = await builder.update([article(300)], writer);
    expect(added.walked).toBeGreaterThan(300);
    await edit(152, "Texto novo.");
    expect((await builder.update([article(152)], writer)).walked).toBeLessThan(12);
    await expectFreshBuild(options, writer);
  });

  it("saves that edit an article, retitle another and then undo both leave the pages a fresh build writes", async () => {
    const { article, edit, options } = await extraArticles(8);
    const builder = new SiteBuilder(options);
    const writer = new MemoryWriter();
    expect((await builder.build(writer)).ok).toBe(true);
    // Each save, then its undoing: a page made in one save is the one the next save's values are checked against.
    const saves: [number, string, string?][][] = [[[3, "Texto novo."]], [[3, "Texto 3."]], [[5, "Texto 5.", "Outro título"]], [[5, "Texto 5."], [3, "Mais um."]], [[3, "Texto 3."]]];
    for (const save of saves) {
      for (const [i, text, title] of save) await edit(i, text, title);
      expect((await builder.update(save.map(([i]) => article(i)), writer)).ok).toBe(true);
      await expectFreshBuild(options, writer);
    }
  });

  it("a public/ file is copied when it changes", async () => {
    // A copy of public/ only (the builder told where it is): with a copy of the whole project the
    // theme's assets, at paths no build had bundled from, were bundled by esbuild again for this test.
    const publicDir = path.join(await mkdtemp(path.join(tmpdir(), "cafe-public-")), "public");
    await cp(path.join(projectRoot, "public"), publicDir, { recursive: true });
    const content = await editedFixture("basic", {});
    const builder = new SiteBuilder({ codeVersion: testCode(), contentDir: content, projectRoot, theme, publicDir });
    const writer = new MemoryWriter();
    await builder.build(writer);
    const file = path.join(publicDir, "humans.txt");
    await writeFile(file, "Cris\n");
    const result = await builder.update([file], writer);
    expect(result.changed).toContain("humans.txt");
    expect(writer.text("humans.txt")).toBe("Cris\n");
  });
});

/**
 * The basic fixture with `count` more articles (`articles/extra/<i>.md`), `edit` to write one
 * again, and the options watch mode builds it with: drafts included (no address joins the
 * record of published ones).
 */
/** `extraArticles` without social cards, as the benchmark builds (a card is made from anything in the content: every one is compared), built once. */
async function builtWithoutCards(count: number) {
  const extra = await extraArticles(count);
  await writeFile(path.join(extra.content, "site.yaml"), `${await readFile(path.join(extra.content, "site.yaml"), "utf8")}\nsocialCards: false\n`);
  const builder = new SiteBuilder(extra.options);
  const writer = new MemoryWriter();
  const built = await builder.build(writer);
  expect(built.ok).toBe(true);
  return { ...extra, builder, writer, built };
}

async function extraArticles(count: number) {
  const content = await editedFixture("basic", {});
  await mkdir(path.join(content, "articles/extra"));
  const article = (i: number) => path.join(content, `articles/extra/${i}.md`);
  const edit = (i: number, text: string, title = `Extra ${i}`) => writeFile(article(i), `---\ntitle: ${title}\n---\n\n${text}\n`);
  for (let i = 0; i < count; i++) await edit(i, `Texto ${i}.`);
  const options = { codeVersion: testCode(), contentDir: content, projectRoot, theme, drafts: true };
  return { content, article, edit, options };
}

/** What `writer` holds is what a fresh build with `options` writes: the same files, byte for byte (but for what `comparable` leaves out). */
async function expectFreshBuild(options: ConstructorParameters<typeof SiteBuilder>[0], writer: MemoryWriter): Promise<void> {
  const fresh = new MemoryWriter();
  await new SiteBuilder(options).build(fresh);
  expect([...writer.files.keys()].sort()).toEqual([...fresh.files.keys()].sort());
  for (const [name, data] of fresh.files) expect(comparable(writer.files.get(name)), name).toEqual(comparable(data));
}
