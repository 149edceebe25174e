/**
 * Builds the real site once per test run, into a temporary folder that every test needing it
 * reads (vitest's globalSetup; tests reach it through `realSite()` in helpers.ts).
 *
 * And keeps the run out of the developer's project: the engine's cache goes to a folder of
 * the run's own (CAFE_CACHE_DIR, which the test processes and every command they start
 * inherit; each worker of the unit project copies it into one of its own,
 * tests/setup-unit-worker.ts), and at the end the project's files, its dist/ and its cache
 * must be exactly as they were before the run (tests/project-state.ts), or the run fails,
 * naming what changed.
 *
 * vitest calls this once for each project (unit, integration) and once for the root: the
 * first call does the work, the others share it, and the last teardown checks and cleans up.
 */
import { createHash } from "node:crypto";
import { spawn } from "node:child_process";
import { existsSync, linkSync, mkdirSync, readdirSync } from "node:fs";
import { cp, mkdir, mkdtemp, readdir, readFile, realpath, rename, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type { TestProject } from "vitest/node";
import { listFiles } from "../engine/lib/files.js";
import { codeVersion } from "../engine/incremental/fingerprint.js";
import { noteMediaUse } from "./media-use.js";
import { projectState, stateChanges, type ProjectState } from "./project-state.js";

export interface BuiltSite {
  dir: string;
  routes: { path: string; outFile: string; kind: string }[];
  errors: string[];
  /** What the build warned of, as the command prints it (`formatWarning`). */
  warnings: string[];
}

declare module "vitest" {
  export interface ProvidedContext {
    realSite: BuiltSite;
    /**
     * The run's engine cache (as the real site's build left it), the folder of the unit workers'
     * own copies, and the media the unit workers used in the last run (`keepWorkerMedia`).
     */
    runCache: { cacheDir: string; workersDir: string; workerMedia: string };
    /** The version of the code under test (the engine's, the theme's, the lock file), as a build computes it (`code.version`). */
    codeVersion: string;
  }
}

interface Run {
  before: ProjectState;
  /** The run's folder: its cache, the unit workers' caches, the real site. */
  folder: string;
  cacheDir: string;
  codeVersion: string;
  site: Promise<BuiltSite>;
  users: number;
}
const RUN = Symbol.for("cafe-com-a-cris.test-run");
const shared = globalThis as unknown as { [RUN]?: Run };

/**
 * What one run keeps for the next, beside the engine's cache (never read by the engine itself),
 * in a folder of the project's own (named by its folder): git worktrees whose node_modules is a
 * link to one checkout's share that checkout's node_modules/.cache, and sharing one kept site
 * and one set of kept media, each run of one replaced what the other's had kept (at other code),
 * so the other's next run built the real site and drew its cards again.
 */
export const keptDir = (projectRoot: string) => {
  const root = path.resolve(projectRoot);
  return path.join(root, "node_modules/.cache/cafe-tests", `${path.basename(root)}-${createHash("sha256").update(root).digest("hex").slice(0, 12)}`);
};

/**
 * Removes what runs kept for project folders that are gone (a removed worktree): each keeps its
 * folder's path in `project.txt`. A folder without one, or whose project is still there, stays.
 */
async function pruneKept(projectRoot: string): Promise<void> {
  const mine = keptDir(projectRoot);
  await mkdir(mine, { recursive: true });
  await writeFile(path.join(mine, "project.txt"), path.resolve(projectRoot));
  const all = path.dirname(mine);
  for (const name of await readdir(all).catch(() => [] as string[])) {
    const owner = await readFile(path.join(all, name, "project.txt"), "utf8").catch(() => undefined);
    if (owner !== undefined && !existsSync(owner)) await rm(path.join(all, name), { recursive: true, force: true }).catch(() => {});
  }
}

/** Swaps a folder made aside into place whole; false when it could not (another run's is there, the disk is read-only). */
async function swapIn(made: string, kept: string): Promise<boolean> {
  try {
    await rm(kept, { recursive: true, force: true });
    await rename(made, kept);
    return true;
  } catch {
    await rm(made, { recursive: true, force: true }).catch(() => {});
    return false;
  }
}

/**
 * The engine's content-addressed caches (social cards, cut fonts, encoded images, the theme's
 * bundled assets), kept
 * from one run to the next beside the engine's cache: drawing the real site's 15 cards and
 * encoding its images was most of what the setup cost. Each entry is keyed by everything that
 * makes it (the code, the fonts, the text, the bytes), so an entry of other code is never
 * used; a damaged one is made again. CAFE_TEST_COLD=1 starts from an empty cache.
 */
const KEPT_MEDIA = ["cards", "fonts", "images", "assets"];
const keptMediaDir = (projectRoot: string) => path.join(keptDir(projectRoot), "media");

/** The run's cache starts with the kept media. */
async function seedMedia(projectRoot: string, cacheDir: string): Promise<void> {
  if (process.env.CAFE_TEST_COLD === "1") return;
  for (const kind of KEPT_MEDIA) await cp(path.join(keptMediaDir(projectRoot), kind), path.join(cacheDir, kind), { recursive: true }).catch(() => {});
}

/**
 * Keeps the media the real site's build read or stored (`used`: their folders) for the next run,
 * swapped in whole: not the whole cache, which starts with the last kept media, so that kept
 * whole it piled up every version's entries (32 bundles of the assets where the site reads one,
 * 60 cards for its 15), which each run and each of its workers copied at its start. The cut
 * fonts are kept all the same (a few kilobytes): a build whose assets come from their cache cuts
 * none and reads none, and the next change of code bundles the assets again and needs them.
 */
export async function keepMedia(projectRoot: string, cacheDir: string, used: ReadonlySet<string>): Promise<void> {
  const next = `${keptMediaDir(projectRoot)}.${process.pid}.tmp`;
  try {
    await rm(next, { recursive: true, force: true });
    await mkdir(next, { recursive: true });
    await cp(path.join(cacheDir, "fonts"), path.join(next, "fonts"), { recursive: true }).catch(() => {});
    for (const folder of used) {
      const [kind, key, ...rest] = path.relative(cacheDir, folder).split(path.sep);
      if (!KEPT_MEDIA.includes(kind ?? "") || !key || rest.length > 0 || !existsSync(path.join(folder, "manifest.json"))) continue;
      await cp(folder, path.join(next, kind!, key), { recursive: true, force: true });
    }
    await swapIn(next, keptMediaDir(projectRoot));
  } catch {
    // Only a head start for the next run: it draws what it does not find.
    await rm(next, { recursive: true, force: true }).catch(() => {});
  }
}

/**
 * Makes `to` a tree of hard links to the files of `from` (the same bytes, nothing copied), a file
 * already at `to` kept; false when a link could not be made (another file system, a file system
 * without hard links), with what was linked left in place.
 */
function linkTree(from: string, to: string): boolean {
  try {
    mkdirSync(to, { recursive: true });
    for (const entry of readdirSync(from, { withFileTypes: true })) {
      const [source, target] = [path.join(from, entry.name), path.join(to, entry.name)];
      if (entry.isDirectory()) {
        if (!linkTree(source, target)) return false;
      } else if (!existsSync(target)) linkSync(source, target);
    }
    return true;
  } catch {
    return false;
  }
}

/**
 * What the unit workers' builds used beside the real site's media (the fixtures' cards, their
 * encoded images, the theme's bundles), kept for the next run's workers: each worker starts with
 * them (tests/setup-unit-worker.ts) and notes each entry its builds read or stored, in
 * `used-<pid>.txt` beside its cache (`used-<pid>-<thread>.txt` for a thread). Exactly the entries the last run used are kept, so one
 * made for a run's own purpose (a title or a picture no run has seen) is kept once, then gone.
 * A run without unit workers leaves them as they were.
 */
const keptWorkerMediaDir = (projectRoot: string) => path.join(keptDir(projectRoot), "worker-media");

export async function keepWorkerMedia(projectRoot: string, workersDir: string): Promise<void> {
  const notes = (await readdir(workersDir).catch(() => [] as string[])).filter((name) => /^used-\d+(-\d+)?\.txt$/.test(name));
  if (notes.length === 0) return;
  const used = new Set<string>();
  for (const name of notes) for (const line of (await readFile(path.join(workersDir, name), "utf8")).split("\n")) if (line) used.add(line);
  const next = `${keptWorkerMediaDir(projectRoot)}.${process.pid}.tmp`;
  try {
    await rm(next, { recursive: true, force: true });
    await mkdir(next, { recursive: true });
    for (const folder of used) {
      // `<workers>/worker-<pid>/<kind>/<key>` (`worker-<pid>-<thread>` for a thread): an entry of a worker's own cache (a test's cache elsewhere is its own).
      const [worker, kind, key, ...rest] = path.relative(workersDir, folder).split(path.sep);
      if (!/^worker-\d+(-\d+)?$/.test(worker ?? "") || !kind || !key || rest.length > 0 || !existsSync(path.join(folder, "manifest.json"))) continue;
      // Linked, not copied: the workers' caches are removed right after, so the kept entry is the
      // only name left for those bytes (copying them was most of the teardown's half second).
      if (!linkTree(folder, path.join(next, kind, key))) await cp(folder, path.join(next, kind, key), { recursive: true, force: false });
    }
    await swapIn(next, keptWorkerMediaDir(projectRoot));
  } catch {
    // Only a head start for the next run: its workers make what they do not find.
    await rm(next, { recursive: true, force: true }).catch(() => {});
  }
}

/**
 * The real site, kept from one run to the next with the hash of everything its build reads:
 * the content, public/, the engine's and the theme's code, the project's settings, the
 * libraries as installed (npm's record of node_modules), this file, Node's version and the
 * environment a build looks at. A run whose inputs hash the same copies the kept site instead
 * of building it again; any other change (a saved article, template or engine module) builds
 * it, as CAFE_TEST_COLD=1 does.
 */
const keptSiteDir = (projectRoot: string) => path.join(keptDir(projectRoot), "real-site");
const INPUT_FOLDERS = ["content", "public", "engine", "templates", "client"];
/** The code's folders, as the command names them for this site (the theme's and the engine's). */
const CODE_FOLDERS = ["templates", "client", "engine"];
const INPUT_FILES = ["package.json", "package-lock.json", "tsconfig.json", "cafe.config.ts", "node_modules/.package-lock.json", "tests/global-setup.ts"];
const INPUT_ENV = ["NODE_ENV", "TZ", "LANG", "LC_ALL", "LC_TIME"];

interface KeptSite {
  inputs: string;
  routes: BuiltSite["routes"];
  warnings: BuiltSite["warnings"];
  /** Every file of the kept site with the hash of its bytes: a copy that does not match is not used. */
  files: Record<string, string>;
}

const sha256 = (bytes: Uint8Array | string) => createHash("sha256").update(bytes).digest("hex");

export async function siteInputs(projectRoot: string): Promise<string> {
  const hash = createHash("sha256");
  const part = (text: string | Uint8Array) => hash.update(`${text.length}:`).update(text);
  part(JSON.stringify([process.version, process.platform, process.arch, INPUT_ENV.map((name) => process.env[name] ?? null)]));
  const files = [
    ...INPUT_FOLDERS.flatMap((folder) => listFiles(path.join(projectRoot, folder), { hidden: true, links: true })),
    ...INPUT_FILES.map((file) => path.join(projectRoot, file)),
  ];
  for (const file of files) {
    part(path.relative(projectRoot, file));
    part(await readFile(file).catch(() => "(none)"));
  }
  return hash.digest("hex");
}

/** Every file below `dir` with the hash of its bytes. */
async function filesOf(dir: string): Promise<Record<string, string>> {
  const files: Record<string, string> = {};
  for (const file of listFiles(dir, { hidden: true })) files[path.relative(dir, file)] = sha256(await readFile(file));
  return files;
}

const sameFiles = (a: Record<string, string>, b: Record<string, string>) =>
  Object.keys(a).length === Object.keys(b).length && Object.entries(a).every(([file, hash]) => b[file] === hash);

/**
 * The kept site, copied to `dir`, when it was built from these inputs; undefined when there
 * is none, it is of other inputs, or its copy is not exactly the files it was kept with.
 */
export async function keptSite(projectRoot: string, inputs: string, dir: string): Promise<BuiltSite | undefined> {
  if (process.env.CAFE_TEST_COLD === "1") return undefined;
  const kept = keptSiteDir(projectRoot);
  try {
    const record = JSON.parse(await readFile(path.join(kept, "site.json"), "utf8")) as KeptSite;
    if (record.inputs !== inputs || typeof record.files !== "object" || !Array.isArray(record.routes) || !Array.isArray(record.warnings)) return undefined;
    await cp(path.join(kept, "dist"), dir, { recursive: true });
    // Damaged, half removed, or swapped by another run while it was copied: built instead.
    if (!sameFiles(record.files, await filesOf(dir))) throw new Error("not the files kept");
    return { dir, routes: record.routes, errors: [], warnings: record.warnings };
  } catch {
    await rm(dir, { recursive: true, force: true });
    return undefined;
  }
}

/** Keeps a site built without errors, if its inputs did not change while it was built. */
export async function keepSite(projectRoot: string, inputs: string, site: BuiltSite): Promise<void> {
  const next = `${keptSiteDir(projectRoot)}.${process.pid}.tmp`;
  try {
    if ((await siteInputs(projectRoot)) !== inputs) return;
    await rm(next, { recursive: true, force: true });
    await mkdir(next, { recursive: true });
    // The published folder itself (the writer's `dist` is a link to one of its build folders).
    await cp(await realpath(site.dir), path.join(next, "dist"), { recursive: true });
    const record: KeptSite = { inputs, routes: site.routes, warnings: site.warnings, files: await filesOf(path.join(next, "dist")) };
    await writeFile(path.join(next, "site.json"), JSON.stringify(record));
    await swapIn(next, keptSiteDir(projectRoot));
    await pruneKept(projectRoot);
  } catch {
    await rm(next, { recursive: true, force: true }).catch(() => {});
  }
}

async function buildRealSite(projectRoot: string, folder: string, cacheDir: string, codeVersion: string): Promise<BuiltSite> {
  const inputs = await siteInputs(projectRoot);
  const kept = await keptSite(projectRoot, inputs, path.join(folder, "site"));
  if (kept) return kept;
  // The engine and the theme, imported only to build: with a kept site, importing them here (this
  // process's own copy of every module, compiled and run) was about a second before the first test file.
  const [{ formatWarning }, { buildSite }, { FolderWriter }, { theme }] = await Promise.all([
    import("../engine/lib/errors.js"),
    import("../engine/pipeline/site-builder.js"),
    import("../engine/stages/write/writers.js"),
    import("../templates/theme.js"),
  ]);
  const dir = path.join(folder, "dist");
  const writer = new FolderWriter(dir);
  await writer.begin();
  const used = new Set<string>();
  const stopNoting = noteMediaUse((folder) => used.add(folder));
  const result = await buildSite({ contentDir: path.join(projectRoot, "content"), projectRoot, theme, writer, codeVersion }).finally(stopNoting);
  const site = {
    dir,
    routes: result.routes.map(({ path, outFile, kind }) => ({ path, outFile, kind })),
    errors: result.errors.map((e) => `${e.location}: ${e.message}`),
    warnings: result.warnings.map(formatWarning),
  };
  // Before any test adds its own entries to the run's cache.
  if (result.ok) await Promise.all([keepMedia(projectRoot, cacheDir, used), keepSite(projectRoot, inputs, site)]);
  return site;
}

async function startRun(projectRoot: string): Promise<Run> {
  const before = projectState(projectRoot);
  const folder = await mkdtemp(path.join(tmpdir(), "cafe-test-run-"));
  const cacheDir = path.join(folder, "cache");
  await mkdir(cacheDir);
  process.env.CAFE_CACHE_DIR = cacheDir;
  await seedMedia(projectRoot, cacheDir);
  // What the command computes from the same folders (project.ts): the tests' builds keep the theme's bundles by it.
  const code = await codeVersion(projectRoot, CODE_FOLDERS);
  return { before, folder, cacheDir, codeVersion: code, site: buildRealSite(projectRoot, folder, cacheDir, code), users: 0 };
}

/**
 * Removes the run's folder (the workers' caches, their fixtures, copies and outputs: thousands of
 * files, a second of the teardown on a loaded machine) in a process of its own that the run does
 * not wait for, once renamed so that nothing of the run is found under its name; removed here
 * when that process cannot start.
 */
async function removeAside(folder: string): Promise<void> {
  const aside = `${folder}.removed`;
  const target = await rename(folder, aside).then(() => aside, () => folder);
  try {
    const remover = spawn(process.execPath, ["-e", "require('node:fs').rmSync(process.argv[1], { recursive: true, force: true })", target], { detached: true, stdio: "ignore" });
    await new Promise<void>((resolve, reject) => remover.once("spawn", resolve).once("error", reject));
    remover.unref();
  } catch {
    await rm(target, { recursive: true, force: true });
  }
}

export default async function setup(project: TestProject) {
  const projectRoot = path.resolve(import.meta.dirname, "..");
  shared[RUN] ??= await startRun(projectRoot);
  const run = shared[RUN];
  run.users++;
  project.provide("realSite", await run.site);
  const workerMedia = process.env.CAFE_TEST_COLD === "1" ? "" : keptWorkerMediaDir(projectRoot);
  project.provide("runCache", { cacheDir: run.cacheDir, workersDir: path.join(run.folder, "workers"), workerMedia });
  project.provide("codeVersion", run.codeVersion);
  return async () => {
    if (--run.users > 0) return;
    delete shared[RUN];
    await keepWorkerMedia(projectRoot, path.join(run.folder, "workers"));
    await removeAside(run.folder);
    // In watch mode the developer edits the project while the tests run: nothing to compare.
    if (project.vitest.config.watch) return;
    const changes = stateChanges(run.before, projectState(projectRoot));
    if (changes.length > 0) {
      // vitest reports a teardown's error but does not fail the run for it: this does.
      process.exitCode = 1;
      throw new Error(
        `The test run changed the project, its dist/ or its cache (tests must work on copies):\n${changes.slice(0, 30).join("\n")}` +
          (changes.length > 30 ? `\n…and ${changes.length - 30} more` : ""),
      );
    }
  };
}
