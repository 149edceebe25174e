/**
 * Editorial checks on the real articles (issue 4): length for the stated read time, the
 * language the front matter says, no placeholder text, and links that resolve.
 */
import { describe, expect, it } from "vitest";
import path from "node:path";
import { readFileSync } from "node:fs";
import { loadContent, markdownOf } from "../engine/stages/load/content.js";
import { sourceText } from "../engine/lib/source-text.js";
import { languageOf, type CafeArticle } from "../templates/page-context.js";
import { realSite, buildInMemory, parseHtml, projectRoot } from "./helpers.js";
import { theme } from "../templates/theme.js";
import { bodyLinks, hasHashtagsBlock, homePageLinks, isHomePage, missingSeriesLinks } from "./editorial-checks.js";
import { checkEditorialRules, isAfter } from "../engine/stages/checks/editorial-rules.js";

const built = realSite();
const { content } = await loadContent(path.join(projectRoot, "content"), theme);
const articles = content!.articles as CafeArticle[];
const routes = new Set(built.routes.map((r) => r.path));

/** The article body as a reader sees it on its page: prose, tables, lists and blocks. */
function bodyText(route: string, lang: "pt" | "en"): string {
  const route_ = built.routes.find((r) => r.path === route)!;
  const doc = built.page(route_.outFile);
  // A copy: the page is shared by every test that reads it.
  const variant = (doc.querySelector(`div[data-l=${lang}] .prose`) ?? doc.querySelector(".prose"))!.cloneNode(true) as Element;
  // textContent glues table cells and list items; separate them as a reader's eye does.
  for (const el of variant.querySelectorAll("td, th, li, p, h2, h3, h4, h5, h6")) el.append(" ");
  return variant.textContent ?? "";
}

