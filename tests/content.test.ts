import { describe, expect, it } from "vitest";
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { articleModel, loadContent, parseArticle, routeFromPath } from "../engine/stages/load/content.js";
import { parseSiteDate } from "../engine/stages/load/content-model.js";
import { formatError } from "../engine/lib/errors.js";
import { editedFixture, fixture } from "./helpers.js";
import { theme } from "../templates/theme.js";
import { hasHashtagsBlock, homePageLinks, isHomePage, missingSeriesLinks } from "./editorial-checks.js";

describe("content loading", () => {
  it("a data file with a key written twice in one object fails at the second one (JSON.parse would keep the last without a word)", async () => {
    const dir = await editedFixture("basic", { "data/twice.json": '{\n  "rows": [\n    { "name": "a", "name": "b" }\n  ]\n}\n' });
    const { content, errors } = await loadContent(dir, theme);
    // The rest loaded and is checked; this file is named as one that did not load.
    expect(content!.unavailable.map((f) => f.split("/").slice(-2).join("/"))).toEqual(["data/twice.json"]);
    expect(errors.map(formatError).join("\n")).toContain("data/twice.json:3:20");
    expect(errors.map((e) => e.message)).toEqual(['invalid JSON: the key "name" appears twice in one object']);
  });


  it("loads a valid content folder with typed, validated entries", async () => {
    const { content, errors } = await loadContent(fixture("basic"), theme);
    expect(errors).toEqual([]);
    expect(content!.articles.map((a) => `${a.route}:${a.lang}`).sort()).toEqual([
      "/guia/so-titulo:pt",
      "/primeiro:en",
      "/primeiro:pt",
    ]);
    const first = content!.articles.find((a) => a.route === "/primeiro" && a.lang === "pt")!;
    expect(first.meta.date).toEqual({ text: "01/09/2025", iso: "2025-09-01" });
    expect(first.meta.readTime).toBe(5);
    expect(first.meta.share).toEqual({ text: true, fallback: "alert" });
    expect(content!.collections.cards!.value).toHaveLength(2);
    expect(content!.data.get("tools")?.value).toHaveLength(2);
  });

  it("accepts an article whose front matter holds only a title, routing it by its path", () => {
    const result = parseArticle("---\ntitle: Só título\n---\nTexto.\n", "content/articles/bench/foo.md", "bench/foo.md", articleModel(theme));
    expect("article" in result).toBe(true);
    if ("article" in result) {
      expect(result.article.route).toBe("/bench/foo");
      expect(result.article.lang).toBe("pt");
      expect(result.article.meta.category).toBeUndefined();
    }
  });

  it("checks a route made from a file's name as a `route:` key is checked: an error at the file, never a route", async () => {
    const names = ["x; /artigo-transicao /\\evil.com.md", "café com leite.md", "duas\nlinhas.md"];
    // The first is the folder `x; `, in it `artigo-transicao `, in it the file `\\evil.com.md`.
    const dir = await editedFixture("basic", {});
    for (const name of names) {
      await mkdir(path.dirname(path.join(dir, "articles", name)), { recursive: true });
      await writeFile(path.join(dir, "articles", name), "---\ntitle: Nome\ndate: 2025-01-02\n---\nTexto.\n");
    }
    const { content, errors } = await loadContent(dir, theme);
    const routes = content!.articles.map((a) => a.route);
    expect(routes.filter((r) => /[^a-z0-9/-]/.test(r))).toEqual([]);
    expect(errors).toHaveLength(3);
    for (const name of names) {
      const error = errors.find((e) => e.file.endsWith(`articles/${name}`));
      expect(error, name).toBeDefined();
      expect(formatError(error!)).toContain(`articles/${name}:1`);
      expect(error!.message).toMatch(/^the file's name gives it the route ".*", which is not one: a route must be a path like \/artigo-transicao/);
      expect(error!.hint).toMatch(/rename the file .*or give it a `route:`/);
    }
    // A name that is not a route is fine with a `route:` of its own.
    const routed = parseArticle("---\ntitle: Café\nroute: /cafe-com-leite\n---\n", "content/articles/café com leite.md", "café com leite.md", articleModel(theme));
    expect("article" in routed && routed.article.route).toBe("/cafe-com-leite");
  });

  it("derives routes and language from file names", () => {
    expect(routeFromPath("artigo/tarifas.md")).toEqual({ route: "/artigo/tarifas", lang: undefined });
    expect(routeFromPath("artigo-transicao.en.md", theme.languages)).toEqual({ route: "/artigo-transicao", lang: "en" });
    expect(routeFromPath("guia/index.md")).toEqual({ route: "/guia", lang: undefined });
  });

  it("parses the three date forms authors write, and rejects impossible dates", () => {
    expect(parseSiteDate("04/08/2025")).toEqual({ text: "04/08/2025", iso: "2025-08-04" });
    expect(parseSiteDate("2025-10-02")).toEqual({ text: "02/10/2025", iso: "2025-10-02" });
    expect(parseSiteDate("Agosto 2025")).toEqual({ text: "Agosto 2025", iso: "2025-08" });
    expect(parseSiteDate("31/02/2025")).toBeUndefined();
    expect(parseSiteDate("ontem")).toBeUndefined();
  });
});

describe("invalid front matter", () => {
  const parse = (source: string) => parseArticle(source, "content/articles/x.md", "x.md", articleModel(theme));

  it("reports malformed YAML with its line and a code frame", () => {
    const result = parse("---\ntitle: Um título\ncategory: [sem fechar\nlead: ok\n---\nTexto\n");
    expect("errors" in result).toBe(true);
    if (!("errors" in result)) return;
    const [error] = result.errors;
    expect(error!.file).toBe("content/articles/x.md");
    expect(error!.line).toBeGreaterThanOrEqual(3);
    expect(error!.message).toMatch(/invalid YAML/);
    expect(formatError(error!)).toMatch(/content\/articles\/x\.md:\d+:\d+: invalid YAML/);
    expect(formatError(error!)).toContain("category: [sem fechar");
  });

  it("reports a missing title at the top of the front matter", () => {
    const result = parse("---\ncategory: Carreira\n---\nTexto\n");
    if (!("errors" in result)) throw new Error("expected errors");
    expect(result.errors[0]!.message).toBe("`title` is required");
  });

  it("names the line and key of a bad value, and says what is expected", () => {
    const result = parse("---\ntitle: Ok\ncategory: Carreira\ndate: ontem\n---\nTexto\n");
    if (!("errors" in result)) throw new Error("expected errors");
    const error = result.errors[0]!;
    expect(error.line).toBe(4);
    expect(error.key).toBe("date");
    expect(error.message).toContain("DD/MM/YYYY");
    expect(error.message).toContain("'ontem'");
  });

  it("suggests the nearest known key for a misspelt one inside share", () => {
    const result = parse("---\ntitle: Ok\nshare:\n  fallbak: alert\n---\nTexto\n");
    if (!("errors" in result)) throw new Error("expected errors");
    const error = result.errors[0]!;
    expect(error.line).toBe(4);
    expect(error.message).toBe("unknown key `share.fallbak`");
  });

  it("rejects a file without front matter and says how to start one", () => {
    const result = parse("# Só Markdown\n");
    if (!("errors" in result)) throw new Error("expected errors");
    expect(result.errors[0]!.hint).toContain("---");
  });

  it("collects errors from several files in one pass, and goes on with the articles that loaded", async () => {
    const dir = await editedFixture("basic", {
      "articles/primeiro.md": (s) => s.replace("readTime: 5", "readTime: cinco"),
      "articles/guia/so-titulo.md": "---\ntitle:\n---\nTexto\n",
    });
    const { content, errors, failed } = await loadContent(dir, theme);
    expect(content!.articles.filter((a) => /primeiro\.md$|so-titulo\.md$/.test(a.file))).toEqual([]);
    expect(content!.articles.length).toBeGreaterThan(0);
    expect([...failed.values()].map((f) => f.route).sort()).toEqual(["/guia/so-titulo", "/primeiro"]);
    expect(errors.map((e) => e.file.replace(/.*articles\//, "")).sort()).toEqual(["guia/so-titulo.md", "primeiro.md"]);
  });

  it("warns (without failing) while a site URL is still a placeholder", async () => {
    const { warnings, errors } = await loadContent(fixture("basic"), theme);
    expect(errors).toEqual([]);
    expect(warnings.map((w) => w.message).join("\n")).toMatch(/`brand\.url` is still a placeholder/);
    expect(warnings.map((w) => w.message).join("\n")).toMatch(/`privacyUrl` is still a placeholder/);
  });
});

describe("the checks of content/STYLE.md that are not rules of content/rules.yaml, on examples", () => {
  it("tells a home page from a document's own page", () => {
    expect(isHomePage("https://www.ilo.org")).toBe(true);
    expect(isHomePage("https://www.ilo.org/")).toBe(true);
    expect(isHomePage("https://startupgenome.com/report/gser2024")).toBe(false);
    expect(isHomePage("https://www.gov.br/previdencia/pt-br/noticias/2024/dezembro/anuario")).toBe(false);
    // gov.br hosts every ministry: an organ's front page is a home page too, with or without /pt-br.
    expect(isHomePage("https://www.gov.br/trabalho-e-emprego")).toBe(true);
    expect(isHomePage("https://www.gov.br/previdencia/pt-br/")).toBe(true);
    expect(isHomePage("https://www.gov.br/pt-br/servicos/solicitar-o-seguro-desemprego")).toBe(false);
  });

  it("finds a publisher's home page in a body, and lets a service that is its own front page pass", () => {
    const body = [
      "As regras estão no site do [Ministério do Trabalho e Emprego](https://www.gov.br/trabalho-e-emprego).",
      "Veja o [FGTS](https://www.caixa.gov.br/beneficios-trabalhador/fgts/Paginas/default.aspx) e a [Caixa](https://www.caixa.gov.br).",
      "Cursos na [Escola Virtual de Governo](https://www.escolavirtual.gov.br) e no [Sebrae](https://sebrae.com.br/).",
    ].join("\n");
    expect(homePageLinks(body)).toEqual([
      "line 1: https://www.gov.br/trabalho-e-emprego",
      "line 2: https://www.caixa.gov.br",
      "line 3: https://sebrae.com.br/",
    ]);
    expect(homePageLinks("O [Registrato](https://www.bcb.gov.br/cidadaniafinanceira/registrato), no [Consumidor.gov.br](https://www.consumidor.gov.br).")).toEqual([]);
  });

  it("names each series link missing from a body", () => {
    const links = (...routes: string[]) => new Set(routes);
    expect(
      missingSeriesLinks([
        { route: "/a", links: links("/b", "/c") },
        { route: "/b", links: links("/a") },
        { route: "/c", links: links("/a", "/b", "/fora") },
      ]),
    ).toEqual(["/b → /c"]);
  });

  it("sees whether the hashtags block is placed", () => {
    expect(hasHashtagsBlock("Texto.\n\n::hashtags\n")).toBe(true);
    expect(hasHashtagsBlock("Texto sobre ::hashtags no meio.\n")).toBe(false);
  });
});
