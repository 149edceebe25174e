/**
 * Interleaved cold builds of the benchmark corpus: every variant once per round, in turn
 * (A B C A B C …), after a warm-up round, so that each ratio is taken between runs made
 * moments apart and holds when the machine's speed drifts.
 *
 *   npx tsx bench/series.ts [--size 4000] [--runs 5] [--dir DIR] VARIANT...
 *
 * Variants: `ours` (this generator, cards off, threads as the build decides), `ours:cards`
 * (cards on), `ours:threads=N` (`--threads N`), `ours:one-core` (pinned to one core with
 * taskset: one thread), `ours:code=DIR` (the code of another checkout, a worktree of a branch:
 * two versions of the code timed in the same rounds), options joined by commas
 * (`ours:cards,threads=1`), `ours:node=FLAG` (a flag for node, before the script:
 * `ours:node=--max-semi-space-size=32`), `ours:env=NAME=VALUE` (an environment variable for
 * the build: `ours:env=UV_THREADPOOL_SIZE=2`), `ours:keep-bundle` (the launcher's bundle of the code
 * kept between runs, every other cache removed: what the cold build costs beyond bundling the
 * site's config and theme), `ours:fresh-engine` (the engine's own bundle, engine/.bundle/,
 * removed too: what the first build after installing or editing the engine pays; a cold run
 * of `ours` keeps it, as an installed package keeps what it was built to); `starter` (the site `cafe init` writes, with the corpus among its
 * posts: the engine on pages as plain as the peers'); `eleventy`, `hugo`, `astro` (peers from
 * `npm run bench:peers`), `eleventy-blog` and `hugo-blog` (the peers writing the blog's own page,
 * bench/blog-page.ts), `eleventy-cards` (Eleventy drawing the blog's social card for each article).
 * Each run removes the variant's output and caches first (this generator's bundle of the
 * code too) by moving them aside: nothing is deleted while the series times, and it starts a
 * minute after what was deleted before it (bench/aside.ts says why: on ext4, each run was
 * slower than the last). `--dir` is where the corpus and the tools' folders are (default
 * bench/out): on the project machine, files made under /work cost ~16× what they cost under
 * /tmp on the same disk (bench/README.md, "Session 7"; /work is where the tests delete files
 * all day). Prints, per variant, the median wall and CPU seconds, CPU ÷ wall, the peak
 * memory of the largest process (GNU time), and each ratio to the first variant pair by pair
 * (median, min–max); `uptime` before and after the series; and, for variants that build the
 * same site differently (threads, one core, node's flags), whether each wrote the same bytes
 * as the first of them.
 */
