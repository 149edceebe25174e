import { describe, expect, it } from "vitest";
import fs, { existsSync, watch } from "node:fs";
import { syncBuiltinESMExports } from "node:module";
import { appendFile, lstat, mkdtemp, readdir, readFile, realpath, symlink, writeFile, mkdir } from "node:fs/promises";
import { isUpToDate, recordBuild } from "../engine/incremental/fingerprint.js";
import { tmpdir } from "node:os";
import path from "node:path";
import { buildSite } from "../engine/pipeline/site-builder.js";
import { FolderWriter } from "../engine/stages/write/writers.js";
import { buildInMemory, editedFixture, fixture, parseHtml, projectRoot, text, testCode } from "./helpers.js";
import { theme } from "../templates/theme.js";

const built = await buildInMemory(fixture("basic"));
const page = (file: string) => parseHtml(built.writer.text(file));

describe("building a fixture site", () => {
  it("succeeds and writes every route, the 404 page, hashed assets and public files", () => {
    expect(built.errors).toEqual([]);
    expect(built.ok).toBe(true);
    const files = [...built.writer.files.keys()];
    expect(files).toEqual(expect.arrayContaining(["index.html", "404.html", "primeiro.html", "guia/so-titulo.html"]));
    expect(files.some((f) => /^assets\/main-[A-Z0-9]+\.js$/.test(f))).toBe(true);
    expect(files.some((f) => /^assets\/styles-[A-Z0-9]+\.css$/.test(f))).toBe(true);
    expect(files.some((f) => /^assets\/fonts\/brand-script-[A-Z0-9]+\.woff2$/.test(f))).toBe(true);
  });

  it("puts the shared chrome on every page: header, language switch, newsletter above the footer", () => {
    for (const file of ["index.html", "primeiro.html", "404.html"]) {
      const doc = page(file);
      expect(text(doc.querySelector(".site-title [data-l=pt]"))).toBe("Blog Café com a Cris");
      expect(text(doc.querySelector(".site-title [data-l=en]"))).toBe("Coffee with Cris Blog");
      const brand = doc.querySelector("a.brand")!;
      expect(text(brand)).toBe("Cris");
      expect(brand.getAttribute("target")).toBe("_blank");
      expect(brand.getAttribute("rel")).toBe("noopener noreferrer");
      const buttons = [...doc.querySelectorAll(".lang-switch button")];
      expect(buttons.map((b) => [text(b), b.getAttribute("aria-pressed")])).toEqual([
        ["Português", "true"],
        ["English", "false"],
      ]);
      const newsletter = doc.querySelector("section.newsletter")!;
      expect(newsletter.nextElementSibling?.tagName).toBe("FOOTER");
      const input = newsletter.querySelector("input")!;
      expect(input.getAttribute("placeholder")).toBe("seu@email.com");
      expect(doc.querySelector(`label[for="${input.id}"]`)).not.toBeNull();
      expect(text(newsletter.querySelector("button[type=submit]"))).toBe("Inscrever-se");
      expect(text(doc.querySelector("footer"))).toContain("© 2025");
      expect(doc.documentElement.getAttribute("lang")).toBe("pt-BR");
    }
  });

  it("renders the article header: back link, badge, category, date, read time, author and share", () => {
    const doc = page("primeiro.html");
    expect(doc.querySelector("a.back-link")?.getAttribute("href")).toBe("/");
    expect(text(doc.querySelector("a.back-link"))).toBe("Voltar ao Blog");
    const pt = doc.querySelector("[data-l=pt] .article-header")!;
    expect(text(pt.querySelector(".badge-highlight"))).toBe("Artigo da Semana");
    expect(text(pt.querySelector(".article-meta .badge"))).toBe("Carreira");
    expect(pt.querySelector("time")?.getAttribute("datetime")).toBe("2025-09-01");
    expect(text(pt.querySelector(".article-meta"))).toContain("5 min de leitura");
    expect(text(pt.querySelector(".author span:not(.author-avatar)"))).toBe("Cris, Blog");
    expect(text(pt.querySelector(".share-button"))).toBe("Compartilhar");
  });

  it("carries both language versions of a bilingual article, English marked lang=en", () => {
    const doc = page("primeiro.html");
    expect(text(doc.querySelector("[data-l=pt] h1"))).toBe("Primeiro artigo");
    const en = doc.querySelector("[data-l=en]:not(span)")!;
    expect(en.getAttribute("lang")).toBe("en");
    expect(text(en.querySelector("h1"))).toBe("First article");
    expect(text(en.querySelector(".article-meta"))).toContain("5 min read");
  });

  it("drops raw HTML from Markdown and keeps the blocks", () => {
    const html = built.writer.text("primeiro.html");
    expect(html).not.toContain('alert("x")');
    const doc = page("primeiro.html");
    expect(doc.querySelectorAll(".stat-card")).toHaveLength(2);
    expect(doc.querySelectorAll(".tool-table tbody tr")).toHaveLength(2);
    expect(doc.querySelectorAll(".carousel-slide")).toHaveLength(2);
    expect(built.warnings.some((w) => w.message.startsWith("raw HTML is not rendered"))).toBe(true);
  });

  it("gives a title-only article a page with defaults and nothing empty", () => {
    const doc = page("guia/so-titulo.html");
    expect(text(doc.querySelector("h1"))).toBe("Só título");
    expect(doc.querySelector("time")).toBeNull();
    expect(doc.querySelector(".article-meta .badge")).toBeNull();
    expect(doc.querySelector("meta[name=description]")?.getAttribute("content")).toBe("Só título");
  });

  it("puts the featured article and the cards on the home page, each card a link", () => {
    const doc = page("index.html");
    expect(text(doc.querySelector(".home-featured h1"))).toBe("Primeiro artigo");
    const cards = [...doc.querySelectorAll(".card-grid a.card")];
    expect(cards.map((c) => c.getAttribute("href"))).toEqual(["/primeiro", "/guia/so-titulo"]);
    expect(cards[0]!.querySelector("svg")).not.toBeNull();
    expect(text(cards[0]!.querySelector(".card-title [data-l=en]"))).toBe("First article");
  });

  it("cuts the self-hosted script font to the letters it shows, and preloads it", () => {
    const fonts = [...built.writer.files.keys()].filter((f) => f.endsWith(".woff2"));
    expect(fonts).toHaveLength(1);
    const font = built.writer.files.get(fonts[0]!)!;
    expect(font.length).toBeLessThan(4096);
    expect(built.writer.text("index.html")).toContain(`<link rel="preload" href="/${fonts[0]}" as="font" type="font/woff2"`);
    const css = [...built.writer.files.keys()].find((f) => f.endsWith(".css"))!;
    expect(built.writer.text(css)).toContain(`url("./${fonts[0]!.slice("assets/".length)}")`);
  });

  it("gives every page its own title and description", () => {
    const files = ["index.html", "primeiro.html", "guia/so-titulo.html", "404.html"];
    const titles = files.map((f) => text(page(f).querySelector("title")));
    expect(new Set(titles).size).toBe(4);
    const descriptions = files.map((f) => [...page(f).querySelectorAll('meta[name="description"]')].map((m) => m.getAttribute("content")));
    for (const [i, found] of descriptions.entries()) {
      expect(found, files[i]).toHaveLength(1);
      expect(found[0]!.trim(), files[i]).not.toBe("");
    }
    expect(new Set(descriptions.map((d) => d[0])).size).toBe(4);
    // The article's own description, from its front matter.
    expect(descriptions[1]![0]).toBe("O começo de uma conversa sobre carreira.");
  });
});

