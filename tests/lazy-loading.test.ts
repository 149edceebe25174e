/**
 * Nothing loaded that is not used (issue 37, point 3): a build loads sharp only when an image
 * is encoded, satori and resvg only when a card is drawn, esbuild only when the assets are
 * bundled, subset-font only when a font is cut, unified only when a Markdown body is parsed,
 * yaml (with gray-matter and jsonc-parser) only when a YAML or JSON text is parsed;
 * `--verbose` says which it loaded. A cold build of a site with images and cards needs them
 * all; a one-article body edit after it needs only the Markdown parser.
 *
 * The command runs as an author runs it (`node engine/launch.mjs build --verbose`), on a copy
 * of the project with caches of its own: an integration file (vitest.config.ts). That no engine
 * module imports such a library statically is a unit test (tests/start-imports.test.ts).
 */
import { beforeAll, describe, expect, it } from "vitest";
import { execFile } from "node:child_process";
import { appendFile, cp, mkdtemp, readdir, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { fixture, projectCopy } from "./helpers.js";

const run = promisify(execFile);

/** What `--verbose` says the build loaded on demand: the names on its `loaded` line, in order. */
function loadedOf(stdout: string): string[] | undefined {
  const line = stdout.split("\n").find((l) => /^\s+loaded\s/.test(l));
  if (line === undefined) return undefined;
  const list = line.replace(/^\s+loaded\s+/, "");
  return list === "none of the libraries loaded on demand" ? [] : list.split(", ").map((item) => item.replace(/ \([\d.]+ ms\)$/, ""));
}

/**
 * One copy of the project for the file's tests, its command bundled once (the launcher's bundle,
 * `--help`), into a cache whose `cli/` each test copies into a cache of its own: each test's
 * first build bundled the same command again (about two seconds each on a quiet machine). What
 * the tests' builds draw, encode, cut or bundle for the site starts from nothing as before: the
 * caches share only the command's bundle. So `esbuild` in a cold build's `loaded` line is the
 * theme's assets bundled, no longer possibly the launcher's own bundling.
 */
let project: string;
let bundled: string;
beforeAll(async () => {
  project = await projectCopy();
  // The images fixture's public/ files (a PDF its articles link to) beside the project's: the first test builds that fixture.
  await cp(path.join(fixture("images"), "public"), path.join(project, "public"), { recursive: true });
  bundled = path.join(await mkdtemp(path.join(tmpdir(), "cafe-lazy-bundle-")), "cache");
  await run(process.execPath, ["engine/launch.mjs", "--help"], { cwd: project, env: { ...process.env, CAFE_CACHE_DIR: bundled } });
}, 120_000);

/** A cache of a test's own that holds only the command's bundle (made in `beforeAll`). */
async function cacheWithBundle(work: string): Promise<string> {
  const cache = path.join(work, "cache");
  await cp(path.join(bundled, "cli"), path.join(cache, "cli"), { recursive: true, preserveTimestamps: true });
  return cache;
}

describe("a build loads a library only for the work that needs it (--verbose says which)", () => {
  it("a cold build with images and cards loads them all; a one-article body edit after it loads only the Markdown parser", async () => {
    const work = await mkdtemp(path.join(tmpdir(), "cafe-lazy-"));
    const cache = await cacheWithBundle(work);
    const content = path.join(work, "content");
    await cp(path.join(fixture("images"), "content"), content, { recursive: true });
    // Its pictures a few pixels each (tests/fixtures/tiny-images): encoded all the same (sharp
    // loaded), without the seconds the photos took, most of this test's (tests/images.test.ts encodes those).
    for (const file of ["articles/com-fotos/capa.jpg", "articles/com-fotos/equipe.jpg", "images/grafico.png"]) {
      await cp(path.join(fixture("tiny-images"), path.basename(file)), path.join(content, file));
    }
    const out = path.join(work, "dist");
    const build = () =>
      run(process.execPath, ["engine/launch.mjs", "build", "--content", content, "--out", out, "--verbose"], {
        cwd: project,
        env: { ...process.env, CAFE_CACHE_DIR: cache, NO_COLOR: "1" },
      });

    const cold = await build();
    expect(cold.stdout).toMatch(/Built \d+ pages/);
    // The images encoded, the cards drawn, the assets bundled, the fonts cut, every body parsed, every YAML file and front matter parsed.
    expect(new Set(loadedOf(cold.stdout))).toEqual(new Set(["esbuild", "sharp", "satori", "resvg", "subset-font", "unified", "feed", "yaml"]));
    expect((await readdir(path.join(out, "assets/images"))).some((file) => file.endsWith(".avif") || file.endsWith(".webp"))).toBe(true);

    // One sentence more in a body that shows no image: its front matter, the settings and the collections are the last build's (no YAML parser).
    await appendFile(path.join(content, "articles/sem-fotos.md"), "\nUma frase a mais, escrita depois.\n");
    const edited = await build();
    expect(edited.stdout).toMatch(/Built \d+ pages .*\(\d+ unchanged, from the cache\)/);
    expect(loadedOf(edited.stdout)).toEqual(["unified"]);
    expect(await readFile(path.join(out, "sem-fotos.html"), "utf8")).toContain("Uma frase a mais, escrita depois.");
    expect(await readFile(path.join(out, "feed.xml"), "utf8")).toContain("Um artigo só de texto");

    // The lead, which the feed shows, edited: the feed is made again, and says it.
    const article = path.join(content, "articles/sem-fotos.md");
    await writeFile(article, (await readFile(article, "utf8")).replace("lead: Um artigo só de texto", "lead: Um artigo só de palavras"));
    const lead = await build();
    expect(loadedOf(lead.stdout)).toContain("feed");
    const feed = await readFile(path.join(out, "feed.xml"), "utf8");
    expect(feed).toContain("Um artigo só de palavras");
    expect(feed).not.toContain("Um artigo só de texto");
  }, 180_000);
});

describe("the editors' schemas (.vscode/schemas) are made again only when the code or their files changed", () => {
  it("a body edit keeps them without making them; a schema file edited by hand is made again", async () => {
    const work = await mkdtemp(path.join(tmpdir(), "cafe-schemas-"));
    const cache = await cacheWithBundle(work);
    // The site's own content folder (the editors' schemas are written for it only), small: the basic fixture's,
    // its social cards turned off (the schemas do not depend on them; drawing them loaded satori
    // and drew four cards in the first build, a second or two of this test).
    await cp(fixture("basic"), path.join(project, "content"), { recursive: true });
    await appendFile(path.join(project, "content/site.yaml"), "\nsocialCards: false\n");
    const build = async () => {
      const { stdout } = await run(process.execPath, ["engine/launch.mjs", "build", "--verbose"], { cwd: project, env: { ...process.env, CAFE_CACHE_DIR: cache, NO_COLOR: "1" } });
      return stdout.split("\n").find((l) => /^\s+editor schemas\s/.test(l))?.replace(/^\s+editor schemas\s+/, "");
    };
    const schema = path.join(project, ".vscode/schemas/site.schema.json");

    expect(await build()).toMatch(/^made from the theme's schemas, \d+ files written$/);
    const made = await readFile(schema, "utf8");
    expect(JSON.parse(made).title).toBe("site.yaml");

    await appendFile(path.join(project, "content/articles/primeiro.md"), "\nUma frase a mais.\n");
    expect(await build()).toBe("kept (the code and the files as the last build left them)");

    // Edited by hand (or by a checkout): made again, whatever else changed.
    await writeFile(schema, "{}\n");
    await appendFile(path.join(project, "content/articles/primeiro.md"), "\nOutra frase.\n");
    expect(await build()).toBe("made from the theme's schemas, 1 file written");
    expect(await readFile(schema, "utf8")).toBe(made);
  }, 180_000);
});
