/**
 * Every core: the Markdown, the pages and the social cards are computed on worker threads
 * (engine/pipeline/threads.ts) when a build asks for more than one, and the site is the same
 * to the byte whatever the number of threads; so is the report of a broken site, every
 * location included. Built through the command line, as the workers load the launcher's
 * bundle of the site's code.
 */
import { describe, expect, it } from "vitest";
import { execFile, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { cp, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { listFiles } from "../engine/lib/files.js";
import { editedFixture, fixture, projectCopy, projectRoot } from "./helpers.js";

const run = promisify(execFile);

/**
 * `cafe build` of a site into a new folder with `threads` threads, from a cache of its own
 * (every card drawn and every page rendered by those threads); the exit code and what it printed.
 */
async function build(root: string, threads: number, flags: string[] = [], { ci }: { ci?: false } = {}) {
  const work = await mkdtemp(path.join(tmpdir(), `cafe-threads-${threads}-`));
  const out = path.join(work, "dist");
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: "1", CAFE_CACHE_DIR: path.join(work, "cache") };
  // Outside CI (CI=true makes the editorial rules' findings errors, as --strict does).
  if (ci === false) delete env.CI;
  const args = [path.join(projectRoot, "engine/launch.mjs"), "build", "--root", root, "--out", out, "--threads", String(threads), ...flags];
  const result = await run(process.execPath, args, { cwd: root, env }).then(
    (r) => ({ code: 0, ...r }),
    (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, stdout: e.stdout, stderr: e.stderr }),
  );
  return { ...result, out };
}

/** Every file of a built site with the hash of its bytes, but the up-to-date note (it records the files' times). */
async function bytesOf(out: string): Promise<Record<string, string>> {
  const files: Record<string, string> = {};
  for (const file of listFiles(out, { hidden: true })) {
    const name = path.relative(out, file);
    if (name === ".cafe-build.json") continue;
    files[name] = createHash("sha256").update(await readFile(file)).digest("hex");
  }
  return files;
}

