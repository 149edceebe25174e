/**
 * Issue 37's start-up figure: on a fresh clone of this checkout (`git clone`, then `npm ci`,
 * not timed), the seconds from `npm start` to the first page answered. Each run starts as a
 * fresh clone does: no `dist`, no build folders, no `node_modules/.cache` (the bundle of the
 * code, the media and build caches), moved aside rather than deleted (bench/aside.ts).
 *
 *   npx tsx bench/first-page.ts [--runs 5] [--dir DIR]
 */
import { execFileSync, spawn } from "node:child_process";
import { mkdir, rm } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { Aside, settle } from "./aside.js";
import { range, uptime } from "./figures.js";

const { values } = parseArgs({ options: { runs: { type: "string", default: "5" }, dir: { type: "string" } } });
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const work = path.resolve(values.dir ?? path.join(root, "bench/out"));
const clone = path.join(work, "first-page-clone");

await mkdir(work, { recursive: true });
await rm(clone, { recursive: true, force: true });
execFileSync("git", ["clone", "-q", root, clone]);
execFileSync("npm", ["ci", "--no-audit", "--no-fund", "--loglevel=error"], { cwd: clone, stdio: "ignore" });
const aside = await Aside.in(work);
const fresh = () => aside.move(["dist", "dist.builds", "node_modules/.cache"].map((p) => path.join(clone, p)));

/** Seconds from `npm start` to the home page answering 200. */
async function firstPage(): Promise<number> {
  const started = performance.now();
  const child = spawn("npm", ["start", "--", "--port", "0"], { cwd: clone, stdio: ["ignore", "pipe", "pipe"], detached: true });
  try {
    const url = await new Promise<string>((resolve, reject) => {
      let out = "";
      child.stdout!.on("data", (chunk: Buffer) => {
        out += chunk.toString();
        const found = /Serving .* at (http:\/\/\S+)/.exec(out);
        if (found) resolve(found[1]!);
      });
      child.on("exit", (code) => reject(new Error(`npm start exited (${code}) before serving:\n${out}`)));
    });
    const home = await fetch(url);
    if (home.status !== 200) throw new Error(`the first page answered ${home.status}`);
    return (performance.now() - started) / 1000;
  } finally {
    // npm, its shell and the command: the whole group.
    process.kill(-child.pid!, "SIGTERM");
    await new Promise((resolve) => (child.exitCode === null ? child.on("exit", resolve) : resolve(undefined)));
  }
}

await fresh();
console.log(`fresh clone of ${execFileSync("git", ["log", "--oneline", "-1"], { cwd: clone, encoding: "utf8" }).trim()}; file cache ${(await settle()) ? "dropped" : "kept (not root)"}; before: ${uptime()}`);
await firstPage(); // warm-up: the file system's cache
const samples: number[] = [];
for (let i = 0; i < Number(values.runs); i++) {
  await fresh();
  samples.push(await firstPage());
  console.error(`run ${i + 1}: ${samples.at(-1)!.toFixed(2)} s`);
}
await aside.clear();
console.log(`npm start → first page: ${range(samples)} s, median (min–max) of ${samples.length} runs; after: ${uptime()}`);
