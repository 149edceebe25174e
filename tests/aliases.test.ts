/**
 * Published addresses never break: an article's `aliases` and site.yaml's `redirects` answer
 * on every host (the `_redirects` file, nginx's map, the GitHub Pages page, the preview
 * server), a bad one is an error at its line, an address the record lists that nothing
 * answers fails the build with where its page went, and links are checked on the rendered
 * pages (a template's link, an id a template renders).
 */
import { describe, expect, it } from "vitest";
import http from "node:http";
import { mkdtemp, readFile, rename, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createElement } from "react";
import { SiteBuilder, buildSite } from "../engine/pipeline/site-builder.js";
import { FolderWriter, MemoryWriter } from "../engine/stages/write/writers.js";
import { parseRedirects } from "../engine/stages/routes/redirect-files.js";
import { pageFindings } from "../engine/stages/checks/rendered-links.js";
import { serve } from "../engine/servers/static-server.js";
import type { Theme } from "../engine/theme.js";
import { buildInMemory, editedFixture, parseHtml, projectRoot, text, testCode } from "./helpers.js";
import { MAX_ROUTE_LENGTH } from "../engine/stages/routes/routes.js";
import { theme } from "../templates/theme.js";

/** The basic fixture with one alias (of /primeiro) and two redirects. */
const withOldAddresses = (edits: Record<string, string | ((old: string) => string)> = {}) =>
  editedFixture("basic", {
    "articles/primeiro.md": (t) => t.replace(/^---\n/, "---\naliases: [/comeco, /artigo/primeiro-artigo]\n"),
    "site.yaml": (t) => `${t}moved: "Esta página mudou de endereço. Continue a leitura em:"\nredirects:\n  /removido: /\n  /velho-guia: /guia/so-titulo\n`,
    ...edits,
  });

const messages = (result: { errors: { file: string; line?: number; column?: number; message: string }[] }) =>
  result.errors.map((e) => `${e.file.split("/").pop()}:${e.line}: ${e.message}`);

