/** Feed, sitemap, robots.txt and the meta every page carries, parsed for real. */
import { describe, expect, it } from "vitest";
import path from "node:path";
import { statSync } from "node:fs";
import { XMLParser, XMLValidator } from "fast-xml-parser";
import { realSite, buildInMemory, editedFixture, parseHtml, projectRoot } from "./helpers.js";
import { feedData, siteFiles } from "../engine/stages/render/site-files.js";
import type { Article } from "../engine/stages/load/content.js";
import type { Route } from "../engine/stages/routes/routes.js";
import type { SiteMeta } from "../engine/theme.js";

const built = realSite();
const SITE = "https://cafecomacris.placeholder.invalid";
const xml = new XMLParser({ ignoreAttributes: false });

describe("feeds and SEO", () => {
  it("writes a valid RSS 2.0 feed of the dated articles, newest first", () => {
    const text = built.writer.text("feed.xml");
    expect(XMLValidator.validate(text)).toBe(true);
    const rss = xml.parse(text).rss;
    expect(rss["@_version"]).toBe("2.0");
    expect(rss.channel.title).toBe("Café com a Cris");
    const items = rss.channel.item as { title: string; link: string; pubDate: string }[];
    expect(items).toHaveLength(13);
    expect(items[0]!.title).toBe("Heróis da Nossa Economia");
    expect(items[0]!.link).toBe(`${SITE}/artigo-herois-economia`);
    const dates = items.map((i) => Date.parse(i.pubDate));
    expect([...dates].sort((a, b) => b - a)).toEqual(dates);
  });

  it("gives every feed item its page's social card as an enclosure", () => {
    const items = xml.parse(built.writer.text("feed.xml")).rss.channel.item as { link: string; enclosure: Record<string, string> }[];
    for (const item of items) {
      const page = built.page(built.routes.find((r) => `${SITE}${r.path}` === item.link)!.outFile);
      const card = page.querySelector('meta[property="og:image"]')!.getAttribute("content")!;
      expect(item.enclosure).toEqual({ "@_url": card, "@_type": "image/png", "@_length": String(statSync(path.join(built.dir, card.slice(SITE.length))).size) });
    }
  });

  it("writes a sitemap with every page but the 404", () => {
    const text = built.writer.text("sitemap.xml");
    expect(XMLValidator.validate(text)).toBe(true);
    const urls = (xml.parse(text).urlset.url as { loc: string }[]).map((u) => u.loc);
    expect(urls).toHaveLength(14);
    expect(urls).toContain(`${SITE}/`);
    expect(urls).toContain(`${SITE}/artigo/tarifas-trump-mercado-trabalho`);
    expect(urls.some((u) => u.includes("404"))).toBe(false);
  });

  it("escapes the sitemap's addresses as XML: an address with an ampersand is read back as it is", async () => {
    const content = await editedFixture("basic", {
      "site.yaml": (s) => s.replace("siteUrl: https://cafecomacris.placeholder.invalid", "siteUrl: https://placeholder.invalid/cris&co"),
    });
    const result = await buildInMemory(content);
    expect(result.ok).toBe(true);
    const text = result.writer.text("sitemap.xml");
    expect(XMLValidator.validate(text)).toBe(true);
    // Character references decoded, as a crawler reads them.
    const urls = (new XMLParser({ htmlEntities: true }).parse(text).urlset.url as { loc: string }[]).map((u) => u.loc);
    expect(urls).toContain("https://placeholder.invalid/cris&co/");
    expect(text).not.toMatch(/&co/);
  });

  it("the feed has the 50 newest of many dated articles in a full sort's order (ties by path), and the sitemap follows each change of a page's date or path", () => {
    const site = { url: SITE, name: "x", description: "", language: "pt-BR", favicon: "/f.svg", copyright: "", author: "a" } as unknown as SiteMeta;
    const article = (n: number, iso: string | undefined) => ({ file: `a/${n}.md`, route: `/a/${n}`, meta: { title: `A ${n}`, date: iso === undefined ? undefined : { iso } } }) as unknown as Article;
    const route = (n: number, iso: string | undefined) => ({ kind: "article", path: `/a/${n}`, outFile: `a/${n}.html`, template: "article", article: { main: article(n, iso), translations: [] } }) as Route;
    // 120 articles over a few dates (many ties), some by month alone, some undated, in no order.
    const routes = Array.from({ length: 120 }, (_, i) => { const n = (i * 37) % 120; return route(n, n % 11 === 0 ? undefined : n % 7 === 0 ? `2024-0${1 + (n % 5)}` : `2024-0${1 + (n % 5)}-1${n % 3}`); });
    const time = (iso: string) => Date.parse(`${iso.length === 7 ? `${iso}-01` : iso}T12:00:00Z`);
    const expected = routes
      .flatMap((r) => (r.kind === "article" && r.article.main.meta.date ? [{ path: r.path, t: time(r.article.main.meta.date.iso) }] : []))
      .sort((a, b) => b.t - a.t || (a.path < b.path ? -1 : 1))
      .slice(0, 50)
      .map((x) => `${SITE}${x.path}`);
    expect(feedData(site, routes).items.map((i) => i.link)).toEqual(expected);
    const lastmod = (text: string, n: number) => new RegExp(`/a/${n}</loc>(<lastmod>[^<]*</lastmod>)?`).exec(text)![1];
    // One memo from run to run, as watch mode hands it on (the page check's snapshot).
    const memo = {};
    const first = siteFiles(site, routes, "", memo).get("sitemap.xml")!;
    expect(lastmod(first, 1)).toBe("<lastmod>2024-02-11</lastmod>");
    expect(siteFiles(site, routes.slice(), "", memo).get("sitemap.xml")).toBe(first);
    // The same article with another date (a new object, as a save makes it), then another address.
    const moved = routes.map((r) => (r.path === "/a/1" ? route(1, "2025-12-31") : r));
    expect(lastmod(siteFiles(site, moved, "", memo).get("sitemap.xml")!, 1)).toBe("<lastmod>2025-12-31</lastmod>");
    expect(feedData(site, moved).items[0]!.link).toBe(`${SITE}/a/1`);
    expect(siteFiles({ ...site, url: "https://other.invalid" }, moved, "", memo).get("sitemap.xml")).toContain("<loc>https://other.invalid/a/1</loc>");
  });

  it("writes robots.txt pointing at the sitemap", () => {
    expect(built.writer.text("robots.txt")).toBe(`User-agent: *\nAllow: /\n\nSitemap: ${SITE}/sitemap.xml\n`);
  });

  it("gives every page a canonical URL, Open Graph and Twitter meta, and a favicon", () => {
    for (const route of built.routes) {
      const doc = built.page(route.outFile);
      const meta = (sel: string) => doc.querySelector(sel)?.getAttribute("content");
      expect(meta('meta[property="og:title"]')).toBe(doc.title);
      expect(meta('meta[property="og:description"]')).toBe(meta('meta[name="description"]'));
      expect(meta('meta[name="twitter:card"]')).toBe("summary_large_image");
      expect(meta('meta[property="og:image"]')).toMatch(new RegExp(`^${SITE}/assets/cards/[a-z0-9-]+-[0-9a-f]{10}\\.png$`));
      expect([meta('meta[property="og:image:width"]'), meta('meta[property="og:image:height"]')]).toEqual(["1200", "630"]);
      expect(meta('meta[property="og:image:alt"]')).toContain("Café com a Cris");
      expect(doc.querySelector('link[rel="icon"]')?.getAttribute("href")).toBe("/favicon.svg");
      if (route.kind === "not-found") {
        expect(meta('meta[name="robots"]')).toBe("noindex");
      } else {
        const url = `${SITE}${route.path === "/" ? "/" : route.path}`;
        expect(doc.querySelector('link[rel="canonical"]')?.getAttribute("href")).toBe(url);
        expect(meta('meta[property="og:url"]')).toBe(url);
      }
    }
  });

  it("describes articles with JSON-LD Article data", () => {
    const doc = built.page("artigo-inovacao-rh.html");
    const data = JSON.parse(doc.querySelector('script[type="application/ld+json"]')!.textContent!);
    expect(data).toMatchObject({
      "@context": "https://schema.org",
      "@type": "Article",
      headline: "Inovação em RH como estratégia de negócio em Minas Gerais",
      datePublished: "2025-10-02",
      inLanguage: "pt-BR",
      author: { "@type": "Person", name: "Cris" },
      mainEntityOfPage: `${SITE}/artigo-inovacao-rh`,
    });
    expect(built.page("index.html").querySelector('script[type="application/ld+json"]')).toBeNull();
  });

  it("carries a Content-Security-Policy that allows inline scripts only by hash", () => {
    const doc = built.page("index.html");
    const csp = doc.querySelector('meta[http-equiv="Content-Security-Policy"]')!.getAttribute("content")!;
    const scriptSrc = csp.split(";").find((d) => d.trim().startsWith("script-src"))!;
    expect(scriptSrc).not.toContain("unsafe-inline");
    expect(scriptSrc).toMatch(/'sha256-[A-Za-z0-9+/=]+'/);
    const { createHash } = require("node:crypto") as typeof import("node:crypto");
    const inline = [...doc.querySelectorAll("script:not([src]):not([type])")].map((s) => s.textContent ?? "");
    expect(inline).toHaveLength(1);
    for (const code of inline) expect(scriptSrc).toContain(`'sha256-${createHash("sha256").update(code).digest("base64")}'`);
  });

  it("escapes text that could close the JSON-LD script", async () => {
    const dir = await editedFixture("basic", { "articles/guia/so-titulo.md": '---\ntitle: "Fim </script><script>alert(1)</script>"\n---\nTexto\n' });
    const result = await buildInMemory(dir);
    const html = result.writer.text("guia/so-titulo.html");
    expect(html).not.toContain("<script>alert(1)");
  });
});
