/**
 * Builds the benchmark corpus with this generator and its peers in one run on this machine.
 *
 *   npm run bench -- [--sizes 250,500,1000,2000,4000] [--runs 5] [--tools ours,eleventy,hugo,astro] [--huge]
 *
 * For this generator it also measures a rebuild after one article is edited, after a
 * template is edited, and the dev server's start with a warm cache.
 *
 * Each tool renders every file into a full page through one equivalent layout. Cold runs
 * remove output and caches first; warm runs rebuild with nothing changed. Wall time is the
 * median of `--runs` runs after a warm-up; memory is the peak resident set size (GNU time).
 * `--huge` also builds 100,000 files with this generator. Peers live in bench/package.json.
 */
import { spawn, spawnSync } from "node:child_process";
import { appendFile, mkdir, rm } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { writeCorpus } from "./corpus.js";
import { TOOLS, type Tool } from "./tools.js";
import { Aside, settle } from "./aside.js";
import { median } from "./figures.js";

const bench = path.dirname(fileURLToPath(import.meta.url));
const work = path.join(bench, "out");

const { values } = parseArgs({
  options: {
    sizes: { type: "string", default: "250,500,1000,2000,4000" },
    runs: { type: "string", default: "5" },
    tools: { type: "string", default: "ours,eleventy,hugo,astro" },
    huge: { type: "boolean", default: false },
  },
});
const sizes = values.sizes.split(",").map(Number);
const runs = Number(values.runs);
const tools = values.tools.split(",");

interface Sample {
  seconds: number;
  peakMb: number;
}

function runOnce(tool: Tool, dir: string): Sample {
  const [cmd, args] = tool.command(dir);
  const result = spawnSync("/usr/bin/time", ["-f", "%e %M", cmd, ...args], {
    cwd: dir,
    // tsx reads the compiler settings (the JSX runtime) of the project it runs.
    env: { ...process.env, ASTRO_TELEMETRY_DISABLED: "1", NODE_ENV: "production", TSX_TSCONFIG_PATH: path.join(dir, "project/tsconfig.json") },
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  });
  const last = result.stderr.trim().split("\n").pop() ?? "";
  const [seconds, kb] = last.split(" ").map(Number);
  if (result.status !== 0 || seconds === undefined || Number.isNaN(seconds)) {
    throw new Error(`${tool.name} failed in ${dir}:\n${result.stdout}\n${result.stderr.slice(-3000)}`);
  }
  return { seconds, peakMb: (kb ?? 0) / 1024 };
}


async function measure(tool: Tool, dir: string, expected: number) {
  // Nothing deleted while timing (bench/aside.ts): outputs are moved aside, deleted after the tool's runs.
  const aside = await Aside.in(work);
  const clean = () => aside.move(tool.clean(dir));
  await clean();
  await settle();
  runOnce(tool, dir); // warm-up: file-system cache, JIT caches on disk
  const cold: Sample[] = [];
  for (let i = 0; i < runs; i++) {
    await clean();
    cold.push(runOnce(tool, dir));
  }
  const pages = tool.pages(dir);
  if (pages < expected) throw new Error(`${tool.name} wrote ${pages} pages, expected at least ${expected}`);
  const warm: Sample[] = [];
  for (let i = 0; i < runs; i++) warm.push(runOnce(tool, dir));
  const edits: Partial<Awaited<ReturnType<typeof measureEdits>>> = tool === TOOLS.ours ? await measureEdits(tool, dir) : {};
  await aside.clear();
  return {
    cold: median(cold.map((s) => s.seconds)),
    warm: median(warm.map((s) => s.seconds)),
    peakMb: Math.max(...cold.map((s) => s.peakMb)),
    pages,
    ...edits,
  };
}

/**
 * This generator only: a rebuild after one article of the corpus is edited, after a template
 * is edited, and the dev server's start with a warm cache (its second start).
 */
async function measureEdits(tool: Tool, dir: string) {
  const article: Sample[] = [];
  for (let i = 0; i < runs; i++) {
    await appendFile(path.join(dir, "content/articles/bench", `${i + 1}.md`), `\nUma frase a mais, a ${i + 1}ª.\n`);
    article.push(runOnce(tool, dir));
  }
  const template: Sample[] = [];
  const footer = path.join(dir, "project/templates/footer.tsx");
  for (let i = 0; i < runs; i++) {
    await appendFile(footer, `\n// bench edit ${i}\n`);
    template.push(runOnce(tool, dir));
  }
  const devStart: number[] = [];
  await startDev(dir); // the first start fills the dev cache
  for (let i = 0; i < runs; i++) devStart.push(await startDev(dir));
  return {
    articleEdit: median(article.map((s) => s.seconds)),
    articleEditPeakMb: Math.max(...article.map((s) => s.peakMb)),
    templateEdit: median(template.map((s) => s.seconds)),
    devStart: median(devStart),
  };
}

