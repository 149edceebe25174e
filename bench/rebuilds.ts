/**
 * Issue 37's rebuild figures, interleaved by round (medians, ratios pair by pair), from the same
 * file-system state as bench/series.ts (nothing deleted while timing: bench/aside.ts):
 *
 * - **the real site**, a copy of this project with its content, built as an author types it
 *   (`npm run build`): after one article is edited, and with nothing changed; against
 *   Eleventy's cold build of the same 14 articles and a home page (15 pages) in its layout.
 * - **`--size N` articles** (default 4000) beside the real content, in bench/tools.ts's layout:
 *   our cold build, then `templates/article-view.tsx` edited twice (a comment appended: the
 *   code esbuild makes of the module is the same, so every page is kept; then an attribute
 *   set on the article: every article page's HTML changes and is rendered and written), then
 *   one article edited; Hugo's cold build of the same corpus in the same round.
 *
 *   npx tsx bench/rebuilds.ts [--runs 5] [--size 4000] [--dir DIR] [--only real|corpus]
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { appendFile, cp, mkdir, readdir, readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { Aside, settle } from "./aside.js";
import { median, range, uptime } from "./figures.js";
import { writeCorpus } from "./corpus.js";
import { linkPackages, TOOLS } from "./tools.js";

const { values } = parseArgs({
  options: { runs: { type: "string", default: "5" }, size: { type: "string", default: "4000" }, dir: { type: "string" }, only: { type: "string" } },
});
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const work = path.resolve(values.dir ?? path.join(root, "bench/out"));
const runs = Number(values.runs);
const size = Number(values.size);

interface Sample {
  wall: number;
  peakMb: number;
}

/** Wall seconds and peak memory of one command (GNU time); its output is dropped, a failure stops the bench. */
function timed(cwd: string, cmd: string, args: string[]): Sample {
  const result = spawnSync("/usr/bin/time", ["-f", "%e %M", cmd, ...args], { cwd, env: { ...process.env, NODE_ENV: "production" }, encoding: "utf8", maxBuffer: 256 * 1024 * 1024 });
  const [wall, kb] = (result.stderr.trim().split("\n").pop() ?? "").split(" ").map(Number);
  if (result.status !== 0 || wall === undefined || Number.isNaN(wall)) throw new Error(`${cmd} ${args.join(" ")} failed in ${cwd}:\n${result.stdout.slice(-2000)}\n${result.stderr.slice(-3000)}`);
  return { wall, peakMb: kb! / 1024 };
}


/** The project's files as a clone has them, with its packages linked (not copied): a site an author builds. */
async function projectCopy(dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true });
  for (const part of ["build.ts", "cafe.config.ts", "engine", "templates", "client", "public", "content", "package.json", "package-lock.json", "tsconfig.json"]) {
    await cp(path.join(root, part), path.join(dir, part), { recursive: true });
  }
  await linkPackages(dir);
}

/** Prints a table: each row's samples, and its ratio to `against`'s samples of the same round. */
function table(title: string, rows: [string, Sample[], Sample[] | undefined][]): void {
  console.log(`\n${title}\n\n| figure | wall (s) | peak memory (MiB) | ratio, pair by pair |\n|---|---|---|---|`);
  for (const [name, samples, against] of rows) {
    const ratios = against ? samples.map((s, i) => s.wall / against[i]!.wall) : undefined;
    console.log(`| ${name} | ${range(samples.map((s) => s.wall))} | ${median(samples.map((s) => s.peakMb)).toFixed(0)} | ${ratios ? `${range(ratios)}×` : ""} |`);
  }
}

