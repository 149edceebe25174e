/**
 * Bench: in a 4000-article site, how long from saving one article to its page being written
 * and the reload being sent to the open pages. Median of 21 edits. With `--files 0`, the real
 * site alone: its articles are saved in turn. Also the CPU the dev server's own process spends a
 * save (its watcher and server; the builder is a process of its own).
 *
 *   npm run bench:dev [-- --files 4000]
 */
// As `npm run dev` runs (the command sets it before the config loads the theme): React's production build,
// inherited by the builder process.
process.env.NODE_ENV ??= "production";
import { appendFile, cp, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { startDev } from "../engine/servers/dev-server.js";
import { writeCorpus } from "./corpus.js";
import { median } from "./figures.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const { values } = parseArgs({ options: { files: { type: "string", default: "4000" }, edits: { type: "string", default: "21" } } });
const count = Number(values.files);

const dir = await mkdtemp(path.join(tmpdir(), "cafe-devbench-"));
const content = path.join(dir, "content");
await cp(path.join(root, "content"), content, { recursive: true });
// No social cards: 4000 of them would be drawn at the start (their cost is bench/media.ts's).
await appendFile(path.join(content, "site.yaml"), "\nsocialCards: false\n");
// The articles saved in turn: every seventh of the corpus, or the real site's own.
const real = (await readdir(path.join(content, "articles"), { recursive: true })).filter((f) => f.endsWith(".md")).sort();
if (count > 0) await writeCorpus(count, path.join(content, "articles/bench"));
const edited = (i: number) => (count > 0 ? path.join(content, "articles/bench", `${(i * 7) % count}.md`) : path.join(content, "articles", real[i % real.length]!));

const lines: string[] = [];
const dev = await startDev({ projectRoot: root, contentDir: content, outDir: path.join(dir, "out"), port: 0, host: "127.0.0.1", themeModule: path.join(root, "templates/theme.tsx"), themeFolders: ["templates", "client"], log: (l) => lines.push(l) });

// Listen as an open page does.
const reloads: number[] = [];
const events = await fetch(`${dev.url}/__cafe/events`);
void (async () => {
  const decoder = new TextDecoder();
  for await (const chunk of events.body!) {
    if (decoder.decode(chunk as Uint8Array).includes("event: ok")) reloads.push(performance.now());
  }
})().catch(() => {});
await new Promise((r) => setTimeout(r, 300));

const samples: number[] = [];
// The CPU of this process, which is the dev server's (its watcher, its server): the builder is another.
const cpuBefore = process.cpuUsage();
const builderMs: number[] = [];
for (let i = 0; i < Number(values.edits); i++) {
  const file = edited(i);
  const text = await readFile(file, "utf8");
  const before = reloads.length;
  const saved = performance.now();
  await writeFile(file, `${text}\nEdição ${i}.\n`);
  // A save that sends no reload within a minute is a failure of the dev server (a page not
  // written again), not a slow save: say so with what the server printed, instead of waiting.
  while (reloads.length === before) {
    if (performance.now() - saved > 60_000) {
      await dev.close();
      await rm(dir, { recursive: true, force: true });
      throw new Error(`edit ${i} (${path.relative(content, file)}): no reload within 60 s; the dev server printed:\n${lines.slice(-20).join("\n")}`);
    }
    await new Promise((r) => setTimeout(r, 1));
  }
  samples.push(reloads[before]! - saved);
  builderMs.push(Number(/updated in (\d+) ms/.exec(lines.at(-1) ?? "")?.[1] ?? NaN));
  await new Promise((r) => setTimeout(r, 120));
}
const cpu = process.cpuUsage(cpuBefore);
await dev.close();
// The copy of the site (4000 articles at the default) is removed once nothing is timed: each run
// left one in the system's temporary folder, 127 of them in one session.
await rm(dir, { recursive: true, force: true });

console.log(`${count + real.length} article files, ${samples.length} edits: save → page written and reload received, median ${median(samples).toFixed(1)} ms (min ${Math.min(...samples).toFixed(1)}, max ${Math.max(...samples).toFixed(1)}); rebuild inside the builder, median ${median(builderMs)} ms; the dev server's own process (watcher, server, this bench's polling) ${((cpu.user + cpu.system) / 1000 / samples.length).toFixed(1)} ms of CPU a save`);
process.exit(0);