describe("bad input fails the build and keeps the last good output", () => {
  async function buildInto(contentDir: string, outDir: string) {
    const writer = new FolderWriter(outDir);
    await writer.begin();
    return buildSite({ codeVersion: testCode(), contentDir, projectRoot, theme, writer });
  }

  it("the up-to-date note is written aside outside the published site: no temporary file ever appears in it (a kill then would leave one there)", async () => {
    const root = await mkdtemp(path.join(tmpdir(), "cafe-note-"));
    const out = path.join(root, "dist");
    expect((await buildInto(fixture("basic"), out)).ok).toBe(true);
    const seen: string[] = [];
    const watcher = watch(await realpath(out), (_event, name) => seen.push(String(name)));
    try {
      await recordBuild(out, "inputs");
      await new Promise((resolve) => setTimeout(resolve, 100));
    } finally {
      watcher.close();
    }
    expect(seen.filter((name) => name.endsWith(".tmp"))).toEqual([]);
    expect(seen).toContain(".cafe-build.json");
    expect(await isUpToDate(out, "inputs")).toBe(true);
    expect((await readdir(path.join(root, "dist.builds"))).filter((name) => name.startsWith(".cafe-build.json-"))).toEqual([]);
  });

  it("the up-to-date note takes the output as the build left it, without listing it again: the next check finds it the same, and not once a file of it changed", async () => {
    const out = path.join(await mkdtemp(path.join(tmpdir(), "cafe-note-")), "dist");
    const writer = new FolderWriter(out);
    await writer.begin();
    expect((await buildSite({ codeVersion: testCode(), contentDir: fixture("basic"), projectRoot, theme, writer })).ok).toBe(true);
    // Every page, asset and folder below the site's root (a page in a folder sorts as the listing does).
    const held = writer.publishedSite!;
    expect([...held.keys()]).toContain("index.html");
    expect([...held.keys()].some((file) => file.includes("/"))).toBe(true);
    await recordBuild(out, "inputs", held);
    expect(await isUpToDate(out, "inputs")).toBe(true);
    await appendFile(path.join(out, "index.html"), "<!-- edited -->");
    expect(await isUpToDate(out, "inputs")).toBe(false);
  });

  it("a data row whose link is not http(s) names the data file and line", async () => {
    const dir = await editedFixture("basic", {
      "data/tools.json": (s) => s.replace("https://keep.google.com", "javascript:alert(1)"),
    });
    const result = await buildInMemory(dir);
    expect(result.ok).toBe(false);
    const error = result.errors[0]!;
    expect(error.file).toMatch(/data\/tools\.json$/);
    expect(error.line).toBe(23);
    expect(error.message).toBe("`[1].link` must be an https:// URL");
  });

  it("a broken article leaves the previous dist/ untouched", async () => {
    const outDir = path.join(await mkdtemp(path.join(tmpdir(), "cafe-out-")), "dist");
    const good = await buildInto(fixture("basic"), outDir);
    expect(good.ok).toBe(true);
    const before = await readFile(path.join(outDir, "primeiro.html"), "utf8");

    const broken = await editedFixture("basic", { "articles/primeiro.md": (s) => s.replace("title: Primeiro artigo", "title: [") });
    const bad = await buildInto(broken, outDir);
    expect(bad.ok).toBe(false);
    expect(await readFile(path.join(outDir, "primeiro.html"), "utf8")).toBe(before);
    // Nothing of the failed build is published or left about: the two build folders and
    // their records (the standby kept for the next build), no link, no lock.
    const fs = await import("node:fs/promises");
    expect((await fs.readdir(path.dirname(outDir))).sort()).toEqual(["dist", "dist.builds"]);
    expect((await fs.readdir(path.join(path.dirname(outDir), "dist.builds"))).sort()).toEqual(["a", "a.json", "b", "b.json"]);
  });

  it("an internal link to a missing route or anchor fails with its line", async () => {
    const dir = await editedFixture("basic", {
      "articles/guia/so-titulo.md": "---\ntitle: Só título\n---\n\nVeja [isto](/nao-existe) e [aquilo](/primeiro#nada).\n",
    });
    const result = await buildInMemory(dir);
    // One run, both: the page is rendered for its anchors although the missing route stops the build.
    expect(result.errors.map((e) => `${e.line}:${e.column}: ${e.message}`)).toEqual([
      "5:6: broken link: no page has the route /nao-existe",
      "5:28: broken link: /primeiro has no element with the id #nada",
    ]);
    await writeFile(path.join(dir, "articles/guia/so-titulo.md"), "---\ntitle: Só título\n---\n\nVeja [isto](/primeiro) e [aquilo](/primeiro#nada).\n");
    const again = await buildInMemory(dir);
    expect(again.errors.map((e) => `${e.line}:${e.column}: ${e.message}`)).toEqual(["5:26: broken link: /primeiro has no element with the id #nada"]);
  });

  it("a link with a trailing slash is an error that says how to write it (servers answer /x/ with 404)", async () => {
    const dir = await editedFixture("basic", {
      "articles/guia/so-titulo.md": "---\ntitle: Só título\n---\n\nVeja [isto](/primeiro/) e [aquilo](/primeiro/#o-comeco).\n",
    });
    const result = await buildInMemory(dir);
    expect(result.errors.map((e) => `${e.line}:${e.column}: ${e.message} (${e.hint})`)).toEqual([
      "5:6: link to /primeiro/ ends with a slash, and no page is served there (write /primeiro)",
      "5:27: link to /primeiro/ ends with a slash, and no page is served there (write /primeiro#o-comeco)",
    ]);
  });

  it("a malformed percent-encoding in a link is a content error at its line, not a crash", async () => {
    const dir = await editedFixture("basic", {
      "articles/guia/so-titulo.md": "---\ntitle: Só título\n---\n\nTexto.\n\nVeja [isto](/primeiro#50%) e [aquilo](/prim%zzeiro).\n",
    });
    const result = await buildInMemory(dir);
    expect(result.ok).toBe(false);
    expect(result.errors.map((e) => `${e.file.split("/").pop()}:${e.line}: ${e.message}`)).toEqual([
      "so-titulo.md:7: link `/primeiro#50%` has a malformed percent-encoding",
      "so-titulo.md:7: link `/prim%zzeiro` has a malformed percent-encoding",
    ]);
  });

  it("copies public/ as-is, and leaves nothing of the folder it replaces", async () => {
    const root = await mkdtemp(path.join(tmpdir(), "cafe-public-"));
    await mkdir(path.join(root, "dist"), { recursive: true });
    await writeFile(path.join(root, "dist", "old.txt"), "old");
    // An earlier build's folder (its up-to-date note says so): a folder of other files is refused (cli.test.ts).
    await writeFile(path.join(root, "dist", ".cafe-build.json"), "{}\n");
    const result = await buildInto(fixture("basic"), path.join(root, "dist"));
    expect(result.ok).toBe(true);
    const publicFiles = (await readdir(path.join(projectRoot, "public"), { recursive: true, withFileTypes: true })).filter((e) => e.isFile());
    expect(publicFiles.length).toBeGreaterThan(0);
    for (const entry of publicFiles) {
      const file = path.relative(path.join(projectRoot, "public"), path.join(entry.parentPath, entry.name));
      expect((await readFile(path.join(root, "dist", file))).equals(await readFile(path.join(projectRoot, "public", file))), file).toBe(true);
    }
    // A file of the old folder that no build wrote is not served on as if it were part of the site.
    expect(existsSync(path.join(root, "dist", "old.txt"))).toBe(false);
  });
});

