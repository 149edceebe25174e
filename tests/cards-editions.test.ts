/**
 * Cards and editions default to the article they open for title, category, date and read
 * time: an author writes only what differs, and a value that is neither written nor in the
 * article fails the build at the entry's line.
 */
import { describe, expect, it } from "vitest";
import path from "node:path";
import { readFile, writeFile } from "node:fs/promises";
import { SiteBuilder } from "../engine/pipeline/site-builder.js";
import { MemoryWriter } from "../engine/stages/write/writers.js";
import { loadContent } from "../engine/stages/load/content.js";
import { buildRoutes } from "../engine/stages/routes/routes.js";
import { buildInMemory, comparable, editedFixture, parseHtml, projectRoot, realSite, text, testCode } from "./helpers.js";
import { theme } from "../templates/theme.js";

const CARDS = `- route: /primeiro
  icon: sprout
  excerpt: Um resumo curto do primeiro artigo.
  gradient: ["#ecfdf5", "#f0fdfa"]
  borderColor: "#6ee7b7"
  iconColor: "#047857"
  en:
    excerpt: A short summary of the first article.
- route: /guia/so-titulo
  icon: book-open
  category: Guia
  excerpt: Um artigo que só tem título.
  date: Setembro 2025
  readTime: 2
  gradient: ["#eff6ff", "#eef2ff"]
  borderColor: "#93c5fd"
  iconColor: "#1d4ed8"
`;

const EDITIONS = `- id: setembro-2025
  description: A edição de setembro.
  featured: true
  route: /primeiro
- id: agosto-2025
  title: Edição de agosto
  date: Agosto 2025
  description: A edição de agosto.
  route: /guia/so-titulo
  readTime: 15
`;

async function check(edits: Record<string, string | ((old: string) => string)>) {
  const dir = await editedFixture("basic", edits);
  const { content, errors } = await loadContent(dir, theme);
  expect(errors).toEqual([]);
  const table = buildRoutes(content!, theme).value;
  return theme.check!(content!, table);
}

describe("cards and editions written with only what differs from their article", async () => {
  const built = await buildInMemory(await editedFixture("basic", { "cards.yaml": CARDS, "editions.yaml": EDITIONS }));
  const home = parseHtml(built.writer.text("index.html"));
  const first = parseHtml(built.writer.text("primeiro.html"));

  it("build", () => {
    expect(built.errors.map((e) => e.message)).toEqual([]);
  });

  it("a card takes title, category, date and read time from its article, in both languages", () => {
    const card = home.querySelector("a.card[href='/primeiro']")!;
    expect(text(card.querySelector(".card-title [data-l=pt]"))).toBe("Primeiro artigo");
    expect(text(card.querySelector(".card-title [data-l=en]"))).toBe("First article");
    expect(text(card.querySelector(".badge [data-l=pt]"))).toBe("Carreira");
    expect(text(card.querySelector(".badge [data-l=en]"))).toBe("Career");
    const date = [...card.querySelectorAll(".card-meta .meta-item")].at(-1)!;
    expect(text(date.querySelector("[data-l=pt]"))).toBe("01/09/2025");
    expect(text(date.querySelector("[data-l=en]"))).toBe("Sep 1, 2025");
  });

  it("a value written in the card wins over the article's", () => {
    const card = home.querySelector("a.card[href='/guia/so-titulo']")!;
    expect(text(card.querySelector(".card-title"))).toBe("Só título");
    expect(text(card.querySelector(".badge"))).toBe("Guia");
    expect(text(card.querySelector(".card-meta"))).toBe("2 min Setembro 2025");
  });

  it("an edition takes title, date and read time from the article it opens; written values win", () => {
    const slides = [...first.querySelectorAll("div[data-l=pt] .carousel-slide")];
    expect(slides.map((s) => text(s.querySelector(".carousel-slide-title")))).toEqual(["Primeiro artigo", "Edição de agosto"]);
    expect(slides.map((s) => text(s.querySelector(".carousel-date")))).toEqual(["01/09/2025", "Agosto 2025"]);
    expect(slides.map((s) => text(s.querySelector(".read-time")))).toEqual(["5 min de leitura", "15 min de leitura"]);
  });
});

describe("a value neither written nor in the article", () => {
  it("fails with the card's line, the key and what to write", async () => {
    // so-titulo.md has a title only: nothing to lend for date, category or read time.
    const errors = await check({ "cards.yaml": (s) => s.replace("  date: Setembro 2025\n", "") });
    expect(errors).toHaveLength(1);
    expect(errors[0]!.file).toMatch(/cards\.yaml$/);
    expect(errors[0]!.line).toBe(15);
    expect(errors[0]!.key).toBe("[1].date");
    expect(errors[0]!.message).toMatch(/^`\[1\]\.date` is not written, and .*so-titulo\.md has no `date` to take it from$/);
    expect(errors[0]!.hint).toBe("write `date:` in this entry, or give the article a `date:` in its front matter");
  });

  it("an English card value needs the English version of the article", async () => {
    const errors = await check({
      "cards.yaml": (s) => `${s}  en:\n    excerpt: Only a title.\n`,
    });
    expect(errors.map((e) => [e.key, e.message])).toEqual([
      ["[1].en.title", "`[1].en.title` is not written, and /guia/so-titulo has no English version to take it from"],
      ["[1].en.category", "`[1].en.category` is not written, and /guia/so-titulo has no English version to take it from"],
    ]);
    expect(errors[0]!.hint).toBe("write `title:` under `en:` in this entry");
  });

  it("fails for an edition too, at its line", async () => {
    const errors = await check({ "editions.yaml": (s) => s.replace("  readTime: 15\n- id: agosto-2025", "- id: agosto-2025").replace(/readTime: 15\n$/, "") });
    expect(errors.map((e) => [e.key, e.line])).toEqual([["[1].readTime", 7]]);
  });

  it("a card pointing nowhere reports the route only", async () => {
    const errors = await check({
      "cards.yaml": (s) => s.replace("route: /guia/so-titulo", "route: /guia/nao-existe").replace("  category: Guia\n", ""),
    });
    expect(errors.map((e) => e.message)).toEqual(["`[1].route` points to /guia/nao-existe, but no article has that route"]);
  });
});

