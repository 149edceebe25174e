/**
 * `npm run move -- OLD NEW` on copies of the real site (issue 32): renaming an article as an
 * author would took nine edits in eight files; the command moves the file, adds the alias,
 * rewrites every Markdown link and data-file entry that pointed at the old route, says what
 * it changed, and the site builds. It refuses, changing nothing, when the new address is
 * taken or when git says the article has changes not committed.
 */
import { describe, expect, it } from "vitest";
import { execFile } from "node:child_process";
import { cp, mkdir, mkdtemp, readdir, readFile, writeFile } from "node:fs/promises";
import { existsSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { moveArticle } from "../engine/tools/move-article.js";
import { ContentError } from "../engine/lib/errors.js";
import { theme } from "../templates/theme.js";
import { buildInMemory, fixture, projectRoot } from "./helpers.js";
import { buildSite } from "../engine/pipeline/site-builder.js";
import { MemoryWriter } from "../engine/stages/write/writers.js";

const run = promisify(execFile);

/** A copy of the real site's content folder. */
async function siteCopy(): Promise<string> {
  const dir = path.join(await mkdtemp(path.join(tmpdir(), "cafe-move-")), "content");
  await cp(path.join(projectRoot, "content"), dir, { recursive: true });
  return dir;
}

/** Every file of a folder with its text: what a refusal must leave as it was. */
async function snapshot(dir: string): Promise<Record<string, string>> {
  const files = (await readdir(dir, { recursive: true, withFileTypes: true })).filter((e) => e.isFile() && !e.parentPath.includes(".git"));
  const out: Record<string, string> = {};
  for (const e of files) out[path.relative(dir, path.join(e.parentPath, e.name))] = await readFile(path.join(e.parentPath, e.name), "utf8");
  return out;
}

/** The files of the content folder (its style guide aside) that still name a route. */
async function mentions(dir: string, route: string): Promise<string[]> {
  const all = await snapshot(dir);
  return Object.entries(all)
    .filter(([file, text]) => file !== "published-routes.txt" && file !== "STYLE.md" && new RegExp(`${route.replace(/[/]/g, "\\/")}(?![\\w-])`).test(text))
    .map(([file]) => file);
}

const move = (contentDir: string, from: string, to: string) => moveArticle({ projectRoot, contentDir, theme, from, to });

describe("npm run move on a copy of the real site", () => {
  it("renames the tariffs article: the file, its alias, six Markdown links in five articles and the edition that opens it; the site builds", async () => {
    const dir = await siteCopy();
    const old = "/artigo/tarifas-trump-mercado-trabalho";
    expect((await mentions(dir, old)).sort()).toEqual([
      "articles/artigo/dicas-sites-recomendacoes-trabalhadores.md",
      "articles/artigo/programas-qualificacao-profissional-2025.md",
      "articles/artigo/proteger-financas-crise.md",
      "articles/artigo/setores-crescimento-crise.md",
      "articles/material-semana.md",
      "editions.yaml",
    ]);
    const moved = await move(dir, old, "/artigo/tarifas-e-emprego");
    const shown = (line: string) => line.replaceAll(`${path.relative(process.cwd(), dir)}/`, "");
    expect(moved.lines.map(shown)).toEqual([
      "(not a git repository: the uncommitted-changes check was skipped)",
      `Moved articles/artigo/tarifas-trump-mercado-trabalho.md → articles/artigo/tarifas-e-emprego.md (alias ${old} added)`,
      "Updated articles/artigo/dicas-sites-recomendacoes-trabalhadores.md: 1 link",
      "Updated articles/artigo/programas-qualificacao-profissional-2025.md: 1 link",
      "Updated articles/artigo/proteger-financas-crise.md: 1 link",
      "Updated articles/artigo/setores-crescimento-crise.md: 1 link",
      "Updated articles/material-semana.md: 2 links",
      "Updated editions.yaml: 1 entry",
    ]);
    expect(existsSync(path.join(dir, "articles/artigo/tarifas-trump-mercado-trabalho.md"))).toBe(false);
    const article = await readFile(path.join(dir, "articles/artigo/tarifas-e-emprego.md"), "utf8");
    expect(article.split("\n").slice(0, 3)).toEqual(["---", 'title: "Tarifas de Trump: o que muda para o mercado de trabalho brasileiro"', `aliases: [${old}]`]);
    // Only the alias names the old address now (and the record of published addresses, which keeps it).
    expect(await mentions(dir, old)).toEqual(["articles/artigo/tarifas-e-emprego.md"]);
    expect(await readFile(path.join(dir, "editions.yaml"), "utf8")).toContain("  route: /artigo/tarifas-e-emprego\n");

    const built = await buildInMemory(dir);
    expect(built.errors.map((e) => `${e.location}: ${e.message}`)).toEqual([]);
    expect(built.writer.text("_redirects")).toContain(`${old} /artigo/tarifas-e-emprego 301!`);
    expect(built.published).toEqual(["/artigo/tarifas-e-emprego"]);
  }, 60_000);

  it("moves an article with its English version, and a second move back takes the alias out again", async () => {
    const dir = await siteCopy();
    const moved = await move(dir, path.join(dir, "articles/artigo-transicao.md"), "/renascimento-profissional");
    expect(moved.lines.filter((l) => l.startsWith("Moved")).map((l) => l.replaceAll(`${path.relative(process.cwd(), dir)}/`, ""))).toEqual([
      "Moved articles/artigo-transicao.md → articles/renascimento-profissional.md (alias /artigo-transicao added)",
      "Moved articles/artigo-transicao.en.md → articles/renascimento-profissional.en.md",
    ]);
    expect(await mentions(dir, "/artigo-transicao")).toEqual(["articles/renascimento-profissional.md"]);
    expect((await buildInMemory(dir)).errors).toEqual([]);

    await move(dir, "/renascimento-profissional", "/artigo-transicao");
    const back = await readFile(path.join(dir, "articles/artigo-transicao.md"), "utf8");
    expect(back).toContain("aliases: [/renascimento-profissional]\n");
    expect(back).not.toContain("aliases: [/artigo-transicao");
    expect((await buildInMemory(dir)).errors).toEqual([]);
  }, 60_000);

  it("refuses, changing nothing, when the new address is taken: a page, another article's alias, a file that is there", async () => {
    const dir = await siteCopy();
    await writeFile(path.join(dir, "articles/quebrado.md"), "---\ntitel: Quebrado\n---\n");
    await writeFile(path.join(dir, "articles/artigo-sistema-notas.md"), (await readFile(path.join(dir, "articles/artigo-sistema-notas.md"), "utf8")).replace(/^title: (.*)$/m, "title: $1\naliases: [/notas]"));
    const before = await snapshot(dir);
    const refusal = (to: string) => move(dir, "/artigo-inovacao-rh", to).then(() => "moved", (e: ContentError) => `${e.message} (${e.hint})`);
    expect(await refusal("/artigo-transicao")).toBe("/artigo-transicao is the route of " + path.relative(projectRoot, path.join(dir, "articles/artigo-transicao.md")) + " (choose another route, or move that article first)");
    expect(await refusal("/notas")).toMatch(/^\/notas is an alias of \/artigo-sistema-notas/);
    expect(await refusal("/quebrado")).toMatch(/quebrado\.md exists already \(choose another route/);
    expect(await refusal("/nao-existe/Maiusculas")).toMatch(/is not a route/);
    expect(await move(dir, "/artigo-inovacao-hr", "/x").catch((e: ContentError) => e.hint)).toBe("did you mean /artigo-inovacao-rh?");
    expect(await snapshot(dir)).toEqual(before);
  }, 60_000);

  it("refuses, changing nothing, whatever the build would refuse: the site's own addresses, a page, a public file's address, a file name that is no route", async () => {
    const dir = await siteCopy();
    const publicDir = path.join(path.dirname(dir), "public");
    await cp(path.join(projectRoot, "public"), publicDir, { recursive: true });
    await writeFile(path.join(publicDir, "sobre.html"), "<!doctype html><title>Sobre</title>");
    await mkdir(path.join(publicDir, "docs"));
    await writeFile(path.join(publicDir, "docs", "guia"), "guia");
    const before = await snapshot(dir);
    const publicBefore = await snapshot(publicDir);
    const refusal = (to: string) => moveArticle({ projectRoot, contentDir: dir, theme, from: "/artigo-inovacao-rh", to, publicDir }).then(() => "moved", (e: ContentError) => `${e.message} (${e.hint})`);
    for (const reserved of ["/404", "/index", "/feed", "/sitemap", "/assets", "/assets/x"]) {
      expect(await refusal(reserved), reserved).toMatch(/^the route \/\S+ is reserved by the site/);
    }
    expect(await refusal("/")).toBe("/ is the home page, not an article's route (choose another route)");
    expect(await refusal(path.join(dir, "articles/index.md"))).toBe("/ is the home page, not an article's route (choose another route)");
    expect(await refusal("/sobre")).toMatch(/^\/sobre is answered by the file .*public\/sobre\.html \(choose another route, or rename that file\)$/);
    expect(await refusal("/docs/guia")).toMatch(/^\/docs\/guia is answered by the file .*public\/docs\/guia /);
    expect(await refusal(path.join(dir, "articles/Foo Bar.md"))).toMatch(/Foo Bar\.md' is not a route/);
    expect(await refusal(path.join(dir, "articles/café.md"))).toMatch(/café\.md' is not a route/);
    expect(await refusal(`/${"a".repeat(140)}`)).toMatch(/is 141 characters long; a route, alias or redirect may have at most 128/);
    expect(await snapshot(dir)).toEqual(before);
    expect(await snapshot(publicDir)).toEqual(publicBefore);
  }, 60_000);

  it("refuses while git says the article has changes not committed, and moves it once they are", async () => {
    const dir = await siteCopy();
    const git = (...args: string[]) => run("git", ["-c", "user.name=Cris", "-c", "user.email=cris@example.org", ...args], { cwd: dir });
    await git("init", "-q");
    await git("add", ".");
    await git("commit", "-qm", "content");
    const file = path.join(dir, "articles/artigo-inovacao-rh.md");
    await writeFile(file, `${await readFile(file, "utf8")}\nUm parágrafo novo, ainda não registrado.\n`);
    const before = await snapshot(dir);
    const error = await move(dir, "/artigo-inovacao-rh", "/inovacao-rh").catch((e: ContentError) => e);
    expect(error).toBeInstanceOf(ContentError);
    expect((error as ContentError).message).toBe("articles/artigo-inovacao-rh.md has changes not committed (git status)");
    expect((error as ContentError).hint).toMatch(/^commit them first/);
    expect(await snapshot(dir)).toEqual(before);

    await git("commit", "-qam", "new paragraph");
    const moved = await move(dir, "/artigo-inovacao-rh", "/inovacao-rh");
    expect(moved.lines[0]).toMatch(/^Moved .*artigo-inovacao-rh\.md → .*inovacao-rh\.md \(alias \/artigo-inovacao-rh added\)$/);
    expect(await readFile(path.join(dir, "articles/inovacao-rh.md"), "utf8")).toContain("Um parágrafo novo, ainda não registrado.");
  }, 60_000);

  it("rewrites a link however its address is written (escapes, entities, percent-escapes), and the URL of a link whose text holds a code span", async () => {
    const dir = await siteCopy();
    const file = path.join(dir, "articles/artigo-transicao.md");
    const links = [
      "[x](/artigo\\-sistema\\-notas)",
      "[y](/artigo&#45;sistema-notas#como)",
      "[z](/artigo%2Dsistema-notas)",
      "[`](/artigo-sistema-notas)` code](/artigo-sistema-notas)",
      "[w](</artigo-sistema-notas> \"o título\")",
    ];
    await writeFile(file, `${await readFile(file, "utf8")}\n${links.join("\n\n")}\n`);
    await move(dir, "/artigo-sistema-notas", "/sistema-de-notas");
    const text = await readFile(file, "utf8");
    expect(text).toContain("[x](/sistema-de-notas)");
    expect(text).toContain("[y](/sistema-de-notas#como)");
    expect(text).toContain("[z](/sistema-de-notas)");
    // The code span is the text of the link, as written; its URL is rewritten.
    expect(text).toContain("[`](/artigo-sistema-notas)` code](/sistema-de-notas)");
    expect(text).toContain('[w](</sistema-de-notas> "o título")');
    // Left naming the old address: the code span (text, on purpose) and the moved article's alias.
    expect((await mentions(dir, "/artigo-sistema-notas")).sort()).toEqual(["articles/artigo-transicao.md", "articles/sistema-de-notas.md"]);
  }, 60_000);

  it("moved into another folder, an article's own images (body and cover) still resolve, and the site builds", async () => {
    const root = await mkdtemp(path.join(tmpdir(), "cafe-move-images-"));
    await cp(fixture("images"), root, { recursive: true });
    const dir = path.join(root, "content");
    await moveArticle({ projectRoot, contentDir: dir, theme, from: "/com-fotos", to: "/galeria/fotos", publicDir: path.join(root, "public") });
    const text = await readFile(path.join(dir, "articles/galeria/fotos.md"), "utf8");
    expect(text).toMatch(/src: "?\.\.\/com-fotos\/capa\.jpg"?/);
    expect(text).toContain("](../com-fotos/equipe.jpg)");
    expect(text).toContain("](/images/grafico.png)");
    const writer = new MemoryWriter();
    const built = await buildSite({ contentDir: dir, publicDir: path.join(root, "public"), projectRoot, theme, writer });
    expect(built.errors.map((e) => e.message)).toEqual([]);
    expect(writer.text("galeria/fotos.html")).toMatch(/<img[^>]+equipe/);
  }, 60_000);

  it("stops when git cannot answer (a damaged index, a repository of another user), unless told --force", async () => {
    const dir = await siteCopy();
    const git = (...args: string[]) => run("git", ["-c", "user.name=Cris", "-c", "user.email=cris@example.org", ...args], { cwd: dir });
    await git("init", "-q");
    await git("add", ".");
    await git("commit", "-qm", "content");
    await writeFile(path.join(dir, ".git/index"), "not an index");
    const before = await snapshot(dir);
    const error = await move(dir, "/artigo-inovacao-rh", "/inovacao-rh").catch((e: ContentError) => e);
    expect(error).toBeInstanceOf(ContentError);
    expect((error as ContentError).message).toMatch(/^git could not say whether the article has changes not committed: .*index/);
    expect((error as ContentError).hint).toMatch(/--force/);
    expect(await snapshot(dir)).toEqual(before);
    const forced = await moveArticle({ projectRoot, contentDir: dir, theme, from: "/artigo-inovacao-rh", to: "/inovacao-rh", force: true });
    expect(forced.lines[0]).toMatch(/^\(git could not answer, --force: the uncommitted-changes check was skipped/);
    expect(existsSync(path.join(dir, "articles/inovacao-rh.md"))).toBe(true);
  }, 60_000);

  it("as a command: prints each file it changed and exits 0; without a new route, says how to call it and exits 2", async () => {
    const dir = await siteCopy();
    const command = (...args: string[]) =>
      run(process.execPath, ["engine/launch.mjs", "move", ...args, "--content", dir], { cwd: projectRoot, env: { ...process.env, NO_COLOR: "1" } }).then(
        (r) => ({ code: 0, ...r }),
        (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, stdout: e.stdout, stderr: e.stderr }),
      );
    const done = await command("/artigo-sistema-notas", "/sistema-de-notas");
    expect(done.code).toBe(0);
    expect(done.stdout).toMatch(/^Moved .*artigo-sistema-notas\.md → .*sistema-de-notas\.md \(alias \/artigo-sistema-notas added\)$/m);
    expect(done.stdout).toMatch(/^Updated .*cards\.yaml: 1 entry$/m);
    expect(done.stdout).toContain("/artigo-sistema-notas is now /sistema-de-notas");
    const refused = await command("/sistema-de-notas", "/artigo-transicao");
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/npm run move: \/artigo-transicao is the route of .*\nhint: choose another route/);
    const usage = await command("/sistema-de-notas");
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain("cafe move /old-route /new-route");
  }, 120_000);
});