import { spawnSync } from "node:child_process";
import { mkdir, rm } from "node:fs/promises";
import { existsSync, readdirSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { writeCorpus } from "./corpus.js";
import { TOOLS, type Tool } from "./tools.js";
import { Aside, settle } from "./aside.js";
import { median, range, uptime } from "./figures.js";
import { differentFiles, outputHashes } from "./same-output.js";

const { values, positionals } = parseArgs({
  options: { size: { type: "string", default: "4000" }, runs: { type: "string", default: "5" }, dir: { type: "string" } },
  allowPositionals: true,
});
const work = path.resolve(values.dir ?? path.join(path.dirname(fileURLToPath(import.meta.url)), "out"));
const size = Number(values.size);
const runs = Number(values.runs);
if (positionals.length === 0) throw new Error("name the variants: ours, ours:cards, ours:threads=N, ours:one-core, starter, eleventy, eleventy-blog, eleventy-cards, hugo, hugo-blog, astro");

interface Variant {
  name: string;
  tool: Tool;
  dir: string;
  /** Words before the command (taskset), flags for node before the script, and flags after it. */
  before: string[];
  node: string[];
  env: Record<string, string>;
  after: string[];
  /** What a cold run removes first (listed at each run). */
  clean: () => string[];
}

/**
 * A cold run's paths to remove, less the launcher's bundle of the code (`.cache/engine/cli`):
 * every other entry of the caches instead of the caches' folder.
 */
function keepingBundle(paths: string[]): string[] {
  return paths.flatMap((p) => {
    if (path.basename(p) !== ".cache" || !existsSync(p)) return [p];
    const engine = path.join(p, "engine");
    const others = readdirSync(p).filter((name) => name !== "engine").map((name) => path.join(p, name));
    return [...others, ...(existsSync(engine) ? readdirSync(engine).filter((name) => name !== "cli").map((name) => path.join(engine, name)) : [])];
  });
}

const corpus = path.join(work, `corpus-${size}`);
if (!existsSync(corpus)) await writeCorpus(size, corpus);
const variants: Variant[] = [];
for (const name of positionals) {
  const [key, options = ""] = name.split(":") as [string, string | undefined];
  const tool = TOOLS[key];
  if (!tool) throw new Error(`no tool ${key}`);
  const chosen = options.split(",");
  const cards = chosen.includes("cards");
  const code = chosen.find((o) => o.startsWith("code="))?.slice("code=".length);
  // One folder per tool, one more for this generator with its cards on, and one per other checkout.
  // Made anew at every series: this generator's copy of the project is the code as it is now.
  const codeName = code ? `-${path.basename(path.resolve(code))}` : "";
  const dir = path.join(work, `series-${key}${cards ? "-cards" : ""}${codeName}-${size}`);
  if (!variants.some((v) => v.dir === dir)) {
    await rm(dir, { recursive: true, force: true });
    await mkdir(dir, { recursive: true });
    await tool.setup(dir, corpus, { cards, ...(code ? { code: path.resolve(code) } : {}) });
  }
  const threads = chosen.find((o) => o.startsWith("threads="))?.slice("threads=".length);
  const node = chosen.filter((o) => o.startsWith("node=")).map((o) => o.slice("node=".length));
  // `env=NAME=VALUE`: an environment variable for the build (`env=UV_THREADPOOL_SIZE=2`).
  const env = Object.fromEntries(chosen.filter((o) => o.startsWith("env=")).map((o) => o.slice("env=".length).split(/=(.*)/s, 2) as [string, string]));
  variants.push({
    name,
    tool,
    dir,
    env,
    before: chosen.includes("one-core") ? ["taskset", "-c", "0"] : [],
    node,
    after: threads ? ["--threads", threads] : [],
    clean: () => [
      ...(chosen.includes("keep-bundle") ? keepingBundle(tool.clean(dir)) : tool.clean(dir)),
      // The engine's bundle, in the copy of the engine (bench/tools.ts): the launcher makes it again.
      ...(chosen.includes("fresh-engine") ? [path.join(dir, "project/engine/.bundle")] : []),
    ],
  });
}

interface Sample {
  wall: number;
  cpu: number;
  peakMb: number;
}

const aside = await Aside.in(work);
async function cold(variant: Variant): Promise<Sample> {
  await aside.move(variant.clean());
  const [cmd, args] = variant.tool.command(variant.dir);
  const result = spawnSync("/usr/bin/time", ["-f", "%e %U %S %M", ...variant.before, cmd, ...variant.node, ...args, ...variant.after], {
    cwd: variant.dir,
    env: { ...process.env, ASTRO_TELEMETRY_DISABLED: "1", NODE_ENV: "production", ...variant.env },
    encoding: "utf8",
    maxBuffer: 256 * 1024 * 1024,
  });
  const [wall, user, sys, kb] = (result.stderr.trim().split("\n").pop() ?? "").split(" ").map(Number);
  if (result.status !== 0 || wall === undefined || Number.isNaN(wall)) throw new Error(`${variant.name} failed:\n${result.stderr.slice(-3000)}`);
  const pages = variant.tool.pages(variant.dir);
  if (pages < size) throw new Error(`${variant.name} wrote ${pages} pages, expected at least ${size}`);
  return { wall, cpu: user! + sys!, peakMb: kb! / 1024 };
}

for (const variant of variants) await aside.move(variant.clean());
const dropped = await settle();
console.log(`${size} files, ${runs} rounds of ${variants.map((v) => v.name).join(", ")}; file cache ${dropped ? "dropped" : "kept (not root)"}; before: ${uptime()}`);
for (const variant of variants) await cold(variant); // warm-up: the file system's cache, the code's bundle on disk
const samples = variants.map(() => [] as Sample[]);
// Each variant's last output, by file, before the next variant's run moves it aside.
const outputs: Map<string, string>[] = [];
for (let round = 0; round < runs; round++) {
  for (const [i, variant] of variants.entries()) {
    samples[i]!.push(await cold(variant));
    if (round === runs - 1 && variants.some((v) => v !== variant && v.dir === variant.dir)) outputs[i] = await outputHashes(variant.tool.output(variant.dir));
  }
  console.error(`round ${round + 1}: ${variants.map((v, i) => `${v.name} ${samples[i]!.at(-1)!.wall.toFixed(2)} s`).join(", ")}`);
}
console.log(`after: ${uptime()}\n`);
// The same site built by variants that differ only in how it is built (threads, cores, node's
// flags: one folder) must be the same to the byte: each one's last output against the first's.
for (const [i, variant] of variants.entries()) {
  const first = variants.find((v) => v.dir === variant.dir)!;
  if (first === variant) continue;
  const differ = differentFiles(outputs[variants.indexOf(first)]!, outputs[i]!);
  console.log(`${variant.name}: ${differ.length === 0 ? `the same bytes as ${first.name}` : `${differ.length} files differ from ${first.name}'s: ${differ.slice(0, 5).join(", ")}`}`);
}
await aside.clear();
console.log(`| variant | wall (s) | CPU (s) | CPU ÷ wall | peak memory (MiB) | wall ÷ ${variants[0]!.name}, pair by pair |`);
console.log("|---|---|---|---|---|---|");
for (const [i, variant] of variants.entries()) {
  const s = samples[i]!;
  const ratios = s.map((x, round) => x.wall / samples[0]![round]!.wall);
  console.log(
    `| ${variant.name} | ${range(s.map((x) => x.wall))} | ${median(s.map((x) => x.cpu)).toFixed(2)} | ${median(s.map((x) => x.cpu / x.wall)).toFixed(2)} | ${range(s.map((x) => x.peakMb), 0)} | ${i === 0 ? "" : `${range(ratios)}×`} |`,
  );
}
