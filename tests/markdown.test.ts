import { describe, expect, it } from "vitest";
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { articleModel, loadContent, parseArticle, type SiteContent } from "../engine/stages/load/content.js";
import { renderMarkdown } from "../engine/stages/markdown/article-markdown.js";
import { fixture, parseHtml, projectRoot } from "./helpers.js";
import { theme } from "../templates/theme.js";

const site = (await loadContent(fixture("basic"), theme)).content as SiteContent;

function render(markdown: string, frontMatter = "title: Teste") {
  const parsed = parseArticle(`---\n${frontMatter}\n---\n${markdown}`, "content/articles/teste.md", "teste.md", articleModel(theme));
  if (!("article" in parsed)) throw new Error(parsed.errors.map((e) => e.message).join("\n"));
  const result = renderMarkdown(parsed.article, site, theme);
  return { ...result, doc: parseHtml(`<main>${result.html}</main>`) };
}

describe("the Markdown pipeline", () => {
  it("renders GitHub-flavoured Markdown with heading anchors", () => {
    const { doc, headings } = render("## O que os dados mostram\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n~~velho~~\n");
    expect(doc.querySelector("h2")?.id).toBe("o-que-os-dados-mostram");
    expect(headings).toEqual([{ id: "o-que-os-dados-mostram", text: "O que os dados mostram", depth: 2 }]);
    expect(doc.querySelector(".table-scroll table td")?.textContent).toBe("1");
    expect(doc.querySelector("del")?.textContent).toBe("velho");
  });

  it("opens external links in a new tab with rel=noopener noreferrer, internal ones in place", () => {
    const { doc, links } = render("[IBGE](https://www.ibge.gov.br) e [blog](/primeiro) e [mail](mailto:oi@cris.com)");
    const [ibge, blog, mail] = [...doc.querySelectorAll("a")];
    expect(ibge!.getAttribute("target")).toBe("_blank");
    expect(ibge!.getAttribute("rel")).toBe("noopener noreferrer");
    expect(blog!.hasAttribute("target")).toBe(false);
    expect(mail!.getAttribute("href")).toBe("mailto:oi@cris.com");
    expect(links.map((l) => l.url)).toEqual(["/primeiro"]);
  });

  it("rejects javascript: and data: links, naming the file and line", () => {
    const { errors } = render("Texto\n\n[clique](javascript:alert(1))\n\n[dado](data:text/html,oi)\n");
    expect(errors).toHaveLength(2);
    expect(errors[0]!.location).toBe("content/articles/teste.md:6:1");
    expect(errors[0]!.message).toBe("link target `javascript:alert(1)` is not allowed");
    expect(errors[1]!.line).toBe(8);
  });

  it("drops raw HTML with a warning instead of passing it through", () => {
    const { html, warnings } = render('Antes\n\n<script>alert("x")</script>\n\n<b onclick="x()">negrito</b> depois\n');
    expect(html).not.toContain("<script");
    expect(html).not.toContain("onclick");
    expect(warnings.length).toBeGreaterThan(0);
    expect(warnings[0]!.line).toBe(6);
  });

  it("places structured blocks from directives with their front-matter data", () => {
    const { doc, errors } = render(
      "::stat-cards\n\n:::quote{author=\"Cris\"}\nUma frase.\n:::\n\n::hashtags\n",
      'title: Teste\nstatCards:\n  - value: "83%"\n    label: usam IA\nhashtags: ["#RH", "#Carreira"]',
    );
    expect(errors).toEqual([]);
    expect(doc.querySelector(".stat-value")?.textContent).toBe("83%");
    expect(doc.querySelector(".pull-quote blockquote")?.textContent).toContain("Uma frase.");
    expect(doc.querySelector(".pull-quote figcaption")?.textContent).toBe("— Cris");
    expect([...doc.querySelectorAll(".hashtag")].map((h) => h.textContent)).toEqual(["#RH", "#Carreira"]);
  });

  it("reads data tables from content/data for table blocks", () => {
    const { doc, errors } = render('::tool-table{src="tools"}\n');
    expect(errors).toEqual([]);
    const rows = doc.querySelectorAll(".tool-table tbody tr");
    expect(rows).toHaveLength(2);
    expect(doc.querySelectorAll(".tool-table thead th")).toHaveLength(9);
    expect(rows[0]!.querySelector(".rating")?.className).toContain("tone-blue");
    expect(rows[1]!.querySelectorAll(".rating")[5]!.className).toContain("tone-grey");
  });

  it("reports a block without data, an unknown block and leftover keys with hints", () => {
    const { errors } = render("::pilars\n\n::plan\n", "title: Teste\nreadtime: 5");
    const messages = errors.map((e) => `${e.line}: ${e.message} (${e.hint})`);
    expect(messages[0]).toMatch(/^5: unknown block `::pilars` \(did you mean `::pillars`\?\)/);
    expect(messages[1]).toMatch(/^7: `::plan` needs data, but the front matter has no `plan`/);
    expect(messages[2]).toMatch(/^3: unknown front-matter key `readtime` \(did you mean `readTime`\?\)/);
  });

  it("keeps a colon in prose as text rather than a directive", () => {
    const { doc, errors } = render("Dica:leia devagar, às 10:30.\n");
    expect(errors).toEqual([]);
    expect(doc.querySelector("p")?.textContent).toBe("Dica:leia devagar, às 10:30.");
  });
});