/** Seconds from starting `npm run dev` to the server answering with the home page. */
async function startDev(dir: string): Promise<number> {
  const started = performance.now();
  const child = spawn(process.execPath, [path.join(dir, "project/engine/launch.mjs"), "dev", "--root", path.join(dir, "project"), "--content", path.join(dir, "content"), "--port", "0"], {
    cwd: dir,
    stdio: ["ignore", "pipe", "inherit"],
    env: { ...process.env, NODE_ENV: "production", TSX_TSCONFIG_PATH: path.join(dir, "project/tsconfig.json") },
  });
  try {
    const url = await new Promise<string>((resolve, reject) => {
      let out = "";
      child.stdout!.on("data", (chunk: Buffer) => {
        out += chunk.toString();
        const found = /dev server: (http:\/\/\S+)/.exec(out);
        if (found) resolve(found[1]!);
      });
      child.on("exit", () => reject(new Error(`dev exited before it was ready:\n${out}`)));
    });
    const home = await fetch(url);
    if (home.status !== 200) throw new Error(`dev answered ${home.status}`);
    return (performance.now() - started) / 1000;
  } finally {
    child.kill("SIGTERM");
    await new Promise((resolve) => child.on("exit", resolve));
  }
}

const results: Record<number, Record<string, Awaited<ReturnType<typeof measure>>>> = {};
for (const n of sizes) {
  const corpus = path.join(work, `corpus-${n}`);
  await writeCorpus(n, corpus);
  results[n] = {};
  for (const key of tools) {
    const tool = TOOLS[key]!;
    const dir = path.join(work, `${key}-${n}`);
    await rm(dir, { recursive: true, force: true });
    await mkdir(dir, { recursive: true });
    await tool.setup(dir, corpus);
    results[n]![key] = await measure(tool, dir, n);
    const r = results[n]![key]!;
    console.error(`${n} files, ${tool.name}: cold ${r.cold.toFixed(2)} s, warm ${r.warm.toFixed(2)} s, peak ${r.peakMb.toFixed(0)} MB (${r.pages} pages)`);
  }
}

const fmt = (x: number) => x.toFixed(2);
const lines: string[] = [];
lines.push(`| files | tool | cold (s) | warm (s) | peak memory (MB) | cold vs ours | warm vs ours |`);
lines.push(`|---|---|---|---|---|---|---|`);
for (const n of sizes) {
  const ours = results[n]!.ours;
  for (const key of tools) {
    const r = results[n]![key]!;
    const ratio = (a: number, b: number | undefined) => (b ? `${fmt(a / b)}×` : "");
    lines.push(`| ${n} | ${TOOLS[key]!.name} | ${fmt(r.cold)} | ${fmt(r.warm)} | ${r.peakMb.toFixed(0)} | ${key === "ours" ? "" : ratio(r.cold, ours?.cold)} | ${key === "ours" ? "" : ratio(r.warm, ours?.warm)} |`);
  }
}

lines.push("", "| files | this generator | cold (s) | one article edited (s) | a template edited (s) | dev ready, warm cache (s) | peak memory, one edited (MB) |", "|---|---|---|---|---|---|---|");
for (const n of sizes) {
  const r = results[n]!.ours;
  if (r?.articleEdit !== undefined) {
    lines.push(`| ${n} | | ${fmt(r.cold)} | ${fmt(r.articleEdit)} | ${fmt(r.templateEdit!)} | ${fmt(r.devStart!)} | ${r.articleEditPeakMb!.toFixed(0)} |`);
  }
}

if (values.huge) {
  const n = 100_000;
  const corpus = path.join(work, `corpus-${n}`);
  await writeCorpus(n, corpus);
  const dir = path.join(work, `ours-${n}`);
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  await TOOLS.ours!.setup(dir, corpus);
  const sample = runOnce(TOOLS.ours!, dir);
  const pages = TOOLS.ours!.pages(dir);
  await appendFile(path.join(dir, "content/articles/bench/1.md"), "\nUma frase a mais.\n");
  const edited = runOnce(TOOLS.ours!, dir);
  lines.push(
    "",
    `100,000 files, this generator, cold: ${fmt(sample.seconds)} s, peak ${sample.peakMb.toFixed(0)} MB, ${pages} pages; ` +
      `one article edited, then built again: ${fmt(edited.seconds)} s, peak ${edited.peakMb.toFixed(0)} MB.`,
  );
}

console.log(lines.join("\n"));
