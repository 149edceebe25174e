/**
 * Where a cold build's time goes, thread by thread: one cold build of the benchmark corpus
 * under node's CPU profiler (`--cpu-prof`, which profiles every thread: the build's own, each
 * worker of the pool, the font cutter's), then, for each thread, the time it was busy, the
 * collector's share, the engine's parts by inclusive time (a sample counts once for a part,
 * however deep the part's function is in its stack), and the functions with the most time of
 * their own. The profile before any change (bench/README.md): what to cut is read here first.
 *
 *   npx tsx bench/profile.ts [--size 4000] [--dir DIR] [--threads N] [--cards] [--interval 500] [--top 20] [--timeline MS] [--out DIR]
 *
 * `--dir` is where the corpus and the project's copy are (as for bench/series.ts: default
 * bench/out, /tmp on the project machine); `--out` keeps the `.cpuprofile` files (default: a
 * temporary folder, printed), which Chrome's DevTools opens. `--timeline MS` adds, for each
 * thread, each slice of MS milliseconds from the build's start: how busy the thread was and
 * its three functions with the most time of their own (where a thread waits for another). `--interval` is the sampling
 * interval in µs (node's default is 1000; finer samples slow the build a little). As a round
 * of bench/series.ts: the project copied anew (the code as it is now), a minute's wait and the
 * system's file cache dropped (bench/aside.ts), one cold build not profiled (the engine's
 * bundle, the inputs read back), then the profiled cold build (output and caches moved aside
 * first), NODE_ENV=production; its own `--verbose` lines are printed too.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { mkdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { writeCorpus } from "./corpus.js";
import { TOOLS } from "./tools.js";
import { Aside, settle } from "./aside.js";
import { uptime } from "./figures.js";

const { values } = parseArgs({
  options: {
    size: { type: "string", default: "4000" },
    dir: { type: "string" },
    threads: { type: "string" },
    cards: { type: "boolean", default: false },
    interval: { type: "string", default: "500" },
    top: { type: "string", default: "20" },
    timeline: { type: "string" },
    out: { type: "string" },
  },
});
const work = path.resolve(values.dir ?? path.join(path.dirname(fileURLToPath(import.meta.url)), "out"));
const size = Number(values.size);
const top = Number(values.top);

/**
 * The engine's parts, by the name of a function at their top (the bundle keeps the sources'
 * names). A part whose function was renamed shows no time: its line says so.
 */
const PARTS: [part: string, functions: string[]][] = [
  ["load (read, front matter, validation)", ["loadContent"]],
  ["Markdown (unified, React for each body)", ["renderBodies"]],
  ["render: a page (React, its parts, its scan)", ["renderRoute"]],
  ["  React's renderToString", ["renderToStringImpl"]],
  ["  the page scan (links, ids, share text)", ["pageFindings"]],
  ["editorial rules", ["checkRules"]],
  ["write (the pages' files)", ["writeFiles", "replace"]],
  ["cache save", ["saveCache", "save"]],
  ["social cards", ["drawCard"]],
  ["messages between threads", ["serialize", "deserialize"]],
];

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: Node[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

const name = (node: Node) => node.callFrame.functionName || "(anonymous)";
const where = (node: Node) => `${name(node)} ${node.callFrame.url.split("/").pop() ?? ""}:${node.callFrame.lineNumber + 1}`;

/** Each `bucket` ms of a thread from `t0` (µs, the first thread's start): busy % and its three functions with the most time of their own. */
function timeline(profile: Profile, t0: number, bucket: number): string[] {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const buckets = new Map<number, Map<string, number>>();
  let t = profile.startTime;
  for (const [k, id] of profile.samples.entries()) {
    t += profile.timeDeltas[k] ?? 0;
    const b = Math.floor((t - t0) / 1000 / bucket);
    const fns = buckets.get(b) ?? buckets.set(b, new Map()).get(b)!;
    const node = byId.get(id)!;
    fns.set(where(node), (fns.get(where(node)) ?? 0) + (profile.timeDeltas[k + 1] ?? 0) / 1000);
  }
  return [...buckets].sort((a, b) => a[0] - b[0]).map(([b, fns]) => {
    const busy = [...fns].filter(([fn]) => !fn.startsWith("(idle)")).reduce((sum, [, ms]) => sum + ms, 0);
    const most = [...fns].filter(([fn]) => !fn.startsWith("(idle)")).sort((x, y) => y[1] - x[1]).slice(0, 3).map(([fn, ms]) => `${fn} ${ms.toFixed(0)}`);
    return `| ${b * bucket} | ${Math.min(100, (busy / bucket) * 100).toFixed(0)}% | ${most.join(" · ").replace(/\|/g, "\\|")} |`;
  });
}

/** One thread's profile summed: busy and idle ms, each part's inclusive ms, each function's own ms. */
function summary(profile: Profile) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const parts = new Map<string, number>();
  const own = new Map<string, number>();
  let busy = 0;
  let idle = 0;
  for (const [k, id] of profile.samples.entries()) {
    const ms = (profile.timeDeltas[k + 1] ?? 0) / 1000;
    const node = byId.get(id)!;
    if (name(node) === "(idle)") {
      idle += ms;
      continue;
    }
    busy += ms;
    own.set(where(node), (own.get(where(node)) ?? 0) + ms);
    // The engine's functions and node's own modules, not the builtins of the same name (a string's `replace`).
    const names = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) if (byId.get(at)!.callFrame.url) names.add(name(byId.get(at)!));
    for (const [part, functions] of PARTS) if (functions.some((f) => names.has(f))) parts.set(part, (parts.get(part) ?? 0) + ms);
  }
  return { busy, idle, parts, own, gc: own.get("(garbage collector) :0") ?? 0 };
}

