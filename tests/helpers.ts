/** Shared test helpers: building a content folder in memory and reading pages with happy-dom. */
import { readFileSync } from "node:fs";
import { createHash } from "node:crypto";
import { cp, mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Window } from "happy-dom";
import { afterAll, beforeAll, expect, inject } from "vitest";
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { buildSite, type BuildResult } from "../engine/pipeline/site-builder.js";
import { FolderWriter, MemoryWriter } from "../engine/stages/write/writers.js";
import { theme } from "../templates/theme.js";

const run = promisify(execFile);

export const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
export const fixture = (name: string) => path.join(projectRoot, "tests/fixtures", name);

/**
 * A script of the tests' own (a build a test kills, a racer for the lock), or a module of the
 * engine a test's program imports, bundled once with esbuild, to start with plain `node`: under
 * tsx each start compiled every module of the engine and the theme again, through a loader
 * thread (about a second of CPU a start here).
 * The packages stay in node_modules (native code, files of their own), found through a link to
 * the project's beside the bundle. Resolves with the file; remove its folder when done.
 */
export async function bundleScript(script: string): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), "cafe-script-"));
  const file = path.join(dir, `${path.basename(script, path.extname(script))}.mjs`);
  await symlink(path.join(projectRoot, "node_modules"), path.join(dir, "node_modules"));
  const { build } = await import("esbuild");
  await build({ entryPoints: [path.join(projectRoot, script)], outfile: file, bundle: true, packages: "external", format: "esm", platform: "node", target: "node20", jsx: "automatic", logLevel: "error" });
  return file;
}

/** `bundleScript` once for the test file that calls this (before its first test, removed after its last): the bundle's file. */
export function bundledForFile(script: string): () => string {
  let file = "";
  beforeAll(async () => {
    file = await bundleScript(script);
  });
  afterAll(async () => {
    if (file) await rm(path.dirname(file), { recursive: true, force: true });
  });
  return () => file;
}

/**
 * The version of the code under test (tests/global-setup.ts), for a builder to be told as the
 * command tells its own: the theme's bundles are then taken from the assets cache
 * (engine/stages/assets/asset-cache.ts) instead of made by esbuild for every build.
 */
export const testCode = (): string => inject("codeVersion");

export async function buildInMemory(contentDir: string): Promise<BuildResult & { writer: MemoryWriter }> {
  const writer = new MemoryWriter();
  const result = await buildSite({ contentDir, projectRoot, theme, writer, themeFolders: devTheme.themeFolders, codeVersion: testCode() });
  return { ...result, writer };
}

/** Builds the `images` fixture (content/ and public/) into a temporary folder; returns the folder. */
export async function buildImagesFixture(): Promise<string> {
  const out = path.join(await mkdtemp(path.join(tmpdir(), "cafe-images-site-")), "dist");
  const writer = new FolderWriter(out);
  await writer.begin();
  const contentDir = path.join(fixture("images"), "content");
  const result = await buildSite({ contentDir, publicDir: path.join(fixture("images"), "public"), projectRoot, theme, writer, codeVersion: testCode() });
  if (!result.ok) throw new Error(result.errors.map((e) => `${e.location}: ${e.message}`).join("\n"));
  return out;
}

/**
 * The real site's pages as documents, each parsed once per worker (the site never changes
 * during a run; parsing a page with happy-dom costs tens of milliseconds, and the files that
 * read the real site parsed the same pages again test after test). Shared by every test of the
 * worker: read them, never change them (clone a node first, as `cloneNode(true)`).
 */
const realPages = new Map<string, Document>();

/** The real site, built once per test run by tests/global-setup.ts: its routes and files, and its pages parsed (`page`, read-only). */
export function realSite() {
  const site = inject("realSite");
  const text = (file: string) => readFileSync(path.join(site.dir, file), "utf8");
  const page = (file: string): Document => {
    const key = path.join(site.dir, file);
    if (!realPages.has(key)) realPages.set(key, parseHtml(text(file)));
    return realPages.get(key)!;
  };
  return { ...site, writer: { text }, page };
}

