/**
 * The English version of a page is English throughout: every label a template or a block
 * prints comes from the texts of the content's language (content/site.yaml `labels`,
 * templates/texts.ts), and Compartilhar shares the English title and lead. Only the chrome
 * the spec keeps Portuguese in both languages (Voltar ao Blog, Compartilhar, the header
 * buttons, the newsletter, the footer, the toasts) reads the same.
 */
import { describe, expect, it } from "vitest";
import { articleModel, loadContent, parseArticle } from "../engine/stages/load/content.js";
import { renderMarkdown } from "../engine/stages/markdown/article-markdown.js";
import { formatDate } from "../engine/stages/load/content-model.js";
import { buildInMemory, editedFixture, fixture, parseHtml, realSite, text } from "./helpers.js";
import { theme } from "../templates/theme.js";
import type { ShareButtonProps } from "../client/islands/share-button.js";
import type { EditionsCarouselProps } from "../client/islands/editions-carousel.js";

/** Labels the templates print in Portuguese, as patterns that cannot match English prose. */
const PORTUGUESE_LABELS: [string, RegExp][] = [
  ["Fonte", /\bFonte\b/],
  ["Antes", /\bAntes\b/],
  ["Depois", /\bDepois\b/],
  ["min de leitura", /min de leitura/],
  ["Nesta série", /Nesta série/],
  ["Semana N", /\bSemana \d/],
  ["Tabela", /\bTabela\b/],
  ["Vencedora", /\bVencedora\b/],
  ["Ferramenta", /\bFerramenta\b/],
  ["Abrir", /\bAbrir\b/],
  ["Edições Anteriores", /Edições Anteriores/],
  ["Ler Edição", /Ler Edição/],
  ["Atual", /\bAtual\b/],
  ["Notas de rodapé", /Notas de rodapé/],
  ["Voltar ao texto", /Voltar ao texto/],
];

/** What a reader or a screen reader gets from an element: its text and its labelling attributes. */
function readable(element: Element): string {
  const attributes = [...element.querySelectorAll("*")].flatMap((el) =>
    ["aria-label", "aria-roledescription", "title", "alt"].map((name) => el.getAttribute(name) ?? ""),
  );
  return [element.textContent ?? "", ...attributes].join("\n");
}

function portugueseLabelsIn(element: Element): string[] {
  const all = readable(element);
  return PORTUGUESE_LABELS.filter(([, pattern]) => pattern.test(all)).map(([name]) => name);
}

const islandProps = <P>(root: Element, name: string): P => JSON.parse(root.querySelector(`[data-island="${name}"]`)!.getAttribute("data-props")!) as P;

describe("the English transition article (/artigo-transicao)", () => {
  const doc = realSite().page("artigo-transicao.html");
  const pt = doc.querySelector("div[data-l=pt]")!;
  const en = doc.querySelector("div[data-l=en]")!;

  it("shows no Portuguese label inside its English body", () => {
    expect(en.getAttribute("lang")).toBe("en");
    expect(portugueseLabelsIn(en)).toEqual([]);
  });

  it("shows Source, Before, After and min read", () => {
    expect(text(en.querySelector(".article-meta"))).toContain("15 min read");
    const sources = [...en.querySelectorAll(".stat-source")].map(text);
    expect(sources.length).toBeGreaterThan(0);
    for (const source of sources) expect(source).toMatch(/^Source: /);
    const before = en.querySelector(".before-after-column.before")!;
    const after = en.querySelector(".before-after-column.after")!;
    expect(before.getAttribute("aria-label")).toBe("Before");
    expect(text(before.querySelector("h2, h3, h4, h5, h6"))).toBe("Before");
    expect(after.getAttribute("aria-label")).toBe("After");
    expect(text(after.querySelector("h2, h3, h4, h5, h6"))).toBe("After");
  });

  it("keeps the Portuguese labels in the Portuguese body", () => {
    expect(text(pt.querySelector(".article-meta"))).toContain("15 min de leitura");
    for (const source of pt.querySelectorAll(".stat-source")) expect(text(source)).toMatch(/^Fonte: /);
    expect(pt.querySelector(".before-after-column.before")!.getAttribute("aria-label")).toBe("Antes");
    expect(pt.querySelector(".before-after-column.after")!.getAttribute("aria-label")).toBe("Depois");
  });

  it("gives its date as each reader writes it: 21/10/2025 in Portuguese, Oct 21, 2025 in English", () => {
    expect(en.querySelector(".article-meta time")?.getAttribute("datetime")).toBe("2025-10-21");
    expect(text(en.querySelector(".article-meta time"))).toBe("Oct 21, 2025");
    expect(text(pt.querySelector(".article-meta time"))).toBe("21/10/2025");
  });

  it("keeps the chrome the spec fixes in Portuguese: Compartilhar", () => {
    expect(text(en.querySelector(".share-button"))).toBe("Compartilhar");
  });

  it("shares the English title from the English version, the Portuguese one from the Portuguese", () => {
    const shareEn = islandProps<ShareButtonProps>(en, "share");
    const sharePt = islandProps<ShareButtonProps>(pt, "share");
    expect(shareEn.title).toBe("Professional Rebirth");
    expect(sharePt.title).toBe("O Renascimento Profissional");
    expect(shareEn.settings).toEqual(sharePt.settings);
  });
});

