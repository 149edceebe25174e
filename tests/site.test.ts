/** The real content/: every route of SPEC §2 with its metadata and structured blocks. */
import { describe, expect, it } from "vitest";
import path from "node:path";
import { realSite, buildInMemory, parseHtml, projectRoot, text } from "./helpers.js";

const built = realSite();
const page = (route: string) => built.page(route === "/" ? "index.html" : `${route.slice(1)}.html`);

// SPEC §2 and DECISIONS "Article metadata": route, title, category, date, read time.
const ARTICLES: [string, string, string, string, number][] = [
  ["/artigo/tarifas-trump-mercado-trabalho", "Tarifas de Trump: o que muda para o mercado de trabalho brasileiro", "Mercado de Trabalho", "04/08/2025", 7],
  ["/artigo/dicas-sites-recomendacoes-trabalhadores", "Dicas, sites e recomendações para trabalhadores afetados", "Mercado de Trabalho", "04/08/2025", 5],
  ["/artigo/programas-qualificacao-profissional-2025", "Programas de qualificação profissional em 2025", "Qualificação", "04/08/2025", 6],
  ["/artigo/setores-crescimento-crise", "Setores que crescem em meio à crise", "Economia", "04/08/2025", 6],
  ["/artigo/proteger-financas-crise", "Como proteger suas finanças em tempos de crise", "Finanças", "04/08/2025", 5],
  ["/material-semana", "Material da Semana", "Curadoria", "Agosto 2025", 20],
  ["/descompasso-seculo-xxi", "O Descompasso do Século XXI: a tecnologia acelera, o ser humano tem seu ritmo", "Reflexão", "Agosto 2025", 10],
  ["/via-mao-dupla-lealdade", "Lealdade: uma via de mão dupla", "Cultura Organizacional", "Agosto 2025", 15],
  ["/artigo-burnout-inovacao", "O Custo Invisível da Inovação: burnout e saúde mental", "Saúde Mental", "11/10/2025", 12],
  ["/artigo-inovacao-rh", "Inovação em RH como estratégia de negócio em Minas Gerais", "Gestão de Pessoas", "02/10/2025", 10],
  ["/artigo-sistema-notas", "Sistemas de Notas: como organizar suas ideias e escolher a ferramenta certa", "Produtividade", "19/09/2025", 8],
  ["/artigo-transicao", "O Renascimento Profissional", "Transformação", "21/10/2025", 15],
  ["/artigo-herois-economia", "Heróis da Nossa Economia", "Empreendedorismo", "27/10/2025", 15],
];