describe("a symlink in public/", () => {
  it("is published as the file it names, and a link to it is valid; a link to nothing is neither", async () => {
    const root = await mkdtemp(path.join(tmpdir(), "cafe-public-links-"));
    const publicDir = path.join(root, "public");
    await mkdir(path.join(root, "shared"));
    await mkdir(path.join(publicDir, "docs"), { recursive: true });
    await writeFile(path.join(root, "shared", "relatorio.pdf"), "%PDF-1.4 o relatório\n");
    await symlink(path.join(root, "shared", "relatorio.pdf"), path.join(publicDir, "docs", "relatorio.pdf"));
    await symlink(path.join(root, "shared", "sumiu.pdf"), path.join(publicDir, "sumiu.pdf"));
    const link = (href: string) => (t: string) => t.replace(/\n*$/, `\n\nVeja [o relatório](${href}).\n`);
    const out = path.join(root, "dist");
    const build = async (href: string) => {
      const writer = new FolderWriter(out);
      await writer.begin();
      const contentDir = await editedFixture("basic", { "articles/guia/so-titulo.md": link(href) });
      return buildSite({ codeVersion: testCode(), contentDir, projectRoot, theme, writer, publicDir });
    };
    const published = await build("/docs/relatorio.pdf");
    expect(published.errors.map((e) => e.message)).toEqual([]);
    expect((await lstat(path.join(out, "docs", "relatorio.pdf"))).isFile()).toBe(true);
    expect(await readFile(path.join(out, "docs", "relatorio.pdf"), "utf8")).toBe("%PDF-1.4 o relatório\n");
    expect(existsSync(path.join(out, "sumiu.pdf"))).toBe(false);
    const dangling = await build("/sumiu.pdf");
    expect(dangling.errors.map((e) => e.message)).toEqual(["broken link: no page has the route /sumiu.pdf"]);
  });
});