describe("aliases and redirects", () => {
  it("write `_redirects` (Netlify, Cloudflare), nginx's map, and a page at each old address, none in the sitemap or feed", async () => {
    const { ok, errors, writer } = await buildInMemory(await withOldAddresses());
    expect(errors).toEqual([]);
    expect(ok).toBe(true);
    const rules = parseRedirects(writer.text("_redirects"));
    expect(Object.fromEntries([...rules].map(([from, rule]) => [from, `${rule.to} ${rule.status}${rule.force ? "!" : ""}`]))).toEqual({
      "/artigo/primeiro-artigo": "/primeiro 301!",
      "/comeco": "/primeiro 301!",
      "/removido": "/ 301!",
      "/velho-guia": "/guia/so-titulo 301!",
    });
    expect(writer.text("_redirects.map").split("\n").filter((l) => l && !l.startsWith("#"))).toEqual([
      "/artigo/primeiro-artigo /primeiro;",
      "/comeco /primeiro;",
      "/removido /;",
      "/velho-guia /guia/so-titulo;",
    ]);
    for (const file of ["sitemap.xml", "feed.xml"]) {
      expect(writer.text(file)).not.toMatch(/comeco|primeiro-artigo|removido|velho-guia/);
    }
  });

  it("leave GitHub Pages a page at the old address: refresh, canonical, noindex, a visible link, the query and #fragment kept", async () => {
    const { writer } = await buildInMemory(await withOldAddresses());
    const html = writer.text("artigo/primeiro-artigo.html");
    const doc = parseHtml(html);
    expect(doc.documentElement.getAttribute("lang")).toBe("pt-BR");
    expect(doc.querySelector('meta[http-equiv="refresh"]')?.getAttribute("content")).toBe("0; url=/primeiro");
    expect(doc.querySelector('link[rel="canonical"]')?.getAttribute("href")).toBe("https://cafecomacris.placeholder.invalid/primeiro");
    expect(doc.querySelector('meta[name="robots"]')?.getAttribute("content")).toBe("noindex");
    const link = doc.querySelector("body a");
    expect(link?.getAttribute("href")).toBe("/primeiro");
    expect(text(link)).toBe("Primeiro artigo");
    expect(text(doc.body)).toMatch(/^Esta página mudou de endereço/);
    // The script (allowed by its hash in the page's own policy) keeps the query and #fragment.
    const script = doc.querySelector("script")!.textContent!;
    expect(script).toBe('location.replace("/primeiro"+location.search+location.hash)');
    const replaced: string[] = [];
    new Function("location", script)({ search: "?utm_source=whatsapp", hash: "#secao", replace: (url: string) => replaced.push(url) });
    expect(replaced).toEqual(["/primeiro?utm_source=whatsapp#secao"]);
    const { createHash } = await import("node:crypto");
    expect(doc.querySelector('meta[http-equiv="Content-Security-Policy"]')?.getAttribute("content")).toContain(
      `script-src 'sha256-${createHash("sha256").update(script).digest("base64")}'`,
    );
    // A redirect to the home page names the site.
    expect(text(parseHtml(writer.text("removido.html")).querySelector("body a"))).toBe("Café com a Cris");
  });

  it("answer with a 301 in the preview server, the query string kept", async () => {
    const out = path.join(await mkdtemp(path.join(tmpdir(), "cafe-aliases-")), "site");
    const writer = new FolderWriter(out);
    await writer.begin();
    const result = await buildSite({ codeVersion: testCode(), contentDir: await withOldAddresses(), projectRoot, theme, writer });
    expect(result.ok).toBe(true);
    const { url, server } = await serve({ root: out, port: 0, host: "127.0.0.1" });
    try {
      const ask = (p: string) =>
        new Promise<{ status: number; location?: string }>((resolve, reject) =>
          http.get(`${url}${p}`, (res) => (res.resume(), resolve({ status: res.statusCode!, location: res.headers.location }))).on("error", reject),
        );
      expect(await ask("/comeco?utm_source=whatsapp")).toEqual({ status: 301, location: "/primeiro?utm_source=whatsapp" });
      expect(await ask("/removido")).toEqual({ status: 301, location: "/" });
      expect((await ask("/comeco.html")).status).toBe(404);
      expect((await ask("/_redirects")).status).toBe(404);
      expect((await ask("/_redirects.map")).status).toBe(404);
    } finally {
      server.close();
    }
  });

  it.each([
    ["the route of another article", "[/guia/so-titulo]", /^\/guia\/so-titulo is the route of \S+so-titulo\.md: a page answers there already$/],
    ["the article's own route", "[/primeiro]", /^\/primeiro is this article's own route$/],
    ["not a route", "[/Com Espaço]", /^`aliases(\[0\])?` must be a path like \/artigo-transicao/],
    ["a route with a trailing slash", "[/antigo/]", /^`aliases(\[0\])?` must be a path like \/artigo-transicao/],
    ["reserved", "[/feed]", /^\/feed is reserved by the site$/],
    ["listed twice", "[/a, /b, /a]", /^\/a is already an alias of \/primeiro \(\S+primeiro\.md\)$/],
  ])("an alias that is %s is an error at its line", async (_, aliases, expected) => {
    const dir = await editedFixture("basic", { "articles/primeiro.md": (t) => t.replace(/^---\n/, `---\naliases: ${aliases}\n`) });
    const result = await buildInMemory(dir);
    expect(result.ok).toBe(false);
    expect(result.errors).toHaveLength(1);
    const [error] = result.errors;
    expect(error!.file).toMatch(/primeiro\.md$/);
    expect(error!.line).toBe(2);
    expect(error!.message).toMatch(expected);
  });

  it("an alias that another article also claims, a file of public/ or a redirect takes is an error at its line", async () => {
    const dir = await withOldAddresses({
      "articles/guia/so-titulo.md": (t) => t.replace(/^---\n/, "---\naliases:\n  - /comeco\n  - /regulamento\n  - /removido\n"),
    });
    const publicDir = await mkdtemp(path.join(tmpdir(), "cafe-public-"));
    await writeFile(path.join(publicDir, "regulamento.html"), "<p>regulamento</p>");
    const writer = new MemoryWriter();
    const result = await buildSite({ codeVersion: testCode(), contentDir: dir, publicDir, projectRoot, theme, writer });
    expect(result.ok).toBe(false);
    const shown = (file: string) => path.relative(process.cwd(), path.join(dir, file));
    // Files are read in order: guia/so-titulo.md claims /comeco first.
    expect(messages(result)).toEqual([
      "so-titulo.md:4: /regulamento is the address of public/regulamento.html",
      `primeiro.md:2: /comeco is already an alias of /guia/so-titulo (${shown("articles/guia/so-titulo.md")})`,
      `site.yaml:${result.errors[2]!.line}: /removido is already an alias of /guia/so-titulo (${shown("articles/guia/so-titulo.md")})`,
    ]);
    expect(result.errors[2]!.source?.split("\n")[result.errors[2]!.line! - 1]).toContain("/removido: /");
  });

  it.each([
    ["to a route no page has, with the nearest one", "/x: /primero", "`redirects` sends /x to /primero, and no page has that route", "did you mean /primeiro?"],
    ["to an old address", "/x: /comeco", "`redirects` sends /x to /comeco, which is itself an alias of /primeiro", "send it to /primeiro directly: one redirect, not two"],
    ["from a page's route", "/guia/so-titulo: /", "/guia/so-titulo is the route of", "an old address must be one no page has now; remove it here"],
    // Said of every key that is not a route: zod's record dropped `__proto__` without a word, and said "Invalid key in record" of the others.
    ...["__proto__", "/a;b"].map((key) => [
      `from '${key}'`,
      `${JSON.stringify(key)}: /`,
      `\`redirects\` has an old address that is not one ('${key}'): it must be a path like /artigo-transicao: lowercase letters, digits and hyphens, starting with / and no trailing slash`,
      undefined,
    ]),
  ])("a redirect %s is an error at its line in site.yaml", async (_, entry, message, hint) => {
    const dir = await editedFixture("basic", {
      "articles/primeiro.md": (t) => t.replace(/^---\n/, "---\naliases: [/comeco]\n"),
      "site.yaml": (t) => `${t}redirects:\n  ${entry}\n`,
    });
    const result = await buildInMemory(dir);
    expect(result.ok).toBe(false);
    expect(result.errors).toHaveLength(1);
    const [error] = result.errors;
    expect(error!.file).toMatch(/site\.yaml$/);
    expect(error!.source!.split("\n")[error!.line! - 1]).toContain(entry);
    expect(error!.message).toContain(message);
    expect(error!.hint).toBe(hint);
  });

  it("a redirect to another redirect names it, wherever it is in the list, and where the chain ends", async () => {
    const dir = await editedFixture("basic", { "site.yaml": (t) => `${t}redirects:\n  /a-velho: /b-velho\n  /b-velho: /c-velho\n  /c-velho: /primeiro\n` });
    const result = await buildInMemory(dir);
    const site = path.relative(process.cwd(), path.join(dir, "site.yaml"));
    expect(result.errors.map((e) => [e.source!.split("\n")[e.line! - 1]!.trim(), e.message, e.hint])).toEqual([
      ["/a-velho: /b-velho", `\`redirects\` sends /a-velho to /b-velho, which is itself a redirect in ${site}`, "send it to /primeiro directly: one redirect, not two"],
      ["/b-velho: /c-velho", `\`redirects\` sends /b-velho to /c-velho, which is itself a redirect in ${site}`, "send it to /primeiro directly: one redirect, not two"],
    ]);
  });

  it(`an alias or redirect longer than ${MAX_ROUTE_LENGTH} characters is an error at its line; one of ${MAX_ROUTE_LENGTH} is fine`, async () => {
    const longest = `/artigo/${"a".repeat(MAX_ROUTE_LENGTH - 8)}`;
    const alias = `/artigo/${"b".repeat(MAX_ROUTE_LENGTH - 7)}`;
    const redirect = `/${"c".repeat(MAX_ROUTE_LENGTH)}`;
    expect([longest.length, alias.length, redirect.length]).toEqual([MAX_ROUTE_LENGTH, MAX_ROUTE_LENGTH + 1, MAX_ROUTE_LENGTH + 1]);
    const dir = await editedFixture("basic", {
      "articles/primeiro.md": (t) => t.replace(/^---\n/, `---\naliases:\n  - ${longest}\n  - ${alias}\n`),
      "site.yaml": (t) => `${t}redirects:\n  ${redirect}: /\n`,
    });
    const result = await buildInMemory(dir);
    expect(messages(result)).toEqual([
      `primeiro.md:4: the alias ${alias} is ${MAX_ROUTE_LENGTH + 1} characters long; a route, alias or redirect may have at most ${MAX_ROUTE_LENGTH}`,
      `site.yaml:${result.errors[1]?.line}: the redirected address ${redirect} is ${MAX_ROUTE_LENGTH + 1} characters long; a route, alias or redirect may have at most ${MAX_ROUTE_LENGTH}`,
    ]);
    expect(result.errors[1]!.source!.split("\n")[result.errors[1]!.line! - 1]).toContain(redirect);
  });
});

describe("the record of published addresses", () => {
  /** The basic fixture plus an article nobody links to, built once so the record lists it. */
  async function published() {
    const dir = await editedFixture("basic", {
      "articles/solto.md": "---\ntitle: Um artigo solto\n---\n\nNinguém aponta para ele.\n",
    });
    const first = await buildInMemory(dir);
    expect(first.ok).toBe(true);
    expect(first.published).toEqual(["/solto"]);
    const record = await readFile(path.join(dir, "published-routes.txt"), "utf8");
    expect(record.split("\n").filter((l) => l.startsWith("/"))).toEqual(["/", "/guia/so-titulo", "/primeiro", "/solto"]);
    return dir;
  }

  it("an address nothing answers any more fails the build at its line, naming the article that has its text now", async () => {
    const dir = await published();
    await rename(path.join(dir, "articles/solto.md"), path.join(dir, "articles/avulso.md"));
    const builder = new SiteBuilder({ codeVersion: testCode(), contentDir: dir, projectRoot, theme });
    // Watch mode's builder knows what it read before: build, rename, update.
    await rename(path.join(dir, "articles/avulso.md"), path.join(dir, "articles/solto.md"));
    const writer = new MemoryWriter();
    expect((await builder.build(writer)).ok).toBe(true);
    await rename(path.join(dir, "articles/solto.md"), path.join(dir, "articles/avulso.md"));
    const result = await builder.update([path.join(dir, "articles/solto.md"), path.join(dir, "articles/avulso.md")], writer);
    expect(result.ok).toBe(false);
    expect(messages(result)).toEqual([`published-routes.txt:7: /solto was published and nothing answers it now`]);
    const avulso = path.relative(process.cwd(), path.join(dir, "articles/avulso.md"));
    expect(result.errors[0]!.hint).toContain(`it moved to /avulso (${avulso} has the same text): add \`aliases: [/solto]\` to the front matter of ${avulso}`);
    expect(result.errors[0]!.hint).toContain("`redirects: {/solto: /}`");
    expect(result.errors[0]!.hint).toContain("to let the address go (it will answer 404), delete this line");

    // The alias answers it: the build passes, and watch mode writes the redirect.
    await writeFile(path.join(dir, "articles/avulso.md"), "---\ntitle: Um artigo solto\naliases: [/solto]\n---\n\nNinguém aponta para ele.\n");
    const fixed = await builder.update([path.join(dir, "articles/avulso.md")], writer);
    expect(fixed.errors).toEqual([]);
    expect(parseRedirects(writer.text("_redirects")).get("/solto")?.to).toBe("/avulso");
    expect(writer.text("solto.html")).toContain('url=/avulso"');
  });

  it("a whole section gone at once: every address is an error at its line, the first hundred with a likely new address", async () => {
    const dir = await published();
    const record = path.join(dir, "published-routes.txt");
    // Two letters more than /primeiro each: a plausible typo of it, so each would be given it.
    const gone = Array.from({ length: 150 }, (_, i) => `/primeiro${String.fromCharCode(97 + Math.floor(i / 26), 97 + (i % 26))}`);
    await writeFile(record, `${await readFile(record, "utf8")}${gone.join("\n")}\n`);
    const result = await buildInMemory(dir);
    expect(result.ok).toBe(false);
    const vanished = result.errors.filter((e) => e.message.endsWith("was published and nothing answers it now"));
    expect(vanished.map((e) => e.message)).toEqual(gone.map((route) => `${route} was published and nothing answers it now`));
    // Each guess compares the address with every route: made for the first hundred, more than a report prints in full.
    expect(vanished.slice(0, 100).every((e) => e.hint?.includes("if its page moved (to /primeiro?)"))).toBe(true);
    expect(vanished.slice(100).every((e) => e.hint?.startsWith("if its page moved, add `aliases:"))).toBe(true);
  });

  it("without an earlier build to ask, names the new address that shares words with the old one; a draft is not published", async () => {
    const dir = await published();
    await rename(path.join(dir, "articles/solto.md"), path.join(dir, "articles/texto-solto.md"));
    await writeFile(path.join(dir, "articles/rascunho.md"), "---\ntitle: Rascunho\ndraft: true\n---\n\nAinda não.\n");
    const result = await buildInMemory(dir);
    expect(messages(result)).toEqual([`published-routes.txt:7: /solto was published and nothing answers it now`]);
    expect(result.errors[0]!.hint).toContain("it may have moved to /texto-solto");
    // Letting it go: delete the line. The draft never enters the record.
    const record = path.join(dir, "published-routes.txt");
    await writeFile(record, (await readFile(record, "utf8")).replace("/solto\n", ""));
    const again = await buildInMemory(dir);
    expect(again.ok).toBe(true);
    expect(again.published).toEqual(["/texto-solto"]);
    expect(await readFile(record, "utf8")).not.toContain("/rascunho");
  });

  it("a broken link says where its page moved, or the nearest route", async () => {
    const dir = await editedFixture("basic", {
      "articles/guia/so-titulo.md": "---\ntitle: Só título\n---\n\nVeja [isto](/primeir) e [aquilo](/solto).\n",
    });
    await writeFile(path.join(dir, "published-routes.txt"), `${await readFile(path.join(dir, "published-routes.txt"), "utf8")}/solto\n`);
    await writeFile(path.join(dir, "articles/artigo-solto.md"), "---\ntitle: Um artigo solto\n---\n\nTexto.\n");
    const result = await buildInMemory(dir);
    const hints = Object.fromEntries(result.errors.filter((e) => e.line === 5).map((e) => [e.column, `${e.message} (${e.hint})`]));
    expect(hints[6]).toBe("broken link: no page has the route /primeir (did you mean /primeiro?)");
    expect(hints[25]).toMatch(/^broken link: no page has the route \/solto \(its page may have moved to \/artigo-solto \(.*artigo-solto\.md, a new address with words of the old one\): link to \/artigo-solto\)$/);
  });
});

describe("links checked on the rendered pages", () => {
  it("reads a page's internal links and ids as a browser would", () => {
    const html = `<!DOCTYPE html><html><head><title><a href="/no-title"></title><script>document.write('<a href="/no-script">')</script></head>
      <body><!-- <a href="/no-comment"> --><main ID = "conteudo"><a href="/a?x=1&amp;y=2#s">a</a><A HREF='/b'>b</A><a href=/c>c</a>
      <a href="https://fora.example/x">x</a><a href="//fora.example/y">y</a><a href="mailto:a@b.c">m</a><a href="#topo" id='topo'>t</a>
      <span data-id="no" id=sem-aspas></span><a data-href="/no" title="a > b" href="/d">d</a></main></body></html>`;
    const { links, ids } = pageFindings(html);
    expect({ links, ids }).toEqual({ links: ["/a?x=1&y=2#s", "/b", "/c", "#topo", "/d"], ids: ["conteudo", "topo", "sem-aspas"] });
  });

  it("counts no script a comment hides as one the page's policy would block, and reads the head's meta past a comment naming <body>", () => {
    const html = `<!DOCTYPE html><html lang="pt-BR"><head><title>Página</title><!-- o <body> vem depois; <script>velho()</script> --><meta property="og:title" content="Café">
      <script>novo()</script></head><body><main id="conteudo"><a href="/a">a</a></main></body></html>`;
    const { links, ids, scripts, share } = pageFindings(html);
    expect({ links, ids }).toEqual({ links: ["/a"], ids: ["conteudo"] });
    expect(scripts?.map(([, start]) => start)).toEqual(["novo()"]);
    expect(share).toEqual({ title: "Café" });
  });

  /** The blog's theme, its article template adding a section with an id and a link of its own. */
  const themed = (href: string): Theme => ({
    ...theme,
    templates: {
      ...theme.templates,
      article: (ctx) =>
        createElement("div", null, theme.templates.article!(ctx), createElement("section", { id: "ingredientes" }, createElement("a", { href }, "mais"))),
    },
  });
  const build = async (contentDir: string, t: Theme) => buildSite({ codeVersion: testCode(), contentDir, projectRoot, theme: t, writer: new MemoryWriter(), publishedRoutes: false });

  it("an #anchor to an id a template renders is fine; a near miss says which it meant, at the Markdown's line", async () => {
    const good = await editedFixture("basic", { "articles/guia/so-titulo.md": "---\ntitle: Só título\n---\n\nVeja [isto](/primeiro#ingredientes).\n" });
    expect((await build(good, themed("/primeiro"))).errors).toEqual([]);
    const bad = await editedFixture("basic", { "articles/guia/so-titulo.md": "---\ntitle: Só título\n---\n\nVeja [isto](/primeiro#ingrediente).\n" });
    const result = await build(bad, themed("/primeiro"));
    expect(result.errors.map((e) => `${e.file.split("/").pop()}:${e.line}:${e.column}: ${e.message} (${e.hint})`)).toEqual([
      "so-titulo.md:5:6: broken link: /primeiro has no element with the id #ingrediente (did you mean #ingredientes?)",
    ]);
  });

  it("a broken link written in a template fails the build, naming the template", async () => {
    const dir = await editedFixture("basic", {});
    const result = await build(dir, themed("/nao-existe"));
    expect(result.ok).toBe(false);
    expect(result.errors.map((e) => `${e.file}: ${e.message}`)).toContain(
      "the 'article' template (page /guia/so-titulo): broken link: no page has the route /nao-existe (a link the template writes)",
    );
  });
});