async function realSite(aside: Aside): Promise<void> {
  const ours = path.join(work, "rebuilds-real");
  const eleventy = path.join(work, "rebuilds-real-eleventy");
  await projectCopy(ours);
  // Eleventy's project: the same articles (subfolders kept) and a home page, through bench/tools.ts's layout.
  const articles = path.join(work, "rebuilds-real-articles");
  await rm(articles, { recursive: true, force: true });
  await cp(path.join(root, "content/articles"), articles, { recursive: true, filter: (src) => !src.endsWith(".yaml") && !/\.(png|jpe?g|webp|avif|gif|svg)$/i.test(src) });
  // Eleventy reads `date` as the page's date and refuses the blog's day/month/year: the key is renamed.
  for (const file of (await readdir(articles, { recursive: true })).filter((f) => f.endsWith(".md"))) {
    const text = await readFile(path.join(articles, file), "utf8");
    await writeFile(path.join(articles, file), text.replace(/^date:/m, "published:"));
  }
  await writeFile(path.join(articles, "index.md"), `---\ntitle: "Café com a Cris"\n---\n\nO blog.\n`);
  await rm(eleventy, { recursive: true, force: true });
  await mkdir(eleventy, { recursive: true });
  await TOOLS.eleventy!.setup(eleventy, articles);
  const [ecmd, eargs] = TOOLS.eleventy!.command(eleventy);
  const npm = (dir: string) => timed(dir, "npm", ["run", "--silent", "build"]);
  const edited = path.join(ours, "content/articles/artigo-transicao.md");

  await aside.move([path.join(ours, "dist"), path.join(ours, "dist.builds"), path.join(ours, "node_modules/.cache"), ...TOOLS.eleventy!.clean(eleventy)]);
  console.log(`real site: ${runs} rounds; file cache ${(await settle()) ? "dropped" : "kept (not root)"}; before: ${uptime()}`);
  npm(ours); // the first build: what the rebuilds start from
  timed(eleventy, ecmd, eargs); // warm-up
  const pages = TOOLS.eleventy!.pages(eleventy);
  const samples = { eleventy: [] as Sample[], article: [] as Sample[], nothing: [] as Sample[] };
  for (let round = 0; round <= runs; round++) {
    await aside.move(TOOLS.eleventy!.clean(eleventy));
    const e = timed(eleventy, ecmd, eargs);
    await appendFile(edited, `\nMais uma frase, a ${round + 1}ª.\n`);
    const a = npm(ours);
    const n = npm(ours);
    console.error(`round ${round}: Eleventy ${e.wall} s, one article edited ${a.wall} s, nothing changed ${n.wall} s`);
    if (round === 0) continue; // warm-up round
    samples.eleventy.push(e);
    samples.article.push(a);
    samples.nothing.push(n);
  }
  console.log(`after: ${uptime()}`);
  table(`The real site (\`npm run build\`), against Eleventy's cold build of ${pages} pages`, [
    [`Eleventy, ${pages} pages, cold`, samples.eleventy, undefined],
    ["ours, one article edited", samples.article, samples.eleventy],
    ["ours, nothing changed", samples.nothing, samples.eleventy],
  ]);
}

/** Sets `data-view` on the article view's `<article>`: every article page's HTML changes (a new value each round). */
async function visibleEdit(template: string, round: number): Promise<void> {
  const text = await readFile(template, "utf8");
  const edited = text.replace(/<article className="article"( data-view="\d+")?>/, `<article className="article" data-view="${round + 1}">`);
  if (edited === text) throw new Error(`${template} has no <article className="article">: the bench's visible edit needs one`);
  await writeFile(template, edited);
}

async function corpusSite(aside: Aside): Promise<void> {
  const corpus = path.join(work, `corpus-${size}`);
  if (!existsSync(corpus)) await writeCorpus(size, corpus);
  const ours = path.join(work, `rebuilds-ours-${size}`);
  const hugo = path.join(work, `rebuilds-hugo-${size}`);
  for (const [dir, tool] of [[ours, TOOLS.ours!], [hugo, TOOLS.hugo!]] as const) {
    await rm(dir, { recursive: true, force: true });
    await mkdir(dir, { recursive: true });
    await tool.setup(dir, corpus);
  }
  const [ocmd, oargs] = TOOLS.ours!.command(ours);
  const [hcmd, hargs] = TOOLS.hugo!.command(hugo);
  const template = path.join(ours, "project/templates/article-view.tsx");
  await aside.move([...TOOLS.ours!.clean(ours), ...TOOLS.hugo!.clean(hugo)]);
  console.log(`\n${size} articles: ${runs} rounds; file cache ${(await settle()) ? "dropped" : "kept (not root)"}; before: ${uptime()}`);
  const samples = { cold: [] as Sample[], template: [] as Sample[], visible: [] as Sample[], article: [] as Sample[], hugo: [] as Sample[] };
  for (let round = 0; round <= runs; round++) {
    await aside.move(TOOLS.ours!.clean(ours));
    const c = timed(ours, ocmd, oargs);
    await appendFile(template, `\n// bench edit ${round}\n`);
    const t = timed(ours, ocmd, oargs);
    await visibleEdit(template, round);
    const v = timed(ours, ocmd, oargs);
    await appendFile(path.join(ours, "content/articles/bench/17.md"), `\nMais uma frase, a ${round + 1}ª.\n`);
    const a = timed(ours, ocmd, oargs);
    await aside.move(TOOLS.hugo!.clean(hugo));
    const h = timed(hugo, hcmd, hargs);
    console.error(`round ${round}: cold ${c.wall} s, template edited ${t.wall} s, every article page changed ${v.wall} s, one article edited ${a.wall} s, Hugo cold ${h.wall} s`);
    if (round === 0) continue;
    samples.cold.push(c);
    samples.template.push(t);
    samples.visible.push(v);
    samples.article.push(a);
    samples.hugo.push(h);
  }
  console.log(`after: ${uptime()}`);
  table(`${size} articles beside the real content (cards off)`, [
    ["ours, cold", samples.cold, undefined],
    ["ours, `templates/article-view.tsx` edited (a comment: no page's bytes change), against our cold build", samples.template, samples.cold],
    ["ours, `templates/article-view.tsx` edited (every article page changes), against our cold build", samples.visible, samples.cold],
    ["Hugo, cold", samples.hugo, undefined],
    ["ours, one article edited, against Hugo's cold build", samples.article, samples.hugo],
  ]);
}

await mkdir(work, { recursive: true });
const aside = await Aside.in(work);
if (values.only !== "corpus") await realSite(aside);
await aside.clear();
if (values.only !== "real") await corpusSite(aside);
await aside.clear();