describe("every content error at once", () => {
  it("an article that fails its schema does not hide the unknown key and the broken link of the others", async () => {
    const dir = await editedFixture("basic", {
      // `title` is required: `titel` beside it is what the author meant.
      "articles/primeiro.md": (s) => s.replace(/^title:/m, "titel:"),
      "articles/guia/so-titulo.md": (s) => s.replace(/^---\n/, "---\nreadTme: 3\n").replace(/\n*$/, "\n\n[veja](/nao-existe)\n"),
    });
    const result = await buildInMemory(dir);
    expect(result.ok).toBe(false);
    const shown = result.errors.map((e) => `${e.file.split("/").pop()}: ${e.message}`);
    // In file order: articles/guia/so-titulo.md before articles/primeiro.md.
    expect(shown).toEqual([
      "so-titulo.md: unknown front-matter key `readTme`",
      "so-titulo.md: broken link: no page has the route /nao-existe",
      "primeiro.md: `title` is required",
    ]);
    expect(result.errors[2]!.hint).toMatch(/^you wrote `titel` \(line \d+\): did you mean `title`\?$/);
    expect(result.errors[0]!.hint).toBe("did you mean `readTime`?");
  });

  it("lists the blocks in the unknown-key hint only when the theme has blocks", async () => {
    const dir = await editedFixture("basic", { "articles/primeiro.md": (s) => s.replace(/^---\n/, "---\nzzzqqq: 1\n") });
    const withBlocks = await buildInMemory(dir);
    expect(withBlocks.errors[0]!.hint).toContain("plus data for a block placed in the body");
    const { MemoryWriter } = await import("../engine/stages/write/writers.js");
    const bare = await buildSite({ codeVersion: testCode(), contentDir: dir, projectRoot, theme: { ...theme, blocks: [] }, writer: new MemoryWriter() });
    const unknown = bare.errors.find((e) => e.message === "unknown front-matter key `zzzqqq`")!;
    expect(unknown.hint).toMatch(/^front-matter keys are title, /);
    expect(unknown.hint).not.toContain("block");
  });
});