describe("dates in the reader's language", () => {
  it("the transition card on the home page: 21/10/2025, and Oct 21, 2025 under the English switch", () => {
    const home = realSite().page("index.html");
    const card = home.querySelector('.card[href="/artigo-transicao"] .card-meta')!;
    const date = [...card.querySelectorAll(".meta-item")].at(-1)!;
    expect(text(date.querySelector('[data-l="pt"]'))).toBe("21/10/2025");
    expect(text(date.querySelector('[data-l="en"]'))).toBe("Oct 21, 2025");
    // A card without an English version has one date, as written.
    expect(text(home.querySelector('.card[href="/artigo-burnout-inovacao"] .card-meta'))).toContain("11/10/2025");
    expect(home.querySelector('.card[href="/artigo-burnout-inovacao"] .card-meta [data-l="en"]')).toBeNull();
  });

  it("a month alone reads August 2025 in English and as written in Portuguese", () => {
    expect(formatDate("Agosto 2025", "en")).toBe("August 2025");
    expect(formatDate("Agosto 2025", "pt")).toBe("Agosto 2025");
    expect(formatDate("2025-08-04", "en")).toBe("Aug 4, 2025");
    expect(formatDate("2025-08-04", "pt")).toBe("04/08/2025");
    expect(formatDate("Em breve", "en")).toBe("Em breve");
  });
});

