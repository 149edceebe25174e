/**
 * The persistent cache: a build from it is byte-identical to a cold build, over a sequence
 * of edits of every kind, and a damaged cache is ignored, never used. Runs the command line
 * on a copy of the project (a template is one of the edits).
 */
import { describe, expect, it } from "vitest";
import { readdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { cliSite } from "./helpers.js";

async function setup() {
  const site = await cliSite();
  /** A build from the cache, then a cold one: same bytes, and how many pages the first took unchanged. */
  const compare = async () => (await site.compare()).unchanged;
  return { ...site, compare };
}

// Each test on a copy of its own, with its own cache: run side by side (the command's builds are
// most of their time, one core each, and integration files run one at a time).
describe.concurrent("the persistent cache", () => {
  it("builds from the cache exactly what a cold build writes, over a sequence of edits", async () => {
    const { project, content, compare, edit } = await setup();
    // How many of the 4 pages each warm build took from the cache, edit after edit.
    const counts = [await compare()];

    // Article text: only what shows that article is rendered again.
    await edit("articles/guia/so-titulo.md", (t) => `${t}\nUm parágrafo a mais.\n`);
    counts.push(await compare());
    // Front matter.
    await edit("articles/primeiro.md", (t) => t.replace("title: Primeiro artigo", "title: Primeiro artigo, revisto"));
    counts.push(await compare());
    // A card.
    await edit("cards.yaml", (t) => t.replace(/excerpt: .*/, "excerpt: Um resumo novo."));
    counts.push(await compare());
    // A data file.
    await edit("data/tools.json", (t) => t.replace(/"notas": "[^"]*"/, '"notas": "Notas novas"'));
    counts.push(await compare());
    // A setting.
    await edit("site.yaml", (t) => t.replace(/^(\s*button:) .*/m, "$1 Quero receber"));
    counts.push(await compare());
    // A template.
    await edit(path.join(project, "templates/footer.tsx"), (t) => t.replace("</footer>", "<p>Rodapé novo</p></footer>"));
    counts.push(await compare());
    // A deletion, and a rename.
    await rm(path.join(content, "articles/guia/so-titulo.md"));
    await edit("cards.yaml", (t) => t.slice(0, t.indexOf("- route: /guia/so-titulo")));
    await edit("editions.yaml", (t) => (t.includes("/guia/so-titulo") ? t.slice(0, t.indexOf("- id: agosto-2025")) : t));
    await edit("articles/primeiro.md", (t) => t.replace(/\[link interno\]\(\/guia\/so-titulo\)/, "link interno"));
    // ...whose address is let go (deleted from the record of published addresses).
    await edit("published-routes.txt", (t) => t.replace("/guia/so-titulo\n", ""));
    counts.push(await compare());
    await rename(path.join(content, "articles/primeiro.en.md"), path.join(content, "articles/primeiro-renomeado.en.md"));
    await rename(path.join(content, "articles/primeiro.md"), path.join(content, "articles/primeiro-renomeado.md"));
    await edit("site.yaml", (t) => t.replace("featured: /primeiro", "featured: /primeiro-renomeado"));
    await edit("cards.yaml", (t) => t.replaceAll("route: /primeiro\n", "route: /primeiro-renomeado\n"));
    await edit("editions.yaml", (t) => t.replaceAll("route: /primeiro\n", "route: /primeiro-renomeado\n"));
    // The old address answers with a redirect (its page for GitHub Pages is written too).
    await edit("articles/primeiro-renomeado.md", (t) => t.replace(/^---\n/, "---\naliases: [/primeiro]\n"));
    counts.push(await compare());
    expect(counts).toEqual([
      0, // the first build: nothing cached yet
      3, // article text: its own page only
      2, // front matter: the article's page and the home page, where it is featured
      3, // a card: the home page only
      2, // a data file: the page with its table, and the home page, where that article is featured
      0, // a setting shown on every page
      0, // a template: new code, a new cache
      1, // a deletion: the 404 page, which shows no article (every other page shows the list or the deleted one)
      0, // a rename, the featured article's
    ]);
  }, 300_000);

  it("ignores a cache that is truncated, corrupt or from another version, says so in one line, and builds the same bytes", async () => {
    const site = await cliSite();
    const { project, edit } = site;
    await site.compare();
    const cacheRoot = path.join(project, "node_modules/.cache/engine");
    const dirs = (await readdir(cacheRoot)).filter((d) => d.endsWith("-build"));
    // The copy's own cache, of this one content folder: the damage below reaches no other.
    expect(dirs).toHaveLength(1);
    const damage: [said: RegExp | undefined, harm: (dir: string) => Promise<void>][] = [
      [
        /a shard of its files is missing or damaged/,
        async (dir) => {
          for (const f of await readdir(dir)) if (f.startsWith("files-")) await writeFile(path.join(dir, f), (await readFile(path.join(dir, f), "utf8")).slice(0, 40));
        },
      ],
      [/its store\.json does not parse/, async (dir) => writeFile(path.join(dir, "store.json"), "{ not json")],
      [/it is in another format \(999/, async (dir) => writeFile(path.join(dir, "store.json"), (await readFile(path.join(dir, "store.json"), "utf8")).replace(/"format":\d+/, '"format":999'))],
      [
        // The bodies' HTML changed in its packs, each the same length: read for the pages a
        // setting makes render again, found not to be what its hash says, and rendered again.
        undefined,
        async (dir) => {
          for (const f of await readdir(dir)) if (f.endsWith(".pack")) await writeFile(path.join(dir, f), (await readFile(path.join(dir, f), "utf8")).replaceAll("<p>", "<b>"));
          await edit("site.yaml", (t) => t.replace(/^(\s*button:) .*/m, "$1 Quero muito receber"));
        },
      ],
    ];
    for (const [said, harm] of damage) {
      for (const dir of dirs) await harm(path.join(cacheRoot, dir));
      await edit("articles/guia/so-titulo.md", (t) => `${t}\nMais um.\n`);
      const { printed } = await site.compare();
      const lines = printed.split("\n").filter((line) => line.includes("build cache"));
      if (said) {
        expect(lines).toHaveLength(1);
        expect(lines[0]).toMatch(said);
        expect(lines[0]).toMatch(/^note: the build cache in node_modules\/\.cache\/engine\/.*-build was not used \(.*\): this build makes it again$/);
      } else expect(lines).toEqual([]);
    }
  }, 300_000);

  it("sweeps the half-written files a build stopped while saving the cache left (Ctrl+C ends a build at once), and no live process's", async () => {
    const { project, compare, edit } = await setup();
    await compare();
    const cacheRoot = path.join(project, "node_modules/.cache/engine");
    const [dir] = (await readdir(cacheRoot)).filter((d) => d.endsWith("-build"));
    const cache = path.join(cacheRoot, dir!);
    // A pid no process has (above Linux's pid_max), and this test's own, which is alive.
    const dead = path.join(cache, "files-3.json.4194305.tmp");
    const alive = path.join(cache, `files-5.json.${process.pid}.tmp`);
    await writeFile(dead, '{"half');
    await writeFile(alive, '{"being written');
    await edit("articles/guia/so-titulo.md", (t) => `${t}\nMais um.\n`);
    await compare();
    const left = await readdir(cache);
    expect(left).not.toContain(path.basename(dead));
    expect(left).toContain(path.basename(alive));
  }, 300_000);

  it("`--verbose` says where all of a build's time went: the start before the build (Node, the command, the site's code), the inputs' check and the cache's opening, and the cache's save, besides the stages", async () => {
    const { out, build } = await cliSite();
    const printed = await build("--out", path.join(out, "site"), "--verbose");
    const lines = printed.split("\n");
    const lap = (label: string) => lines.findIndex((line) => new RegExp(`^  ${label}\\s+\\d+\\.\\d ms$`).test(line));
    // The start first, the stages in order, the save last.
    expect(lap("start-up")).toBeGreaterThanOrEqual(0);
    expect(lap("start-up")).toBeLessThan(lap("inputs, cache"));
    expect(lap("inputs, cache")).toBeLessThan(lap("load"));
    expect(lap("commit")).toBeLessThan(lap("cache save"));
    expect(printed).toMatch(/Built \d+ pages/);
  }, 300_000);

  it("keeps what the editorial rules found: `npm run build` after a one-article edit runs them over that article only, and prints what a cold build prints (issue 37)", async () => {
    // The command's own compare: what the warm build printed (`--verbose`), not only how many pages it kept.
    const { content, out, build, compare, edit } = await cliSite();
    await writeFile(path.join(content, "rules.yaml"), "grafia:\n  kind: substitution\n  swap:\n    conversa: prosa\n" + "fontes:\n  kind: block-field\n  block: stat-cards\n  field: source\n");
    const read = (printed: string) => Number(/^\s+editorial rules\s+(\d+) articles? read/m.exec(printed)?.[1]);
    const warnings = (printed: string) => printed.split("\n").filter((line) => /\[(grafia|fontes)\]$/.test(line));
    const first = await compare();
    expect(read(first.printed)).toBeGreaterThanOrEqual(3);
    expect(warnings(first.printed).length).toBeGreaterThanOrEqual(3);
    await edit("articles/guia/so-titulo.md", (t) => `${t}\nUma conversa a mais.\n`);
    const edited = await compare();
    expect(read(edited.printed)).toBe(1);
    const cold = await build("--out", path.join(out, "cold-rules"), "--no-cache", "--force");
    expect(warnings(edited.printed)).toEqual(warnings(cold));
    expect(warnings(edited.printed).some((line) => line.includes("so-titulo.md"))).toBe(true);
  }, 300_000);
});