/** Parses HTML into a document (no scripts run). */
export function parseHtml(html: string): Document {
  const window = new Window({ settings: { disableJavaScriptEvaluation: true, disableJavaScriptFileLoading: true, disableCSSFileLoading: true } });
  window.document.write(html);
  return window.document as unknown as Document;
}

/** Copies a fixture to a temp folder and applies edits: `{ "articles/x.md": "..." }` or a function of the old text. */
export async function editedFixture(
  name: string,
  edits: Record<string, string | ((old: string) => string)>,
): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), `cafe-${name}-`));
  await cp(fixture(name), dir, { recursive: true });
  for (const [file, edit] of Object.entries(edits)) {
    const target = path.join(dir, file);
    const next = typeof edit === "string" ? edit : edit(await readFile(target, "utf8"));
    await writeFile(target, next);
  }
  return dir;
}

/**
 * A written file as a value `expect` compares at once: text as it is (a readable diff), bytes
 * by their length and hash (comparing images element by element takes seconds).
 */
export function comparable(data: string | Uint8Array | undefined): string | undefined {
  if (data === undefined || typeof data === "string") return data;
  return `${data.length} bytes, sha256 ${createHash("sha256").update(data).digest("hex")}`;
}

export const text = (el: Element | null | undefined) => (el?.textContent ?? "").replace(/\s+/g, " ").trim();

/** Every route of SPEC §2 but the home page, in the spec's order. */
export const SPEC_ARTICLE_ROUTES = [
  "/artigo/tarifas-trump-mercado-trabalho",
  "/artigo/dicas-sites-recomendacoes-trabalhadores",
  "/artigo/programas-qualificacao-profissional-2025",
  "/artigo/setores-crescimento-crise",
  "/artigo/proteger-financas-crise",
  "/material-semana",
  "/descompasso-seculo-xxi",
  "/via-mao-dupla-lealdade",
  "/artigo-burnout-inovacao",
  "/artigo-inovacao-rh",
  "/artigo-sistema-notas",
  "/artigo-transicao",
  "/artigo-herois-economia",
];

/** How build.ts hands this site's theme to the dev server. */
export const devTheme = { themeModule: path.join(projectRoot, "templates/theme.tsx"), themeFolders: ["templates", "client"] };

/**
 * A copy of the project's code (engine, theme, public/, its config and build script, the lock file) to
 * edit safely. Its node_modules/ is a folder of its own whose packages link to the project's:
 * the copy shares the libraries, never the project's cache (node_modules/.cache).
 */
export async function projectCopy(folders = ["engine", "client", "templates", "public"]): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), "cafe-project-"));
  // Not the engine's bundles (engine/.bundle, made by the project's own commands): the copy makes its own.
  for (const d of folders) await cp(path.join(projectRoot, d), path.join(dir, d), { recursive: true, filter: (src) => path.basename(src) !== ".bundle" });
  for (const f of ["build.ts", "cafe.config.ts", "package.json", "package-lock.json", "tsconfig.json"]) await cp(path.join(projectRoot, f), path.join(dir, f));
  await mkdir(path.join(dir, "node_modules"));
  for (const name of await readdir(path.join(projectRoot, "node_modules"))) {
    if (name !== ".cache") await symlink(path.join(projectRoot, "node_modules", name), path.join(dir, "node_modules", name));
  }
  return dir;
}

/**
 * An article whose body is under the size and depth limits (0.84 MB, nothing nested) yet takes
 * some twenty minutes to parse: the parser's time grows with the square of these unclosed
 * links. For the tests of Ctrl+C while a thread is busy.
 */
export const STUCK_ARTICLE = `---\ntitle: Lento\n---\n\n${"[a](b (".repeat(120_000)}\n`;

