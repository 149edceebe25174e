/**
 * Builds racing for one output folder whose lock a dead build left behind: what
 * tests/publish.test.ts runs a few times and tests/stress/lock-race.ts hundreds of times.
 * The racers (tests/lock-contender.ts, bundled once with esbuild so each starts in tens of
 * milliseconds) load, then are told "go" together: each must either publish or be refused
 * as "another build is writing", one at most holds the lock at any moment, and `dist` ends
 * up holding exactly one build's site, never files of two.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { bundleScript } from "./helpers.js";

/** Bundles the racer into a temporary folder; resolves with the file to run with node. */
export const bundleContender = (): Promise<string> => bundleScript("tests/lock-contender.ts");

/** What a dead build leaves: this version's lock folder, an older version's lock file, or either held by a zombie. */
export type StaleLock = "folder" | "file";

export interface RaceOutcome {
  /** Which racers published (their tags). */
  published: string[];
  /** Racers that were refused because another held the lock. */
  refused: string[];
  /** What went wrong, in words (none: the race was won cleanly). */
  problems: string[];
  /** Both published, but one after the other (the second started once the first had let the lock go). */
  sequential: boolean;
}

interface Racer {
  tag: string;
  child: ChildProcess;
  events: { event: string; at?: number; message?: string }[];
  stderr: string;
  ready: Promise<void>;
  exit: Promise<number | null>;
}

function startRacer(contender: string, out: string, tag: string, pages: number): Racer {
  const child = spawn(process.execPath, [contender, out, tag, String(pages)], { stdio: ["pipe", "pipe", "pipe"] });
  const racer: Racer = { tag, child, events: [], stderr: "", ready: undefined as never, exit: undefined as never };
  let buffered = "";
  let markReady = () => {};
  racer.ready = new Promise<void>((resolve) => (markReady = resolve));
  child.stdout!.on("data", (chunk: Buffer) => {
    buffered += chunk.toString();
    for (let end = buffered.indexOf("\n"); end >= 0; end = buffered.indexOf("\n")) {
      const event = JSON.parse(buffered.slice(0, end));
      buffered = buffered.slice(end + 1);
      racer.events.push(event);
      if (event.event === "ready") markReady();
    }
  });
  child.stderr!.on("data", (chunk: Buffer) => (racer.stderr += chunk.toString()));
  racer.exit = new Promise((resolve) => child.on("exit", (code) => resolve(code)));
  return racer;
}

/** A process number no process has now: a short-lived child's, once it has exited and been reaped. */
export async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ["-e", ""], { stdio: "ignore" });
  await new Promise((resolve) => child.on("exit", resolve));
  return child.pid!;
}

/** Leaves the lock a build killed with `holder` as its process would have left. */
export async function plantStaleLock(builds: string, kind: StaleLock, holder: number): Promise<void> {
  await mkdir(builds, { recursive: true });
  const lock = path.join(builds, "lock");
  if (kind === "file") return writeFile(lock, `${holder}\n`);
  await mkdir(lock);
  await writeFile(path.join(lock, `${holder}-0-deadbeef`), "");
}

/**
 * One race: a site published first (so `dist` exists, as it does where a build was killed),
 * a stale lock left by `holder` (a dead process unless told), then `racers` builds told to go
 * at once. Resolves with what happened; `problems` lists every broken promise.
 */
export async function race({ contender, stale, racers = 2, pages = 20, holder }: { contender: string; stale: StaleLock; racers?: number; pages?: number; holder?: number }): Promise<RaceOutcome> {
  const root = await mkdtemp(path.join(tmpdir(), "cafe-lock-race-"));
  const out = path.join(root, "dist");
  const builds = `${out}.builds`;
  const problems: string[] = [];
  try {
    const first = startRacer(contender, out, "old", pages);
    await first.ready;
    first.child.stdin!.end("go\n");
    if ((await first.exit) !== 0) throw new Error(`the first build failed: ${first.stderr}`);
    await plantStaleLock(builds, stale, holder ?? (await deadPid()));

    const tags = Array.from({ length: racers }, (_, i) => String.fromCharCode(65 + i));
    const all = tags.map((tag) => startRacer(contender, out, tag, pages));
    await Promise.all(all.map((r) => r.ready));
    for (const r of all) r.child.stdin!.write("go\n");
    const codes = await Promise.all(all.map((r) => r.exit));

    const published: Racer[] = [];
    const refused: string[] = [];
    all.forEach((r, i) => {
      if (codes[i] === 0) published.push(r);
      else if (codes[i] === 3) refused.push(r.tag);
      else problems.push(`${r.tag} exited ${codes[i]}: ${r.stderr.trim() || JSON.stringify(r.events.at(-1))}`);
    });
    if (published.length === 0) problems.push("no build took over the stale lock");

    // No two builds held the lock at once.
    const held = published.map((r) => ({
      tag: r.tag,
      from: r.events.find((e) => e.event === "took")!.at!,
      to: r.events.find((e) => e.event === "released")!.at!,
    }));
    let sequential = false;
    for (const a of held) {
      for (const b of held) {
        if (a.tag < b.tag && a.from < b.to && b.from < a.to) problems.push(`${a.tag} and ${b.tag} held the lock at the same time`);
        else if (a.tag < b.tag) sequential = true;
      }
    }

    // dist holds one build's site: its files, each as that build wrote it.
    const files: Record<string, string> = {};
    for (const name of await readdir(out)) files[name] = await readFile(path.join(out, name), "utf8");
    const writers = new Set(Object.values(files).map((text) => text.split(" ")[0]));
    if (writers.size !== 1) problems.push(`dist holds files of ${[...writers].sort().join(" and ")}`);
    const [tag] = writers;
    const expected = [...Array.from({ length: pages }, (_, i) => `page-${i}.html`), `only-${tag}.html`].sort();
    if (JSON.stringify(Object.keys(files).sort()) !== JSON.stringify(expected)) {
      problems.push(`dist holds ${Object.keys(files).length} files, not the ${expected.length} of ${tag}'s site`);
    }
    const leftovers = (await readdir(builds)).filter((name) => name.startsWith("lock"));
    if (leftovers.length > 0) problems.push(`left behind: ${leftovers.join(", ")}`);
    return { published: published.map((r) => r.tag), refused, problems, sequential };
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}