describe("a build on 1, 2 and 3 threads", () => {
  const sites = [
    // The blog: its cards drawn, its pages rendered, on the workers.
    { name: "the real site", root: projectRoot, flags: [] as string[], least: 30 },
    // The images fixture with its own public/: a copy of the project whose public/ is the fixture's.
    { name: "the images fixture (pictures, covers)", root: "images", flags: ["--content", path.join(fixture("images"), "content")], least: 10 },
    // A second theme, a site of its own folder (its content copied: the fixture stays as it is).
    { name: "the notebook, a second theme", root: fixture("notebook"), flags: ["copy"], least: 6 },
  ];
  for (const { name, root, flags, least } of sites) {
    it(`${name}: the same bytes`, async () => {
      const content = flags[0] === "copy" ? ["--content", path.join(await editedFixture("notebook", {}), "content")] : flags;
      const site = root === "images" ? await projectCopy(["engine", "client", "templates"]) : root;
      if (root === "images") await cp(path.join(fixture("images"), "public"), path.join(site, "public"), { recursive: true });
      const built = [];
      for (const threads of [1, 2, 3]) {
        const result = await build(site, threads, content);
        expect(result.stderr).not.toContain("failed");
        expect(result.code).toBe(0);
        built.push(await bytesOf(result.out));
      }
      const [one, two, three] = built;
      expect(Object.keys(one!).length).toBeGreaterThanOrEqual(least);
      expect(two).toEqual(one);
      expect(three).toEqual(one);
    }, 180_000);
  }

  it("a page that shows other articles' bodies (a worker holds only its pages' own) is rendered where every body is: the same bytes", async () => {
    const extra = Object.fromEntries(
      Array.from({ length: 10 }, (_, i) => [`content/articles/notes/extra-${i}.md`, `---\ntitle: Extra note ${i}\ntags: [extra]\n---\n\nThe extra note number ${i}.\n`]),
    );
    const content = path.join(await editedFixture("notebook", extra), "content");
    const built = [];
    for (const threads of [1, 3]) {
      const result = await build(fixture("digest"), threads, ["--content", content]);
      expect(result.code).toBe(0);
      built.push(await bytesOf(result.out));
      // The tag's page (on a worker's slice of the routes) shows every note it lists, whole.
      const page = await readFile(path.join(result.out, "tags/extra.html"), "utf8");
      for (let i = 0; i < 10; i++) expect(page).toContain(`The extra note number ${i}.`);
    }
    expect(built[1]).toEqual(built[0]);
  }, 120_000);

  it("a rebuild from the cache on 3 threads, whose tag page shows bodies the cache kept (their HTML read from its store), is the same bytes as a cold build", async () => {
    const extra = Object.fromEntries(
      Array.from({ length: 10 }, (_, i) => [`content/articles/notes/extra-${i}.md`, `---\ntitle: Extra note ${i}\ntags: [extra]\n---\n\nThe extra note number ${i}.\n`]),
    );
    const dir = await editedFixture("notebook", extra);
    const content = path.join(dir, "content");
    const work = await mkdtemp(path.join(tmpdir(), "cafe-threads-store-"));
    const env = { ...process.env, NO_COLOR: "1", CAFE_CACHE_DIR: path.join(work, "cache") };
    const build = (out: string, ...flags: string[]) =>
      run(process.execPath, [path.join(projectRoot, "engine/launch.mjs"), "build", "--root", fixture("digest"), "--content", content, "--out", path.join(work, out), "--threads", "3", "--verbose", ...flags], { cwd: fixture("digest"), env });
    try {
      await build("site");
      // One note's title: the tag's page renders again (on a worker), with the nine other notes' bodies kept.
      const note = path.join(content, "articles/notes/extra-3.md");
      await writeFile(note, (await readFile(note, "utf8")).replace("title: Extra note 3", "title: Extra note 3, revised"));
      const warm = await build("site");
      expect(warm.stdout).toMatch(/bodies\s+1 parsed/);
      await build("cold", "--no-cache", "--force");
      const page = await readFile(path.join(work, "site/tags/extra.html"), "utf8");
      for (let i = 0; i < 10; i++) expect(page).toContain(`The extra note number ${i}.`);
      expect(await bytesOf(path.join(work, "site"))).toEqual(await bytesOf(path.join(work, "cold")));
    } finally {
      await rm(work, { recursive: true, force: true });
      await rm(dir, { recursive: true, force: true });
    }
  }, 120_000);

  it("a broken site: the same report, every location, with 1 and 3 threads", async () => {
    const dir = await editedFixture("notebook", {
      // A Markdown body's error (made on a worker), a link to nowhere (checked on the pages, rendered on the workers).
      "content/articles/notes/margins.md": (s) => `${s.replace(/^title: .*$/m, (title) => `${title}\ntitel: Margins`)}\n[nowhere](/notes/nowhere)\n`,
      "content/articles/notes/reading-slowly.md": (s) => `${s}\n::not-a-block\n\n[again](/notes/nowhere-else#top)\n`,
    });
    const reports = [];
    for (const threads of [1, 3]) {
      const result = await build(fixture("notebook"), threads, ["--content", path.join(dir, "content")]);
      expect(result.code).toBe(1);
      reports.push(result.stderr.replace(/cafe-threads-\d-\w+/g, "work"));
    }
    expect(reports[0]).toMatch(/margins\.md:\d+:\d+: unknown front-matter key `titel`/);
    expect(reports[0]).toMatch(/reading-slowly\.md:\d+:\d+: unknown block `::not-a-block`/);
    expect(reports[0]).toContain("/notes/nowhere");
    expect(reports[1]).toEqual(reports[0]);
  }, 120_000);

  it("the editorial rules (read on a worker when there are workers): the same warnings, and with --strict the same errors and code frames, with 1 and 3 threads", async () => {
    const dir = await editedFixture("notebook", {
      "content/rules.yaml": 'spelling:\n  kind: substitution\n  message: "write “{use}”, not “{found}”"\n  swap:\n    e-mail: email\n    on-line: online\n',
      "content/articles/notes/margins.md": (s) => `${s}\nWrite me an e-mail, or find me on-line.\n`,
      "content/articles/notes/reading-slowly.md": (s) => `${s}\nAn e-mail a day.\n`,
    });
    const content = ["--content", path.join(dir, "content")];
    for (const strict of [false, true]) {
      const reports = [];
      for (const threads of [1, 3]) {
        const result = await build(fixture("notebook"), threads, [...content, ...(strict ? ["--strict"] : [])], { ci: false });
        expect(result.code).toBe(strict ? 1 : 0);
        reports.push(result.stderr.replace(/cafe-threads-\d-\w+/g, "work"));
      }
      expect(reports[0]).toMatch(/margins\.md:\d+(:\d+)?: write “email”, not “e-mail” \[spelling\]/);
      expect(reports[0]).toMatch(/margins\.md:\d+(:\d+)?: write “online”, not “on-line” \[spelling\]/);
      expect(reports[0]).toMatch(/reading-slowly\.md:\d+(:\d+)?: write “email”, not “e-mail” \[spelling\]/);
      // With --strict, an error shows its line.
      if (strict) expect(reports[0]).toContain("An e-mail a day.");
      expect(reports[1]).toEqual(reports[0]);
    }
  }, 120_000);

  it("--threads takes a whole number from 1 to 64, and says so otherwise (exit 2, nothing built)", async () => {
    for (const value of ["0", "two", "1.5", "65"]) {
      const result = await build(projectRoot, 1, ["--threads", value]);
      expect(result.code).toBe(2);
      expect(result.stderr.trim()).toBe(`--threads must be a whole number from 1 to 64; got '${value}'`);
    }
  }, 60_000);
});