/** A process's state (R, S, Z…) and processor time in seconds, from Linux's /proc; undefined once it is gone. */
export async function processState(pid: number): Promise<{ state: string; cpu: number } | undefined> {
  const stat = await readFile(`/proc/${pid}/stat`, "utf8").catch(() => undefined);
  if (!stat) return undefined;
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return { state: fields[0]!, cpu: (Number(fields[11]) + Number(fields[12])) / 100 };
}

/** Resolves once the process has used `seconds` more of processor time than now (it is busy computing). */
export async function busyFor(pid: number, seconds: number): Promise<void> {
  const start = (await processState(pid))?.cpu ?? 0;
  for (;;) {
    const now = await processState(pid);
    if (!now) throw new Error(`process ${pid} ended before it had worked ${seconds} s`);
    if (now.cpu - start >= seconds) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Every file of a built site with its bytes (the up-to-date record aside). */
export async function snapshot(dir: string): Promise<Map<string, Buffer>> {
  const files = new Map<string, Buffer>();
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || entry.name === ".cafe-build.json") continue;
    const file = path.join(entry.parentPath, entry.name);
    files.set(path.relative(dir, file), await readFile(file));
  }
  return files;
}

/**
 * The command line on a copy of the project and of the basic fixture (or of the notebook, a
 * site of its own: `root`), with its own cache (its node_modules/.cache/engine, as a project's is): `compare` builds from the cache, then
 * cold, expects the same bytes, and gives what the warm build printed (`--verbose`: what it
 * parsed and rendered again) and how many pages it took unchanged.
 */
export async function cliSite({ site = "blog" }: { site?: "blog" | "notebook" } = {}) {
  // The notebook is a site of its own (its config, theme and content), beside the engine as in this repository.
  const notebook = "tests/fixtures/notebook";
  const project = await projectCopy(["engine", "client", "templates", "public", ...(site === "notebook" ? [notebook] : [])]);
  const root = site === "notebook" ? path.join(project, notebook) : project;
  const content = site === "notebook" ? path.join(root, "content") : await editedFixture("basic", {});
  const out = await mkdtemp(path.join(tmpdir(), "cafe-cache-out-"));
  const env = { ...process.env };
  delete env.CAFE_CACHE_DIR;
  // As an author builds at a desk: under CI (CI=true), the editorial rules' findings would be errors.
  delete env.CI;
  const build = async (...args: string[]) => {
    const { stdout, stderr } = await run(process.execPath, ["engine/launch.mjs", "build", "--root", root, "--content", content, ...args], { cwd: project, env });
    return `${stdout}${stderr}`;
  };
  const compare = async () => {
    const warm = await build("--out", path.join(out, "site"), "--verbose");
    await build("--out", path.join(out, "cold"), "--no-cache", "--force");
    const [a, b] = await Promise.all([snapshot(path.join(out, "site")), snapshot(path.join(out, "cold"))]);
    expect([...a.keys()].sort()).toEqual([...b.keys()].sort());
    for (const [file, bytes] of b) expect(a.get(file)?.equals(bytes), file).toBe(true);
    return {
      unchanged: Number(/\((\d+) unchanged, from the cache\)/.exec(warm)?.[1] ?? 0),
      /** Bodies parsed again, pages rendered again (`--verbose`). */
      parsed: numberAfter(warm, "bodies"),
      rendered: numberAfter(warm, "pages"),
      /** What the warm build printed. */
      printed: warm,
    };
  };
  const edit = async (file: string, change: (text: string) => string) => {
    const target = path.isAbsolute(file) ? file : path.join(content, file);
    await writeFile(target, change(await readFile(target, "utf8")));
  };
  return { project, root, content, out, build, compare, edit };
}

/** The first number of a `--verbose` line (`  bodies  3 parsed, 0 kept`); NaN when the build printed none. */
function numberAfter(printed: string, label: string): number {
  const found = new RegExp(`^\\s+${label}\\s+(\\d+) `, "m").exec(printed);
  return found ? Number(found[1]) : NaN;
}