const corpus = path.join(work, `corpus-${size}`);
if (!existsSync(corpus)) await writeCorpus(size, corpus);
// Made anew each time: the project's copy is the code as it is now.
const dir = path.join(work, `profile-ours${values.cards ? "-cards" : ""}-${size}`);
await rm(dir, { recursive: true, force: true });
await mkdir(dir, { recursive: true });
await TOOLS.ours!.setup(dir, corpus, { cards: values.cards });
const [cmd, args] = TOOLS.ours!.command(dir);
const threads = values.threads ? ["--threads", values.threads] : [];
const build = (flags: string[]) => spawnSync(cmd, [...flags, ...args, "--verbose", ...threads], { cwd: dir, env: { ...process.env, NODE_ENV: "production" }, encoding: "utf8", maxBuffer: 256 * 1024 * 1024 });
// What was deleted aged out of ext4's window (bench/aside.ts), then a first cold build, not
// profiled, as the series' warm-up round: the engine's own bundle made, the inputs read back
// into the system's cache. Its output and caches are moved aside, not deleted.
const aside = await Aside.in(work);
await settle();
if (build([]).status !== 0) throw new Error("the warm-up build failed");
await aside.move(TOOLS.ours!.clean(dir));
const out = path.resolve(values.out ?? mkdtempSync(path.join(tmpdir(), "cafe-profile-")));
console.log(`${size} files, one cold build${values.threads ? ` on ${values.threads} threads` : ""}${values.cards ? ", cards on" : ""}, profiles in ${out}; before: ${uptime()}`);
const result = build(["--cpu-prof", `--cpu-prof-dir=${out}`, `--cpu-prof-interval=${values.interval}`]);
await aside.clear();
if (result.status !== 0) throw new Error(`the build failed:\n${result.stderr.slice(-3000)}`);
console.log(result.stdout.split("\n").filter((line) => /^ {2}\S/.test(line) || line.startsWith("Built")).join("\n"));
console.log(`after: ${uptime()}`);

// One file per thread, named by node in the order the threads started: the build's own first.
const files = readdirSync(out).filter((f) => f.endsWith(".cpuprofile")).sort();
const profiles = files.map((file) => JSON.parse(readFileSync(path.join(out, file), "utf8")) as Profile);
const t0 = Math.min(...profiles.map((p) => p.startTime));
for (const [i, file] of files.entries()) {
  const profile = profiles[i]!;
  const { busy, idle, parts, own, gc } = summary(profile);
  if (busy < 20) continue; // a thread that only started (the font cutter's, when the fonts were cached)
  console.log(`\n## ${file}: busy ${busy.toFixed(0)} ms, idle ${idle.toFixed(0)} ms, the collector ${gc.toFixed(0)} ms (${((gc / busy) * 100).toFixed(0)}% of busy)\n`);
  console.log("| part | ms (inclusive) | share of busy |\n|---|---|---|");
  for (const [part, functions] of PARTS) {
    const ms = parts.get(part);
    if (ms !== undefined) console.log(`| ${part} | ${ms.toFixed(0)} | ${((ms / busy) * 100).toFixed(1)}% |`);
    else if (i === 0 && !part.startsWith("social") && !part.startsWith("messages")) console.log(`| ${part} | — (no sample in ${functions.join(", ")} on this thread: the part ran on another, or the function was renamed) | |`);
  }
  console.log(`\n| own time (ms) | function |\n|---|---|`);
  for (const [fn, ms] of [...own].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`| ${ms.toFixed(0)} | ${fn.replace(/\|/g, "\\|")} |`);
  if (values.timeline) console.log(`\n| from (ms) | busy | most of its own time (ms) |\n|---|---|---|\n${timeline(profile, t0, Number(values.timeline)).join("\n")}`);
}