describe("the real site", () => {
  it("builds without errors and writes exactly the spec's routes and the 404 page", () => {
    expect(built.errors).toEqual([]);
    expect(built.routes.map((r) => r.path).sort()).toEqual(["/", "/404", ...ARTICLES.map((a) => a[0])].sort());
  });

  it.each(ARTICLES)("%s shows its title, category, date and read time", (route, title, category, date, minutes) => {
    const doc = page(route);
    const header = doc.querySelector("[data-l=pt] .article-header") ?? doc.querySelector(".article-header")!;
    expect(text(header.querySelector("h1"))).toBe(title);
    expect(text(header.querySelector(".article-meta .badge"))).toBe(category);
    expect(text(header.querySelector("time"))).toBe(date);
    expect(text(header.querySelector(".article-meta"))).toContain(`${minutes} min de leitura`);
    expect(text(doc.querySelector("title"))).toBe(`${title} | Café com a Cris`);
    expect(doc.querySelector("meta[name=description]")?.getAttribute("content")?.length).toBeGreaterThan(40);
    expect(doc.querySelector("a.back-link")?.getAttribute("href")).toBe("/");
    expect(text(header.querySelector(".share-button"))).toBe("Compartilhar");
  });

  it("home: the heroes article on top, then Artigos Anteriores with the 7 cards in the spec's order", () => {
    const doc = page("/");
    expect(text(doc.querySelector(".home-featured h1"))).toBe("Heróis da Nossa Economia");
    expect(text(doc.querySelector("#previous-title"))).toBe("Artigos Anteriores");
    expect(text(doc.querySelector(".previous .section-subtitle"))).toBe("Explore temas que transformam carreiras e organizações");
    const cards = [...doc.querySelectorAll("a.card")];
    expect(cards.map((c) => c.getAttribute("href"))).toEqual([
      "/artigo-transicao",
      "/artigo-burnout-inovacao",
      "/artigo-inovacao-rh",
      "/artigo-sistema-notas",
      "/via-mao-dupla-lealdade",
      "/descompasso-seculo-xxi",
      "/material-semana",
    ]);
    // As a Portuguese reader sees them (the transition card also carries its English date).
    const portuguese = (el: Element) => {
      const copy = el.cloneNode(true) as Element;
      for (const english of copy.querySelectorAll("[data-l=en]")) english.remove();
      return text(copy);
    };
    const meta = cards.map((c) => [text(c.querySelector(".badge [data-l=pt]") ?? c.querySelector(".badge")), portuguese(c.querySelector(".card-meta")!)]);
    expect(meta).toEqual([
      ["Transformação", "15 min 21/10/2025"],
      ["Saúde Mental", "12 min 11/10/2025"],
      ["Gestão de Pessoas", "10 min 06/10/2025"],
      ["Produtividade", "8 min 19/09/2025"],
      ["Cultura Organizacional", "15 min Agosto 2025"],
      ["Reflexão", "10 min Agosto 2025"],
      ["Curadoria", "20 min Agosto 2025"],
    ]);
    for (const card of cards) expect(card.querySelector(".card-icon svg")).not.toBeNull();
    expect(text(cards[0]!.querySelector(".card-title [data-l=en]"))).toBe("Professional Rebirth");
  });

  it("HR innovation: badge, executive summary, 83% / 87% / 6 em 10, the map figures, 3 phases and 8 steps, 3 actions", () => {
    const doc = page("/artigo-inovacao-rh");
    expect(text(doc.querySelector(".badge-highlight"))).toBe("Artigo da Semana");
    expect(text(doc.querySelector(".callout-summary .callout-title"))).toBe("Resumo executivo");
    const values = [...doc.querySelectorAll(".stat-cards")][0]!.querySelectorAll(".stat-value");
    expect([...values].map(text)).toEqual(["83%", "87%", "6 em 10"]);
    const body = text(doc.querySelector(".prose"));
    expect(body).toMatch(/3,1%/);
    expect(body).toMatch(/R\$ 80 mil/);
    expect(doc.querySelectorAll(".roadmap-phase")).toHaveLength(3);
    expect([...doc.querySelectorAll(".roadmap-number")].map(text)).toEqual(["1", "2", "3", "4", "5", "6", "7", "8"]);
    expect(doc.querySelectorAll(".hashtag").length).toBeGreaterThan(0);
  });

  it("note systems: 38 tools in 9 columns with Abrir links, winners, a 6-column top 10 with the 29,5/30 winner, 5 pillars, 4 weeks, before/after", () => {
    const doc = page("/artigo-sistema-notas");
    const tools = doc.querySelector(".tool-table")!;
    expect(tools.querySelectorAll("thead th")).toHaveLength(9);
    const rows = [...tools.querySelectorAll("tbody tr")];
    expect(rows).toHaveLength(38);
    for (const row of rows) {
      const link = row.querySelector("a.open-link")!;
      expect(text(link)).toMatch(/^Abrir /);
      expect(link.getAttribute("href")).toMatch(/^https:\/\//);
      expect(link.getAttribute("target")).toBe("_blank");
      expect(link.getAttribute("rel")).toBe("noopener noreferrer");
    }
    expect(new Set(rows.map((r) => text(r.querySelector("th")))).size).toBe(38);
    const scores = doc.querySelector(".score-table")!;
    expect(scores.querySelectorAll("thead th")).toHaveLength(6);
    expect(scores.querySelectorAll("tbody tr")).toHaveLength(10);
    const winner = scores.querySelectorAll("tr.is-winner");
    expect(winner).toHaveLength(1);
    expect(text(winner[0]!.querySelector(".score-total"))).toBe("29,5/30");
    expect(doc.querySelectorAll(".winner-card").length).toBeGreaterThanOrEqual(3);
    expect(doc.querySelectorAll(".pillar")).toHaveLength(5);
    expect(doc.querySelectorAll(".plan-week")).toHaveLength(4);
    expect(doc.querySelectorAll(".before-after-column")).toHaveLength(2);
  });

  it("colours rating labels and score bands as SPEC §9 says", () => {
    const doc = page("/artigo-sistema-notas");
    for (const rating of doc.querySelectorAll(".tool-table .rating")) {
      const label = text(rating);
      const tone = { Excelente: "green", Boa: "blue", Média: "yellow", Básica: "orange", Limitada: "red", Limitado: "red" }[label] ?? "grey";
      expect(rating.className).toContain(`tone-${tone}`);
    }
    for (const score of doc.querySelectorAll(".score-table .score:not(.score-total)")) {
      const n = Number(text(score).replace(",", "."));
      const tone = n >= 9 ? "green" : n >= 8 ? "blue" : n >= 7 ? "yellow" : "red";
      expect(score.className).toContain(`tone-${tone}`);
    }
  });

  it("burnout: peer council, closing quote, 12 references, the author's note and four hashtags", () => {
    const doc = page("/artigo-burnout-inovacao");
    expect(text(doc.querySelector(".prose")).toLowerCase()).toContain("conselho de pares");
    expect(doc.querySelector(".pull-quote")).not.toBeNull();
    expect(doc.querySelectorAll(".references > li")).toHaveLength(12);
    expect(text(doc.querySelector(".callout-note .callout-title"))).toBe("Nota da autora");
    expect(doc.querySelectorAll(".hashtag")).toHaveLength(4);
  });

  it("Material da Semana: news items and the 4-edition carousel with Atual, dots, Ler Edição and 15 min de leitura", () => {
    const doc = page("/material-semana");
    expect(doc.querySelectorAll(".prose h3").length).toBeGreaterThanOrEqual(4);
    const slides = [...doc.querySelectorAll(".carousel-slide")];
    expect(slides.map((s) => text(s.querySelector(".carousel-slide-title")))).toEqual([
      "Heróis da Nossa Economia",
      "O Renascimento Profissional",
      "Tarifas e o Mercado de Trabalho",
      "Finanças e Carreira em Tempos de Incerteza",
    ]);
    expect(slides[0]!.className).toContain("is-current");
    expect(text(slides[0]!.querySelector(".badge-current"))).toBe("Atual");
    expect(doc.querySelectorAll(".badge-current")).toHaveLength(1);
    expect(slides.map((s) => s.querySelector("a")?.getAttribute("href"))).toEqual([
      "/artigo-herois-economia",
      "/artigo-transicao",
      "/artigo/tarifas-trump-mercado-trabalho",
      "/artigo/proteger-financas-crise",
    ]);
    for (const s of slides) {
      expect(text(s.querySelector("a"))).toBe("Ler Edição");
      expect(text(s.querySelector(".read-time"))).toBe("15 min de leitura");
    }
    expect(doc.querySelectorAll(".carousel-dot")).toHaveLength(4);
    expect(doc.querySelector(".carousel-dot")?.getAttribute("aria-current")).toBe("true");
  });

  it("the five /artigo/... pages link to each other as one series", () => {
    const series = ARTICLES.filter((a) => a[0].startsWith("/artigo/")).map((a) => a[0]);
    for (const route of series) {
      const links = [...page(route).querySelectorAll(".series-nav a")].map((a) => a.getAttribute("href"));
      expect(links.sort()).toEqual(series.filter((r) => r !== route).sort());
    }
  });

  it("the transition article exists in both languages with the same six sections", () => {
    const doc = page("/artigo-transicao");
    const pt = doc.querySelector("div[data-l=pt]")!;
    const en = doc.querySelector("div[data-l=en]")!;
    expect(text(en.querySelector("h1"))).toBe("Professional Rebirth");
    expect(en.getAttribute("lang")).toBe("en");
    const h2 = (el: Element) => [...el.querySelectorAll(".prose > h2")].map(text);
    expect(h2(pt)).toHaveLength(6);
    expect(h2(en)).toHaveLength(6);
    expect(h2(pt)).toContain("A travessia invisível");
    expect(h2(en)).toContain("The invisible crossing");
  });

  it("404: the code, Oops! Page not found and Return to Home", () => {
    const doc = built.page("404.html");
    expect(text(doc.querySelector("h1"))).toBe("404");
    expect(text(doc.querySelector(".not-found-text"))).toBe("Oops! Page not found");
    const back = doc.querySelector(".not-found a")!;
    expect(text(back)).toBe("Return to Home");
    expect(back.getAttribute("href")).toBe("/");
    expect(doc.querySelector("section.newsletter")).not.toBeNull();
  });

  it("the footer's policy links open the privacy page in a new tab", () => {
    const links = [...page("/").querySelectorAll("footer a")];
    expect(links.map(text)).toEqual(["Política de Privacidade", "Política de Cookies"]);
    for (const link of links) {
      expect(link.getAttribute("target")).toBe("_blank");
      expect(link.getAttribute("rel")).toBe("noopener noreferrer");
    }
  });

  it("every external link on every page opens in a new tab with noopener noreferrer", () => {
    for (const route of built.routes) {
      const doc = built.page(route.outFile);
      for (const a of doc.querySelectorAll("a[href]")) {
        const href = a.getAttribute("href")!;
        expect(href).toMatch(/^(\/|#|https?:\/\/|mailto:)/);
        if (/^https?:/.test(href)) {
          expect(a.getAttribute("target"), `${route.path}: ${href}`).toBe("_blank");
          expect(a.getAttribute("rel")).toBe("noopener noreferrer");
        }
      }
    }
  });
});