describe("the folder writer", () => {
  /** Counts the calls of some of node:fs's functions (the engine imports them by name: `syncBuiltinESMExports` updates those). */
  function counting(names: readonly ("mkdirSync" | "rmSync")[]) {
    const counts: Record<string, number> = {};
    const originals = new Map<string, (...args: never[]) => unknown>();
    const fns = fs as unknown as Record<string, (...args: never[]) => unknown>;
    for (const name of names) {
      const original = fns[name]!;
      originals.set(name, original);
      counts[name] = 0;
      fns[name] = (...args: never[]) => (counts[name]!++, original(...args));
    }
    syncBuiltinESMExports();
    return {
      counts,
      restore() {
        for (const [name, original] of originals) fns[name] = original;
        syncBuiltinESMExports();
      },
    };
  }

  it("carries the pages of the last build over their versions of two builds ago with one folder made, not one a page, and no folder removed (issue 37: the one-article edit after a template edit was quadratic)", async () => {
    const out = path.join(await mkdtemp(path.join(tmpdir(), "cafe-carry-")), "dist");
    const files = Array.from({ length: 300 }, (_, i) => `bench/${i}.html`);
    const build = async (make: (writer: FolderWriter) => Promise<unknown>) => {
      const writer = new FolderWriter(out);
      await writer.begin();
      await make(writer);
      await writer.commit();
    };
    // Two builds, every page changed in the second: the standby folder holds the first's.
    for (const version of ["one", "two"]) await build((writer) => Promise.all(files.map((file) => writer.write(file, `<p>${version} ${file}</p>`))));
    // The third keeps every page (a one-article edit after the template edit): each carried from the live folder over its old version.
    const fsCalls = counting(["mkdirSync", "rmSync"]);
    let taken: Set<string> | undefined;
    try {
      await build(async (writer) => (taken = await writer.reuse(new Map(files.map((file) => [file, Buffer.byteLength(`<p>two ${file}</p>`)])))));
    } finally {
      fsCalls.restore();
    }
    expect(taken!.size).toBe(files.length);
    expect(fsCalls.counts).toEqual({ mkdirSync: 1, rmSync: 0 });
    for (const file of files) expect(await readFile(path.join(out, file), "utf8")).toBe(`<p>two ${file}</p>`);
  });
});
