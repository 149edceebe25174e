/**
 * Every speed-up leaves the output byte-identical to the plain reference build (the full
 * Markdown pipeline for every file): the lean pipeline, incremental updates in watch mode
 * and the up-to-date check.
 */
import { describe, expect, it } from "vitest";
import { execFile } from "node:child_process";
import { appendFile, cp, mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { SiteBuilder } from "../engine/pipeline/site-builder.js";
import { openSiteCache } from "../engine/pipeline/build-record.js";
import { MemoryWriter } from "../engine/stages/write/writers.js";
import { writeCorpus } from "../bench/corpus.js";
import { comparable, fixture, projectRoot } from "./helpers.js";
import { theme } from "../templates/theme.js";

const run = promisify(execFile);

/**
 * The real content plus 120 files of the benchmark corpus, built as the benchmark builds it:
 * without social cards (tests/social-cards.test.ts covers them, in watch mode too).
 */
async function siteWithCorpus(): Promise<string> {
  const dir = path.join(await mkdtemp(path.join(tmpdir(), "cafe-identical-")), "content");
  await cp(path.join(projectRoot, "content"), dir, { recursive: true });
  await writeCorpus(120, path.join(dir, "articles/bench"));
  await appendFile(path.join(dir, "site.yaml"), "\nsocialCards: false\n");
  return dir;
}

describe("byte-identical output", () => {
  it("the fast build equals the reference build, file for file", async () => {
    const content = await siteWithCorpus();
    const fast = new MemoryWriter();
    const reference = new MemoryWriter();
    expect((await new SiteBuilder({ contentDir: content, projectRoot, theme }).build(fast)).ok).toBe(true);
    expect((await new SiteBuilder({ contentDir: content, projectRoot, theme, reference: true }).build(reference)).ok).toBe(true);
    expect([...fast.files.keys()].sort()).toEqual([...reference.files.keys()].sort());
    expect(fast.files.size).toBeGreaterThan(130);
    for (const [file, data] of reference.files) expect(comparable(fast.files.get(file)), file).toEqual(comparable(data));
  }, 60_000);

  it("the command line as authors run it (npm run build) writes the reference bytes", async () => {
    const content = await siteWithCorpus();
    const out = path.join(path.dirname(content), "site");
    await run(process.execPath, ["engine/launch.mjs", "build", "--content", content, "--out", out], { cwd: projectRoot });
    const reference = new MemoryWriter();
    expect((await new SiteBuilder({ contentDir: content, projectRoot, theme, reference: true }).build(reference)).ok).toBe(true);
    const written = (await readdir(out, { recursive: true, withFileTypes: true }))
      .filter((e) => e.isFile() && e.name !== ".cafe-build.json")
      .map((e) => path.relative(out, path.join(e.parentPath, e.name)))
      .sort();
    // The same files, public/'s copied as they are included (both writers take them from the write stage).
    const publicFiles = (await readdir(path.join(projectRoot, "public"), { recursive: true })).map(String);
    expect(publicFiles.every((f) => reference.files.has(f))).toBe(true);
    expect(written).toEqual([...reference.files.keys()].sort());
    for (const [file, data] of reference.files) expect(comparable(await readFile(path.join(out, file))), file).toEqual(comparable(Buffer.from(data)));
  }, 60_000);

  it("incremental updates in watch mode equal a reference build of the edited site", async () => {
    const content = await siteWithCorpus();
    const live = new MemoryWriter();
    const builder = new SiteBuilder({ contentDir: content, projectRoot, theme });
    await builder.build(live);
    const edited = [path.join(content, "articles/bench/3.md"), path.join(content, "articles/artigo-transicao.md")];
    for (const file of edited) await writeFile(file, `${await readFile(file, "utf8")}\nUm parágrafo a mais.\n`);
    // And one deleted: its page must go (its address let go from the record of published addresses).
    const deleted = path.join(content, "articles/bench/5.md");
    await rm(deleted);
    const record = path.join(content, "published-routes.txt");
    await writeFile(record, (await readFile(record, "utf8")).replace("/bench/5\n", ""));
    expect((await builder.update([...edited, deleted], live)).ok).toBe(true);
    const reference = new MemoryWriter();
    await new SiteBuilder({ contentDir: content, projectRoot, theme, reference: true }).build(reference);
    // The same files (none stale, none missing), with the same bytes.
    expect([...live.files.keys()].sort()).toEqual([...reference.files.keys()].sort());
    for (const [file, data] of reference.files) expect(comparable(live.files.get(file)), file).toEqual(comparable(data));
  }, 60_000);

  it("saves in a row in watch mode (a body, a title, a category, a new article, a deleted one, a date, a data file, a body again) each equal a reference build of the site as it is then, the editorial rules' warnings included", async () => {
    const content = await siteWithCorpus();
    const live = new MemoryWriter();
    const builder = new SiteBuilder({ contentDir: content, projectRoot, theme });
    await builder.build(live);
    const bench = (n: number) => path.join(content, `articles/bench/${n}.md`);
    const edit = async (file: string, change: (text: string) => string) => (await writeFile(file, change(await readFile(file, "utf8"))), file);
    const record = path.join(content, "published-routes.txt");
    const saves: [string, () => Promise<string>][] = [
      // A body that the rules find something in (content/rules.yaml: "on-line"), then the same article's title.
      ["body", () => edit(bench(3), (text) => `${text}\nUm curso on-line.\n`)],
      ["title", () => edit(bench(3), (text) => text.replace(/^title: .*$/m, 'title: "Um título novo"'))],
      ["category", () => edit(bench(7), (text) => text.replace(/^title: (.*)$/m, "title: $1\ncategory: Carreira"))],
      ["new", async () => (await writeFile(bench(500), '---\ntitle: "Um artigo novo"\n---\n\nUm texto off-line.\n'), bench(500))],
      ["deleted", async () => {
        await rm(bench(5));
        await writeFile(record, (await readFile(record, "utf8")).replace("/bench/5\n", ""));
        return bench(5);
      }],
      // A date (the article moves in the listings), a data file a body reads (the whole content read again), then a body again after that run.
      ["date", () => edit(bench(9), (text) => text.replace(/^title: (.*)$/m, "title: $1\ndate: 01/01/2030"))],
      ["data file", () => edit(path.join(content, "data/note-scores.json"), (text) => text.replace('"Notion"', '"Notion 2"'))],
      ["body after a data file", () => edit(bench(11), (text) => `${text}\nMais um parágrafo.\n`)],
    ];
    // The settings' own warnings (a placeholder address in site.yaml) included: a save that reads articles alone still says them.
    const shown = (warnings: { file: string; line?: number; message: string }[]) => warnings.map((w) => `${w.file}:${w.line}: ${w.message}`).sort();
    for (const [name, save] of saves) {
      const result = await builder.update([await save()], live);
      expect(result.ok, name).toBe(true);
      const reference = new MemoryWriter();
      const cold = await new SiteBuilder({ contentDir: content, projectRoot, theme, reference: true }).build(reference);
      expect(shown(result.warnings), name).toEqual(shown(cold.warnings));
      expect([...live.files.keys()].sort(), name).toEqual([...reference.files.keys()].sort());
      for (const [file, data] of reference.files) expect(comparable(live.files.get(file)), `${name}: ${file}`).toEqual(comparable(data));
    }
    expect(shown((await builder.update([bench(500)], live)).warnings).join("\n")).toMatch(/off-line/);
  }, 120_000);

  it("a rebuild from the persistent cache, whose kept bodies' HTML stays in its store until a page renders it, equals a reference build of the edited site", async () => {
    const content = await siteWithCorpus();
    const cacheDir = path.join(path.dirname(content), "cache");
    const live = new MemoryWriter();
    const build = async () => {
      const builder = new SiteBuilder({ contentDir: content, projectRoot, theme, cache: await openSiteCache(cacheDir, "identical-output") });
      try {
        return await builder.build(live);
      } finally {
        await builder.close();
      }
    };
    expect((await build()).ok).toBe(true);
    // A title edited: the listings change, so the home page renders again with the featured
    // article's body, which the cache kept; the English translation edited: its Portuguese page
    // renders again with its own body, kept too.
    const bench = path.join(content, "articles/bench/3.md");
    await writeFile(bench, (await readFile(bench, "utf8")).replace(/^title: .*$/m, 'title: "Um título editado"'));
    const english = path.join(content, "articles/artigo-transicao.en.md");
    await writeFile(english, `${await readFile(english, "utf8")}\nOne more paragraph.\n`);
    const rebuilt = await build();
    expect(rebuilt.ok).toBe(true);
    expect(rebuilt.bodies?.parsed).toBe(2);
    expect(rebuilt.rendered).toBeLessThan(live.files.size / 2);
    const reference = new MemoryWriter();
    await new SiteBuilder({ contentDir: content, projectRoot, theme, reference: true }).build(reference);
    expect([...live.files.keys()].sort()).toEqual([...reference.files.keys()].sort());
    for (const [file, data] of reference.files) expect(comparable(live.files.get(file)), file).toEqual(comparable(data));
    await rm(path.dirname(content), { recursive: true, force: true });
  }, 60_000);

  it("a second build with nothing changed leaves every file untouched, and --force writes the same bytes", async () => {
    const out = path.join(await mkdtemp(path.join(tmpdir(), "cafe-same-")), "site");
    const build = (...args: string[]) =>
      run(process.execPath, ["engine/launch.mjs", "build", "--content", fixture("basic"), "--out", out, ...args], { cwd: projectRoot });
    await build();
    const snapshot = async () => {
      const files = (await readdir(out, { recursive: true })).filter((f) => !f.endsWith(".cafe-build.json")).sort();
      const entries = await Promise.all(
        files.map(async (f) => {
          const s = await stat(path.join(out, f));
          return s.isFile() ? ([f, await readFile(path.join(out, f)), s.mtimeMs] as const) : undefined;
        }),
      );
      return entries.filter((e) => e !== undefined);
    };
    const first = await snapshot();
    const again = await build();
    expect(again.stdout).toContain("is up to date");
    expect(await snapshot()).toEqual(first);
    const forced = await build("--force");
    expect(forced.stdout).toMatch(/Built 4 pages/);
    expect((await snapshot()).map(([f, data]) => [f, data])).toEqual(first.map(([f, data]) => [f, data]));
  }, 60_000);
});