describe("an English article with every labelled block (fixture)", async () => {
  const dir = await editedFixture("basic", {
    "articles/primeiro.en.md": `---
title: First article
lang: en
category: Career
date: 01/09/2025
readTime: 5
lead: The start of a conversation about careers.
statCards:
  - value: "83%"
    label: use AI at work
    source: A survey
plan:
  - week: 1
    title: Start
    tasks: [Write things down]
beforeAfter:
  before: [Scattered notes]
  after: [One inbox]
scoreTable:
  - id: 1
    tool: Notion
    priceIAScore: 9.5
    onlineScore: 10
    versatilityScore: 10
    totalScore: 29.5
    link: https://www.notion.so
    highlighted: true
---

## Opening section

English text with a note.[^1]

::stat-cards

::plan

::before-after

::tool-table{src="tools"}

::score-table

::editions-carousel

[^1]: The note.
`,
  });
  const built = await buildInMemory(dir);
  const doc = parseHtml(built.writer.text("primeiro.html"));
  const en = doc.querySelector("div[data-l=en]")!;

  it("builds", () => {
    expect(built.errors.map((e) => e.message)).toEqual([]);
  });

  it("prints every label in English", () => {
    expect(portugueseLabelsIn(en)).toEqual([]);
    expect(text(en.querySelector(".stat-source"))).toBe("Source: A survey");
    expect(text(en.querySelector(".plan-label"))).toBe("Week 1");
    expect([...en.querySelectorAll(".tool-table thead th")].map(text)).toEqual([
      "Tool",
      "Capture",
      "Search",
      "Linking",
      "Collaboration",
      "Offline",
      "AI",
      "Notes",
      "Link",
    ]);
    expect(text(en.querySelector(".tool-table .winner-mark"))).toBe("Winner");
    expect(text(en.querySelector(".tool-table a.open-link"))).toBe("Open Obsidian");
    expect(text(en.querySelector(".score-table .winner-mark"))).toBe("Overall winner");
    expect(text(en.querySelector(".score-table .score-total"))).toBe("29.5/30");
    expect(text(en.querySelector(".footnotes h2"))).toBe("Footnotes");
    expect(en.querySelector(".footnotes a[data-footnote-backref]")?.getAttribute("aria-label")).toMatch(/^Back to content/);
  });

  it("gives the editions carousel its English labels, on the server and in the island's props", () => {
    expect(text(en.querySelector(".carousel-title"))).toBe("Previous Editions");
    expect(text(en.querySelector(".badge-current"))).toBe("Current");
    expect(text(en.querySelector(".carousel-slide a"))).toBe("Read Edition");
    expect(text(en.querySelector(".read-time"))).toBe("15 min read");
    expect(en.querySelector(".carousel-slide")?.getAttribute("aria-label")).toBe("1 of 2");
    const props = islandProps<EditionsCarouselProps>(en, "editions-carousel");
    expect(props.labels.moved).toBe("Edition {n} of {count}: {title}");
    const pt = doc.querySelector("div[data-l=pt]")!;
    expect(text(pt.querySelector(".carousel-title"))).toBe("Edições Anteriores");
    expect(islandProps<EditionsCarouselProps>(pt, "editions-carousel").labels.open).toBe("Ler Edição");
  });

  it("shares the English title and lead with the page's share settings", () => {
    // primeiro.md sets `share: {text: true, fallback: alert}`; its English version sets none.
    const share = islandProps<ShareButtonProps>(en, "share");
    expect(share.title).toBe("First article");
    expect(share.text).toBe("The start of a conversation about careers.");
    expect(share.settings).toEqual({ text: true, fallback: "alert" });
    const pt = islandProps<ShareButtonProps>(doc.querySelector("div[data-l=pt]")!, "share");
    expect(pt.title).toBe("Primeiro artigo");
    expect(pt.text).toBe("O começo de uma conversa sobre carreira.");
  });
});

describe("the labels in content/site.yaml", () => {
  it("reject a misspelt or missing placeholder, at its line", async () => {
    const dir = await editedFixture("basic", {
      "site.yaml": (s) => s.replace('readTime: "{minutes} min read"', 'readTime: "{minuts} min read"'),
    });
    const { errors } = await loadContent(dir, theme);
    expect(errors.map((e) => e.message)).toEqual([
      "`labels.en.readTime` must contain {minutes}, where the page puts the number",
      "`labels.en.readTime` uses {minuts}, which is not filled in here; this label can use {minutes}",
    ]);
    const source = errors[0]!.source!.split("\n");
    expect(source[errors[0]!.line! - 1]).toContain("{minuts} min read");
  });
});

describe("Markdown tables", () => {
  it("label their scrolling region in the article's language", async () => {
    const site = (await loadContent(fixture("basic"), theme)).content!;
    const table = "| a | b |\n|---|---|\n| 1 | 2 |\n";
    const labelOf = (file: string, relative: string) => {
      const parsed = parseArticle(`---\ntitle: T\n---\n${table}`, file, relative, articleModel(theme));
      if (!("article" in parsed)) throw new Error("did not parse");
      return /aria-label="([^"]*)"/.exec(renderMarkdown(parsed.article, site, theme).html)?.[1];
    };
    expect(labelOf("content/articles/t.md", "t.md")).toBe("Tabela");
    expect(labelOf("content/articles/t.en.md", "t.en.md")).toBe("Table");
  });
});
