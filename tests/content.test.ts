import { describe, expect, it } from "vitest";
import { articleModel, loadContent, parseArticle, routeFromPath } from "../engine/content.js";
import { parseSiteDate } from "../engine/schema.js";
import { formatError } from "../engine/errors.js";
import { editedFixture, fixture } from "./helpers.js";
import { theme } from "../templates/theme.js";

describe("content loading", () => {
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