describe("watch mode", () => {
  it("an article's new title reaches the card and the edition that take it, and a new label the carousel", async () => {
    // The card and the second edition of /guia/so-titulo take its title; the carousel stands in primeiro.md.
    const content = await editedFixture("basic", {
      "cards.yaml": CARDS,
      "editions.yaml": EDITIONS.replace("  title: Edição de agosto\n", ""),
    });
    const builder = new SiteBuilder({ codeVersion: testCode(), contentDir: content, projectRoot, theme });
    const writer = new MemoryWriter();
    expect((await builder.build(writer)).errors).toEqual([]);
    const edit = async (file: string, change: (s: string) => string) => {
      const target = path.join(content, file);
      await writeFile(target, change(await readFile(target, "utf8")));
      const result = await builder.update([target], writer);
      expect(result.errors).toEqual([]);
    };
    const slides = () => [...parseHtml(writer.text("primeiro.html")).querySelectorAll("div[data-l=pt] .carousel-slide")];

    await edit("articles/guia/so-titulo.md", (s) => s.replace("title: Só título", "title: Só o título"));
    expect(text(parseHtml(writer.text("index.html")).querySelector("a.card[href='/guia/so-titulo'] .card-title"))).toBe("Só o título");
    expect(text(slides()[1]!.querySelector(".carousel-slide-title"))).toBe("Só o título");

    await edit("site.yaml", (s) => s.replace("open: Ler Edição", "open: Abrir a edição"));
    expect(text(slides()[0]!.querySelector("a"))).toBe("Abrir a edição");

    const fresh = new MemoryWriter();
    await new SiteBuilder({ codeVersion: testCode(), contentDir: content, projectRoot, theme }).build(fresh);
    expect([...writer.files.keys()].sort()).toEqual([...fresh.files.keys()].sort());
    for (const [name, data] of fresh.files) expect(comparable(writer.files.get(name)), name).toEqual(comparable(data));
  });
});

describe("a card whose article was renamed by hand", () => {
  it("is an error at its line whose hint says where the page went, as a Markdown link's does", async () => {
    const content = await editedFixture("basic", {});
    const builder = new SiteBuilder({ codeVersion: testCode(), contentDir: content, projectRoot, theme });
    expect((await builder.build(new MemoryWriter())).errors).toEqual([]);
    const { rename } = await import("node:fs/promises");
    await rename(path.join(content, "articles/guia/so-titulo.md"), path.join(content, "articles/guia/somente-titulo.md"));
    const result = await builder.build(new MemoryWriter());
    const card = result.errors.find((e) => e.file.endsWith("cards.yaml"))!;
    expect(card.message).toBe("`[1].route` points to /guia/so-titulo, but no article has that route");
    expect(card.hint).toMatch(/^its page moved to \/guia\/somente-titulo \(.*articles\/guia\/somente-titulo\.md\): write \/guia\/somente-titulo \(npm run move rewrites these entries/);
  });
});

describe("the real site's cards and editions", () => {
  const built = realSite();
  const page = built.page;

  it("show the article's titles, and the values the spec fixes where they differ", () => {
    const home = page("index.html");
    const titles = [...home.querySelectorAll("a.card .card-title")].map((t) => text(t.querySelector("[data-l=pt]") ?? t));
    expect(titles).toEqual([
      "O Renascimento Profissional",
      "O Custo Invisível da Inovação: burnout e saúde mental",
      "Inovação em RH como estratégia de negócio em Minas Gerais",
      "Sistemas de Notas: como organizar suas ideias e escolher a ferramenta certa",
      "Lealdade: uma via de mão dupla",
      "O Descompasso do Século XXI: a tecnologia acelera, o ser humano tem seu ritmo",
      "Material da Semana",
    ]);
    // DECISIONS: the HR card keeps SPEC's 06/10/2025 while its page says 02/10/2025.
    expect(text(home.querySelector("a.card[href='/artigo-inovacao-rh'] .card-meta"))).toBe("10 min 06/10/2025");
    expect(text(page("artigo-inovacao-rh.html").querySelector(".article-meta time"))).toBe("02/10/2025");
    const transition = home.querySelector("a.card[href='/artigo-transicao']")!;
    expect(text(transition.querySelector(".badge [data-l=en]"))).toBe("Transformation");
  });

  it("editions: dates as the spec gives them, every one 15 min de leitura", () => {
    const slides = [...page("material-semana.html").querySelectorAll(".carousel-slide")];
    expect(slides.map((s) => text(s.querySelector(".carousel-date")))).toEqual(["27/10/2025", "21/10/2025", "Agosto 2025", "Julho 2025"]);
    for (const s of slides) expect(text(s.querySelector(".read-time"))).toBe("15 min de leitura");
  });
});