const words = (text: string) => text.match(/[\p{L}\p{N}][\p{L}\p{N}'’-]*/gu) ?? [];

const STOP = {
  pt: new Set("a o as os de da do das dos e é em no na nos nas um uma que para com por não se mais como mas ao à sua seu você isso já também quando muito".split(" ")),
  en: new Set("the a an of and is in on to for with that this it you your are be as at by from not or but have has was more when what can".split(" ")),
};
function stopWordRatio(text: string, lang: "pt" | "en"): number {
  const tokens = words(text.toLowerCase());
  return tokens.filter((w) => STOP[lang].has(w)).length / tokens.length;
}

const cases = articles.map((a) => [`${a.route} (${a.lang})`, a] as const);

describe("the articles", () => {
  it("are all thirteen, with the transition article in both languages", () => {
    expect(articles.filter((a) => a.lang === "pt")).toHaveLength(13);
    expect(articles.filter((a) => a.lang === "en").map((a) => a.route)).toEqual(["/artigo-transicao"]);
  });

  it.each(cases)("%s is at least 150 words per minute of its read time", (_, article) => {
    const count = words(bodyText(article.route, languageOf(article))).length;
    expect(article.meta.readTime).toBeDefined();
    expect(count).toBeGreaterThanOrEqual(150 * article.meta.readTime!);
  });

  it.each(cases)("%s is written in the language its front matter says", (_, article) => {
    const text = bodyText(article.route, languageOf(article));
    const other = article.lang === "pt" ? "en" : "pt";
    const own = stopWordRatio(text, languageOf(article));
    expect(own).toBeGreaterThan(0.2);
    expect(own).toBeGreaterThan(3 * stopWordRatio(text, other));
  });

  it.each(cases)("%s has no lorem ipsum or placeholder markers", (_, article) => {
    // Case matters for the markers: Portuguese "todo" means "all".
    const text = sourceText(article);
    expect(text).not.toMatch(/lorem|ipsum|\[inserir|placeholder|a definir/i);
    expect(text).not.toMatch(/\b(TODO|TBD|FIXME|XXX)\b/);
  });

  it.each(cases)("%s links only to routes that exist and to https sites", (_, article) => {
    const doc = built.page(built.routes.find((r) => r.path === article.route)!.outFile);
    const prose = doc.querySelector(`div[data-l=${article.lang}] .prose`) ?? doc.querySelector(".prose")!;
    const hrefs = [...prose.querySelectorAll("a[href]")].map((a) => a.getAttribute("href")!);
    for (const href of hrefs) {
      if (href.startsWith("/")) expect(routes.has(href.split("#")[0]!), href).toBe(true);
      else if (!href.startsWith("#") && !href.startsWith("mailto:")) expect(href, href).toMatch(/^https:\/\/[a-z0-9.-]+\.[a-z]{2,}(\/|$)/);
    }
  });

  it("the tariffs series: each of its five pages links to the other four in its own text (DECISIONS.md)", () => {
    // The series list the template puts under each page does not count: a reader of the text
    // meets the other four where the text speaks of them (issue 33).
    const series = articles.filter((a) => a.meta.series === "tarifas-2025").map((a) => a.route).sort();
    expect(series).toHaveLength(5);
    const bodies = series.map((route) => {
      const doc = built.page(`${route.slice(1)}.html`);
      return { route, links: new Set([...doc.querySelectorAll(".prose a[href]")].map((a) => a.getAttribute("href")!.split("#")[0]!)) };
    });
    expect(missingSeriesLinks(bodies)).toEqual([]);
  });

  it.each(cases)("%s links at least one other article of the blog in its text", (_, article) => {
    const others = bodyLinks(markdownOf(article)).filter((l) => routes.has(l.target.split("#")[0]!) && l.target.split("#")[0] !== article.route && l.target !== "/");
    expect(others.length, "no link to another article").toBeGreaterThan(0);
  });

  it.each(cases)("%s is linked from the text of another article (issue 41)", (_, article) => {
    // An article no other one links to is found only from the home page's lists. The newest one
    // is the exception: no text dated before it may cite it (content/STYLE.md).
    const newest = articles.every((other) => other.route === article.route || !isAfter(other.meta.date!.iso, article.meta.date!.iso));
    if (newest) return;
    const from = articles.filter((other) => other.route !== article.route && bodyLinks(markdownOf(other)).some((l) => l.target.split("#")[0] === article.route));
    expect(from.map((other) => other.route), "no other article links to it").not.toEqual([]);
  });

  it("uses the spec's figures where the spec gives them", () => {
    const rh = bodyText("/artigo-inovacao-rh", "pt");
    for (const figure of ["83%", "87%", "6 em 10", "3,1%", "R$ 80 mil"]) expect(rh).toContain(figure);
  });
});

describe("the site's editorial rules, content/rules.yaml (issues 23, 33, 41)", () => {
  // The engine checks them on every build (warnings; errors with --strict or CI=true): here, the
  // content breaks none of them. The rules are the site's data; these tests keep no copy of them.
  const rules = content!.rules!.value;
  const findings = checkEditorialRules(content!, rules, theme.languages).map((f) => `${f.file}:${f.line}: ${f.message} [${f.rule}]`);
  const files = [...articles.map((a) => a.file), ...["cards.yaml", "editions.yaml"].map((f) => `content/${f}`)];

  it("declares the rules STYLE.md asks for: spellings, caveats, sources, update notes, pull quotes, dates, paragraph length", () => {
    expect(new Set(Object.values(rules).map((r) => r.kind))).toEqual(
      new Set(["substitution", "requires", "block-field", "update-note", "pull-quote", "later-links", "paragraph-length"]),
    );
    const spellings = Object.values(rules).flatMap((r) => (r.kind === "substitution" ? Object.values(r.swap) : []));
    expect(spellings).toEqual(expect.arrayContaining(["online", "Caged", "você", "Senac", "Senai", "Pegue o seu café", "rotatividade", "Sine"]));
  });

  it.each([
    ["grafia", "## Uma grafia para cada termo"],
    ["grafia-en", "## A versão em inglês"],
  ])("STYLE.md's table of spellings shows the rule `%s` as it is, no form more or less", (name, section) => {
    const guide = readFileSync(path.join(projectRoot, "content/STYLE.md"), "utf8");
    expect(guide).toContain(section);
    const table = guide.slice(guide.indexOf(section)).split("\n## ")[0]!;
    const rows = table.split("\n").filter((line) => line.startsWith("|")).slice(2);
    const avoided = rows.flatMap((row) => [...row.split("|")[2]!.matchAll(/`([^`]+)`/g)].map((m) => m[1]!));
    const rule = rules[name];
    expect(rule?.kind).toBe("substitution");
    expect(avoided.sort()).toEqual(Object.keys(rule!.kind === "substitution" ? rule!.swap : {}).sort());
  });

  it.each(files)("%s breaks none of them", (file) => {
    expect(findings.filter((f) => f.startsWith(`${file}:`))).toEqual([]);
  });

  it.each(cases)("%s: every reference opens a document, not a site's home page", (_, article) => {
    const doc = built.page(built.routes.find((r) => r.path === article.route)!.outFile);
    const variant = doc.querySelector(`div[data-l=${article.lang}]`) ?? doc;
    const urls = [...variant.querySelectorAll(".references a[href]")].map((a) => a.getAttribute("href")!);
    expect(urls.filter(isHomePage)).toEqual([]);
  });

  it.each(cases)("%s: a link in the text opens the service or document, not a publisher's home page (issue 33)", (_, article) => {
    expect(homePageLinks(markdownOf(article))).toEqual([]);
  });

  it.each(cases)("%s ends with the hashtags block, #CaféComACris last", (_, article) => {
    expect(hasHashtagsBlock(markdownOf(article))).toBe(true);
    const doc = built.page(built.routes.find((r) => r.path === article.route)!.outFile);
    const variant = doc.querySelector(`div[data-l=${article.lang}]`) ?? doc;
    const tags = [...variant.querySelectorAll(".hashtag")].map((li) => li.textContent?.trim());
    expect(tags.at(-1)).toBe("#CaféComACris");
  });
});