describe("watch mode on the pool", () => {
  it("cafe dev --threads 2 renders its start and every save on the same two threads, and serves what was saved", async () => {
    const dir = await editedFixture("notebook", {});
    const env = { ...process.env, NO_COLOR: "1", CAFE_CACHE_DIR: path.join(dir, "cache") };
    const args = [path.join(projectRoot, "engine/launch.mjs"), "dev", "--root", fixture("notebook"), "--content", path.join(dir, "content"), "--port", "0", "--no-cache", "--threads", "2"];
    const child = spawn(process.execPath, args, { cwd: fixture("notebook"), env, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout!.on("data", (chunk: Buffer) => (out += chunk.toString()));
    child.stderr!.on("data", (chunk: Buffer) => (out += chunk.toString()));
    const count = (pattern: RegExp) => [...out.matchAll(new RegExp(pattern.source, "g"))].length;
    try {
      await expect.poll(() => count(/dev server: http:\/\/\S+/), { timeout: 60_000, interval: 100 }).toBe(1);
      const url = /dev server: (http:\/\/\S+)/.exec(out)![1]!;
      expect(out).toMatch(/start: \d+ pages ready in \d+ ms on 2 threads/);
      const article = path.join(dir, "content/articles/notes/margins.md");
      for (const [saves, word] of [[1, "first"], [2, "second"]] as const) {
        await writeFile(article, `${await readFile(article, "utf8")}\nA ${word} save, rendered on the pool.\n`);
        await expect.poll(() => count(/pages? updated in \d+ ms on 2 threads/), { timeout: 30_000, interval: 100 }).toBe(saves);
        expect(await (await fetch(`${url}/notes/margins`)).text()).toContain(`A ${word} save, rendered on the pool.`);
      }
    } finally {
      child.kill("SIGTERM");
    }
  }, 120_000);
});

describe("how many threads a build uses by default", () => {
  it("every core from 20,000 articles (where two threads were a tenth faster in a quiet series; at 4000 and 10,000 3-4%, for a third more memory: bench/README.md, session 21), one below, and what --threads says", async () => {
    const { threadsFor } = await import("../engine/pipeline/threads.js");
    const { availableParallelism } = await import("node:os");
    expect(threadsFor(4000)).toBe(1);
    expect(threadsFor(19_999)).toBe(1);
    expect(threadsFor(20_000)).toBe(availableParallelism());
    expect(threadsFor(100_000)).toBe(availableParallelism());
    expect(threadsFor(4000, 1)).toBe(1);
    expect(threadsFor(15, 3)).toBe(3);
  });
});