describe("pathological Markdown (issue 40, point 9)", () => {
  const article = (markdown: string) => {
    const parsed = parseArticle(`---\ntitle: Teste\n---\n${markdown}`, "content/articles/teste.md", "teste.md", articleModel(theme));
    if (!("article" in parsed)) throw new Error(parsed.errors.map((e) => e.message).join("\n"));
    return parsed.article;
  };

  it("3,000 nested quotes are an error at the file and line, not a RangeError", () => {
    const result = renderMarkdown(article(`Um parágrafo.\n\n${">".repeat(3000)} fundo\n`), site, theme);
    expect(result.html).toBe("");
    expect(result.errors.map((e) => `${e.location}: ${e.message}`)).toEqual([
      "content/articles/teste.md:6: the article nests quotes, lists or brackets deeper than 100 levels here",
    ]);
    expect(result.errors[0]!.hint).toMatch(/markdownLimits: \{ maxDepth/);
  });

  it("thousands of brackets opened in one paragraph are an error at once, not minutes of parsing", () => {
    const result = renderMarkdown(article(`${"[*a ".repeat(50_000)}\n`), site, theme);
    expect(result.errors.map((e) => e.message)).toEqual(["the article nests quotes, lists or brackets deeper than 100 levels here"]);
  });

  it("an article larger than the limit is an error at its file; the theme can raise or lower the limit", () => {
    const big = article(`${"Uma frase comum de um artigo longo. ".repeat(30_000)}\n`);
    const refused = renderMarkdown(big, site, theme);
    expect(refused.errors.map((e) => `${e.location}: ${e.message}`)).toEqual(["content/articles/teste.md:1: the article is 1.1 MB; an article's text may have at most 1.0 MB"]);
    expect(refused.errors[0]!.hint).toContain("markdownLimits: { maxBytes: 2000000 }");
    expect(renderMarkdown(big, site, { ...theme, markdownLimits: { maxBytes: 2_000_000 } }).errors).toEqual([]);
    const small = renderMarkdown(article("Curto, mas acima de um limite baixo.\n"), site, { ...theme, markdownLimits: { maxBytes: 10 } });
    expect(small.errors.map((e) => e.message)).toEqual([expect.stringMatching(/^the article is \d+ bytes; an article's text may have at most 10 bytes$/)]);
  });

  it("ordinary nesting (a quote in a list in a quote, links in brackets) passes", () => {
    const result = renderMarkdown(article("> - > citação com [um link](/primeiro) e [colchetes [dentro]]\n"), site, theme);
    expect(result.errors).toEqual([]);
    expect(result.html).toContain("citação");
  });
});

describe("IPv6 literals in links (issue 40, point 14)", () => {
  it("keep their brackets: the address is the one written", () => {
    const { doc, errors } = render("[c](http://[::1]:47003/c) e [d](https://[2001:db8::1]/x?q=1) e [e]\n\n[e]: http://[fe80::1%25eth0]/\n");
    expect(errors).toEqual([]);
    expect([...doc.querySelectorAll("a")].map((a) => a.getAttribute("href"))).toEqual(["http://[::1]:47003/c", "https://[2001:db8::1]/x?q=1", "http://[fe80::1%25eth0]/"]);
  });
});

describe("the pipelines that leave extensions out", () => {
  it("give every Markdown file of the site and the fixtures, and prose with links, colons and addresses written as entities, what the full pipeline gives", async () => {
    const files = (await Promise.all(["content", "tests/fixtures"].map(async (dir) => (await readdir(path.join(projectRoot, dir), { recursive: true })).map((file) => path.join(dir, file)))))
      .flat()
      .filter((file) => file.endsWith(".md") && !file.includes("node_modules"));
    const bodies = await Promise.all(files.map(async (file) => (await readFile(path.join(projectRoot, file), "utf8")).replace(/^---\n[\s\S]*?\n---\n/, "")));
    bodies.push(
      "Veja: [o relatório](https://www.ibge.gov.br/x) e www.exemplo.com.br, http://a.b/c?d=e.\n\nSem endereço nenhum: só palavras, wwwx e httpz.\n",
      "Escreva para oi&#64;cris.com ou oi&commat;cris.com: mailto&#58;oi@ não conta.\n\n| a | b |\n|---|---|\n| www.x.org | https://y.org |\n",
      "Contato: oi@cris.com, ou [aqui](mailto:oi@cris.com).\n",
    );
    expect(bodies.length).toBeGreaterThan(20);
    for (const [i, body] of bodies.entries()) {
      const parsed = parseArticle(`---\ntitle: Teste\n---\n${body}`, "content/articles/teste.md", "teste.md", articleModel(theme));
      if (!("article" in parsed)) continue;
      const given = renderMarkdown(parsed.article, site, theme);
      const full = renderMarkdown(parsed.article, site, theme, { lean: false });
      expect(given, files[i] ?? body).toEqual(full);
    }
  });
});

