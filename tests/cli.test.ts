/** The command line as an author runs it: exit codes, messages and the output folder. */
import { shownPath } from "../engine/lib/files.js";
import { describe, expect, it } from "vitest";
import { execFile, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { chmod, chown, mkdtemp, readdir, readFile, readlink, rm, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { editedFixture, fixture, parseHtml, projectCopy, projectRoot } from "./helpers.js";

const run = promisify(execFile);

/** As `npm run build` runs it: `node engine/launch.mjs build`. */
async function build(content: string, out: string, ...flags: string[]) {
  return run(process.execPath, ["engine/launch.mjs", "build", "--content", content, "--out", out, ...flags], { cwd: projectRoot, env: { ...process.env, NO_COLOR: "1" } }).then(
    (r) => ({ code: 0, ...r }),
    (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, stdout: e.stdout, stderr: e.stderr }),
  );
}

describe("npm run build", () => {
  it("builds a content folder, exits 0 and says how many pages it wrote", async () => {
    const out = path.join(await mkdtemp(path.join(tmpdir(), "cafe-cli-")), "site");
    const result = await build(fixture("basic"), out);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/Built 4 pages into .*site in \d+ ms/);
    expect(result.stderr).toContain("is still a placeholder");
    expect(await readFile(path.join(out, "primeiro.html"), "utf8")).toContain("Primeiro artigo");
  }, 60_000);

  it("on broken content prints file:line, a code frame and a hint, exits 1 and keeps the last good site", async () => {
    const out = path.join(await mkdtemp(path.join(tmpdir(), "cafe-cli-")), "site");
    expect((await build(fixture("basic"), out)).code).toBe(0);
    const before = await readFile(path.join(out, "primeiro.html"), "utf8");
    const broken = await editedFixture("basic", {
      "articles/primeiro.md": (s) => s.replace("readTime: 5", "readTme: 5"),
      "cards.yaml": (s) => s.replace("route: /primeiro", "route: /segundo"),
    });
    const result = await build(broken, out);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("The build found 2 problems");
    expect(result.stderr).toMatch(/articles\/primeiro\.md:5:1: unknown front-matter key `readTme`/);
    expect(result.stderr).toContain("> 5 | readTme: 5");
    expect(result.stderr).toContain("hint: did you mean `readTime`?");
    expect(result.stderr).toMatch(/cards\.yaml:1:\d+: `\[0\]\.route` points to \/segundo/);
    expect(result.stderr).toContain("was left as it was");
    expect(result.stderr).not.toMatch(/\n\s+at /);
    expect(await readFile(path.join(out, "primeiro.html"), "utf8")).toBe(before);
  }, 60_000);
});

/**
 * `cafe start` (what `npm start` runs) in a process of its own; `served` resolves when it
 * serves (its address) or ends (its exit code), with what it printed; `until` when what it
 * printed matches (or it ended).
 */
function start(args: string[], env: NodeJS.ProcessEnv = {}) {
  const child = spawn(process.execPath, ["engine/launch.mjs", "start", ...args, "--port", "0"], { cwd: projectRoot, env: { ...process.env, NO_COLOR: "1", ...env }, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  let ended = false;
  const waiting = new Set<() => void>();
  const read = (chunk: Buffer) => {
    output += chunk.toString();
    for (const check of waiting) check();
  };
  child.stdout!.on("data", read);
  child.stderr!.on("data", read);
  const closed = new Promise<number | null>((resolve) => child.on("close", resolve));
  void closed.then(() => {
    ended = true;
    for (const check of waiting) check();
  });
  /** Resolves with what it printed once that matches `pattern`, or it ended. */
  const until = (pattern: RegExp) =>
    new Promise<string>((resolve) => {
      const check = () => {
        if (!pattern.test(output) && !ended) return;
        waiting.delete(check);
        resolve(output);
      };
      waiting.add(check);
      check();
    });
  const served = until(/Serving .* at (http:\/\/\S+)/).then(async (text) => {
    const url = /Serving .* at (http:\/\/\S+)/.exec(text)?.[1];
    return url ? { url, output: text } : { code: await closed, output };
  }) as Promise<{ url?: string; code?: number | null; output: string }>;
  return { served, until, stop: () => child.kill("SIGTERM") };
}

describe("npm start", () => {
  it("builds the site, then serves it from the same process: the first page answers; a build that fails serves nothing and exits 1", async () => {
    const out = path.join(await mkdtemp(path.join(tmpdir(), "cafe-start-")), "site");
    const started = start(["--content", fixture("basic"), "--out", out]);
    try {
      const { url, output } = await started.served;
      expect(url, output).toBeDefined();
      expect(await started.until(/Built 4 pages/)).toMatch(/Built 4 pages into .*site in \d+ ms/);
      const page = await fetch(`${url}/primeiro`);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain("Primeiro artigo");
      expect((await fetch(`${url}/nada-aqui`)).status).toBe(404);
    } finally {
      started.stop();
    }
    const broken = await editedFixture("basic", { "articles/primeiro.md": (text) => text.replace("readTime: 5", "readTme: 5") });
    const failed = await start(["--content", broken, "--out", path.join(await mkdtemp(path.join(tmpdir(), "cafe-start-")), "site")]).served;
    expect(failed.url).toBeUndefined();
    expect(failed.code).toBe(1);
    expect(failed.output).toMatch(/articles\/primeiro\.md:5:1: unknown front-matter key `readTme`/);
    // A wrong port is refused before any work.
    const port = await run(process.execPath, ["engine/launch.mjs", "start", "--port", "http"], { cwd: projectRoot }).then(
      (r) => ({ code: 0, stderr: r.stderr }),
      (e: { code: number; stderr: string }) => e,
    );
    expect(port.code).toBe(2);
    expect(port.stderr).toContain("--port must be a number from 0 to 65535; got 'http'");
  }, 120_000);
});

describe("npm start, while the social cards are drawn", () => {
  it("serves the pages as soon as they are written and checked; a card asked for meanwhile answers once drawn, the published PNG, and the feed states its length", async () => {
    const out = path.join(await mkdtemp(path.join(tmpdir(), "cafe-start-")), "site");
    // An empty cache: every card is drawn.
    const started = start(["--content", fixture("basic"), "--out", out], { CAFE_CACHE_DIR: await mkdtemp(path.join(tmpdir(), "cafe-start-cache-")) });
    try {
      const { url, output } = await started.served;
      expect(url, output).toBeDefined();
      const home = await fetch(`${url}/primeiro`);
      expect(home.status).toBe(200);
      const card = new URL(parseHtml(await home.text()).querySelector('meta[property="og:image"]')!.getAttribute("content")!).pathname;
      const [png, feed] = await Promise.all([fetch(`${url}${card}`), fetch(`${url}/feed.xml`)]);
      expect([png.status, png.headers.get("content-type")]).toEqual([200, "image/png"]);
      const bytes = Buffer.from(await png.arrayBuffer());
      const printed = await started.until(/Built 4 pages/);
      // Served first, reported done after: the cards were drawn while the site was served.
      expect(printed.indexOf("Serving")).toBeGreaterThan(-1);
      expect(printed.indexOf("Serving")).toBeLessThan(printed.indexOf("Built 4 pages"));
      expect(bytes.equals(await readFile(path.join(out, card)))).toBe(true);
      expect(await feed.text()).toContain(`length="${bytes.length}" type="image/png" url="https://cafecomacris.placeholder.invalid${card}"`);
    } finally {
      started.stop();
    }
  }, 120_000);
});

describe("npm run build with editorial rules (content/rules.yaml)", () => {
  const rules = "fontes:\n  kind: block-field\n  block: stat-cards\n  field: source\n  message: 'o número “{item}” não tem fonte'\n";

  it("prints what they find as warnings at file:line and publishes; --strict, or CI=true, stops the build with each as an error", async () => {
    const content = await editedFixture("basic", { "rules.yaml": rules });
    const out = path.join(await mkdtemp(path.join(tmpdir(), "cafe-cli-")), "site");
    const { CI: _, ...environment } = process.env;
    const warned = await run(process.execPath, ["engine/launch.mjs", "build", "--content", content, "--out", out], { cwd: projectRoot, env: { ...environment, NO_COLOR: "1" } });
    expect(warned.stderr).toMatch(/warning .*articles\/primeiro\.md:12: o número “83%” não tem fonte \[fontes\]/);
    expect(warned.stdout).toMatch(/Built 4 pages/);
    const before = await readFile(path.join(out, "primeiro.html"), "utf8");

    // Nothing changed since that build, but a strict build is another build: it is not "up to date".
    const strict = await build(content, out, "--strict");
    expect(strict.code).toBe(1);
    expect(strict.stdout).not.toContain("up to date");
    expect(strict.stderr).toMatch(/articles\/primeiro\.md:12: o número “83%” não tem fonte \[fontes\]\n(.*\n)*> 12 \|   - value: "83%"/);
    expect(strict.stderr).toContain("hint: a rule of");
    expect(strict.stderr).toContain("was left as it was");

    const ci = await run(process.execPath, ["engine/launch.mjs", "build", "--content", content, "--out", out], { cwd: projectRoot, env: { ...environment, NO_COLOR: "1", CI: "true" } }).then(
      () => 0,
      (e: { code: number }) => e.code,
    );
    expect(ci).toBe(1);
    expect(await readFile(path.join(out, "primeiro.html"), "utf8")).toBe(before);
  }, 120_000);
});

describe("npm run build refuses an output that would delete what it did not make", () => {
  /** Every file below a folder (names only), to see that a refused build touched nothing. */
  const names = async (dir: string) => (await readdir(dir, { recursive: true })).sort();

  it("the site's folder, a folder above it, its content, public or theme folders, a folder of someone else's files: one line, exit 1, nothing touched", async () => {
    const project = await projectCopy(["engine", "client", "templates", "public", "content"]);
    const foreign = await mkdtemp(path.join(tmpdir(), "cafe-foreign-"));
    await writeFile(path.join(foreign, "notes.txt"), "mine");
    const before = await names(project);
    const cases: [string, RegExp][] = [
      [".", /the output folder \. is the site's folder itself/],
      ["/", /the output folder \/ is above the site's folder/],
      ["..", /is above the site's folder/],
      ["content", /the output folder content is the content folder/],
      ["content/articles", /the output folder content\/articles is inside the content folder \(content\)/],
      ["public", /is the public folder/],
      ["templates", /is a folder of the site's code \(templates\)/],
      [foreign, /holds files that no build made \(notes\.txt\)/],
    ];
    for (const [out, message] of cases) {
      const result = await run(process.execPath, ["engine/launch.mjs", "build", "--out", out], { cwd: project, env: { ...process.env, NO_COLOR: "1" } }).then(
        (r) => ({ code: 0, ...r }),
        (e: { code: number; stdout: string; stderr: string }) => e,
      );
      expect(result.code, out).toBe(1);
      expect(result.stderr, out).toMatch(message);
      expect(result.stderr, out).toMatch(/Nothing was touched; .*choose an output folder of its own \(--out DIR, or `out` in cafe\.config\.ts\)/);
      expect(result.stderr.trim().split("\n"), out).toHaveLength(1);
      expect(result.stdout, out).not.toMatch(/Built|Building/);
    }
    // Nothing moved, nothing deleted, no `.builds` folder made beside any of them.
    expect(await names(project)).toEqual(before);
    expect(await readdir(foreign)).toEqual(["notes.txt"]);
    expect(await readdir(path.dirname(foreign))).not.toContain(`${path.basename(foreign)}.builds`);
    // A folder a build made is still replaced, build after build.
    expect((await run(process.execPath, ["engine/launch.mjs", "build", "--out", "site"], { cwd: project })).stdout).toMatch(/Built \d+ pages into site/);
    expect((await run(process.execPath, ["engine/launch.mjs", "build", "--out", "site", "--force"], { cwd: project })).stdout).toMatch(/Built \d+ pages into site/);
  }, 180_000);
});

describe("a second site's build script (tests/fixtures/notebook/build.ts)", () => {
  it("builds through the engine's public face in about ten lines, as npm run build does", async () => {
    const out = path.join(await mkdtemp(path.join(tmpdir(), "notebook-")), "dist");
    const { NODE_ENV: _, ...env } = process.env;
    const script = (...flags: string[]) =>
      run(path.join(projectRoot, "node_modules/.bin/tsx"), ["tests/fixtures/notebook/build.ts", out, "--no-cache", ...flags], { cwd: projectRoot, env: { ...env, NO_COLOR: "1" } });
    const first = await script();
    expect(first.stdout).toMatch(/\nBuilt 6 pages into .*dist in \d+ ms\n$/);
    expect(await readFile(path.join(out, "notes/reading-slowly.html"), "utf8")).toContain('<p class="tags"><a href="/tags/reading">reading</a></p>');
    // Its own public/ folder, not the blog's: the notebook's favicon.
    expect(await readFile(path.join(out, "favicon.svg"), "utf8")).toBe(await readFile(path.join(projectRoot, "tests/fixtures/notebook/public/favicon.svg"), "utf8"));
    expect(await readFile(path.join(out, "favicon.svg"), "utf8")).not.toBe(await readFile(path.join(projectRoot, "public/favicon.svg"), "utf8"));
    expect((await script()).stdout).toMatch(/is up to date/);
    expect((await script("--force")).stdout).toMatch(/\nBuilt 6 pages/);
  }, 60_000);
});

describe("npm run build when nothing changed", () => {
  /** A copy of the project (its lock file is touched below), with a built site. */
  async function built() {
    const project = await projectCopy();
    const out = path.join(await mkdtemp(path.join(tmpdir(), "cafe-uptodate-")), "site");
    const build = () => run(process.execPath, ["engine/launch.mjs", "build", "--content", fixture("basic"), "--out", out], { cwd: project }).then((r) => r.stdout);
    expect(await build()).toMatch(/Built 4 pages/);
    expect(await build()).toContain("is up to date");
    return { project, out, build };
  }

  it("rebuilds when the lock file (the libraries) changed, even if nothing else did", async () => {
    const { project, build } = await built();
    const later = new Date(Date.now() + 5000);
    await utimes(path.join(project, "package-lock.json"), later, later);
    expect(await build()).toMatch(/Built 4 pages/);
    expect(await build()).toContain("is up to date");
  }, 60_000);

  it("rebuilds when the output was changed or a file of it removed, and puts it back", async () => {
    const { out, build } = await built();
    const page = path.join(out, "primeiro.html");
    const good = await readFile(page, "utf8");
    await writeFile(page, "edited by hand");
    expect(await build()).toMatch(/Built 4 pages/);
    expect(await readFile(page, "utf8")).toBe(good);
    await rm(page);
    expect(await build()).toMatch(/Built 4 pages/);
    expect(await readFile(page, "utf8")).toBe(good);
  }, 60_000);
});

describe("npm run build from another folder", () => {
  it("finds the same cache: what it keeps is named from the project's root, not the working directory", async () => {
    const content = await editedFixture("basic", {});
    const out = path.join(await mkdtemp(path.join(tmpdir(), "cafe-cwd-")), "site");
    const elsewhere = await mkdtemp(path.join(tmpdir(), "cafe-elsewhere-"));
    const build = (cwd: string) =>
      run(process.execPath, [path.join(projectRoot, "engine/launch.mjs"), "build", "--content", content, "--out", out], { cwd, env: { ...process.env, NO_COLOR: "1" } }).then((r) => r.stdout);
    expect(await build(projectRoot)).toMatch(/Built 4 pages/);
    // Touched, not changed: the build runs again (the up-to-date check looks at times), and
    // every page comes from the cache, whichever folder the command was started in.
    const later = new Date(Date.now() + 5000);
    await utimes(path.join(content, "articles/primeiro.md"), later, later);
    expect(await build(elsewhere)).toMatch(/Built 4 pages into .* \(4 unchanged, from the cache\)/);
  }, 60_000);
});

describe("npm run build when many addresses are published for the first time", () => {
  it("names the first ten and counts the rest, in one short line", async () => {
    const articles = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`articles/nota-${String(i).padStart(2, "0")}.md`, `---\ntitle: Nota número ${i}\n---\n\nTexto.\n`]));
    const content = await editedFixture("basic", articles);
    await rm(path.join(content, "published-routes.txt"), { force: true });
    const out = path.join(await mkdtemp(path.join(tmpdir(), "cafe-many-")), "site");
    const built = await build(content, out);
    expect(built.code).toBe(0);
    const line = built.stdout.split("\n").find((l) => l.startsWith("Recorded "));
    const record = shownPath(projectRoot, path.join(content, "published-routes.txt"));
    expect(line).toBe(`Recorded 33 new published addresses in ${record}: /, /guia/so-titulo, /nota-00, /nota-01, /nota-02, /nota-03, /nota-04, /nota-05, /nota-06, /nota-07 and 23 more (the file lists them all)`);
    // The record itself holds every one.
    expect((await readFile(path.join(content, "published-routes.txt"), "utf8")).split("\n").filter((l) => l.startsWith("/"))).toHaveLength(33);
  }, 60_000);
});

describe("npm run build when the record of published addresses is missing", () => {
  it("stops, when the site was built before, naming the command that starts a new record on purpose", async () => {
    const content = await editedFixture("basic", { "articles/solto.md": "---\ntitle: Um artigo solto\n---\n\nTexto.\n" });
    const out = path.join(await mkdtemp(path.join(tmpdir(), "cafe-record-")), "site");
    expect((await build(content, out)).code).toBe(0);
    const record = path.join(content, "published-routes.txt");
    expect(await readFile(record, "utf8")).toContain("/solto");
    // Deleted together with an article: the protection must not fail open.
    await rm(record);
    await rm(path.join(content, "articles/solto.md"));
    const stopped = await build(content, out);
    expect(stopped.code).toBe(1);
    // Outside the site's folder, a path is shown whole.
    const shown = shownPath(projectRoot, record);
    expect(stopped.stderr.trim().split("\n")).toEqual([
      `Build failed: ${shown} is missing, but ${shownPath(projectRoot, out)} has been built before: that file records every address the site has published, so that none stops answering unnoticed. ` +
        `Restore it (git checkout -- ${shown}), or start a new record from this build's addresses on purpose: build with --new-published-routes (npm run build -- --new-published-routes). ${shownPath(projectRoot, out)} was left as it was.`,
    ]);
    await expect(readFile(record, "utf8")).rejects.toThrow();
    expect(await readFile(path.join(out, "solto.html"), "utf8")).toContain("Um artigo solto");

    const renewed = await build(content, out, "--new-published-routes");
    expect(renewed.code).toBe(0);
    expect(renewed.stdout).toContain("Recorded 3 new published addresses");
    expect((await readFile(record, "utf8")).split("\n").filter((l) => l.startsWith("/"))).toEqual(["/", "/guia/so-titulo", "/primeiro"]);
  }, 60_000);
});

describe("npm run build when the record of published addresses was emptied or cut short", () => {
  it("stops as when it is missing, names what it lost, and leaves the site and the record as they were", async () => {
    const content = await editedFixture("basic", { "articles/solto.md": "---\ntitle: Um artigo solto\n---\n\nTexto.\n" });
    const out = path.join(await mkdtemp(path.join(tmpdir(), "cafe-record-")), "site");
    expect((await build(content, out)).code).toBe(0);
    const record = path.join(content, "published-routes.txt");
    const whole = await readFile(record, "utf8");
    // `: > published-routes.txt`, and an article deleted with it.
    await writeFile(record, "");
    await rm(path.join(content, "articles/solto.md"));
    const stopped = await build(content, out);
    expect(stopped.code).toBe(1);
    const shown = shownPath(projectRoot, record);
    expect(stopped.stderr.trim().split("\n")).toHaveLength(1);
    expect(stopped.stderr).toMatch(new RegExp(`^Build failed: ${shown.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")} lists 0 addresses, but .* publishes 4 pages; it leaves out 4 \\(/, /guia/so-titulo, /primeiro, …\\): .*emptied or cut short`));
    expect(stopped.stderr).toContain(`Restore it (git checkout -- ${shown}), or start a new record from this build's addresses on purpose: build with --new-published-routes`);
    expect(stopped.stdout).not.toContain("Recorded");
    expect(await readFile(record, "utf8")).toBe("");
    expect(await readFile(path.join(out, "solto.html"), "utf8")).toContain("Um artigo solto");
    // Only the header left: the same.
    await writeFile(record, whole.split("\n").filter((l) => l.startsWith("#")).join("\n") + "\n");
    expect((await build(content, out)).code).toBe(1);
    // Restored, the build goes on and says the deleted article's address is still promised.
    await writeFile(record, whole);
    const restored = await build(content, out);
    expect(restored.code).toBe(1);
    expect(restored.stderr).toContain("/solto was published and nothing answers it now");
  }, 60_000);
});

/**
 * Folders the build cannot write: for a user, a read-only folder. Root writes anything, so as
 * root the build runs as `nobody` (setpriv), over a temporary folder of its own, with its own
 * engine cache (the command bundles itself there once).
 */
describe("npm run build over folders it cannot write", () => {
  const isRoot = process.getuid?.() === 0;
  const NOBODY = 65534;

  async function authorsSite() {
    const root = await mkdtemp(path.join(tmpdir(), "cafe-readonly-"));
    const content = await editedFixture("basic", {});
    await run("cp", ["-r", content, path.join(root, "content")]);
    await chmod(root, 0o755);
    if (isRoot) await run("chown", ["-R", `${NOBODY}:${NOBODY}`, root]);
    const out = path.join(root, "dist");
    const command = (...flags: string[]) => {
      const args = ["engine/launch.mjs", "build", "--content", path.join(root, "content"), "--out", out, ...flags];
      const [file, all] = isRoot ? ["setpriv", [`--reuid=${NOBODY}`, `--regid=${NOBODY}`, "--clear-groups", process.execPath, ...args]] : [process.execPath, args];
      return run(file, all, { cwd: projectRoot, env: { ...process.env, NO_COLOR: "1", CAFE_CACHE_DIR: path.join(root, "cache") } }).then(
        (r) => ({ code: 0, ...r }),
        (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, stdout: e.stdout, stderr: e.stderr }),
      );
    };
    const edit = (text: string) => writeFile(path.join(root, "content/articles/primeiro.md"), `${text}\n`, { flag: "a" });
    expect((await command()).code).toBe(0);
    await edit("Segunda versão.");
    expect((await command()).code).toBe(0);
    const live = path.join(root, (await readlink(out)).replace(/^\.\//, ""));
    const standby = path.join(`${out}.builds`, path.basename(live) === "a" ? "b" : "a");
    const site = async () => Object.fromEntries(await Promise.all((await readdir(out)).filter((f) => f.endsWith(".html")).map(async (f) => [f, await readFile(path.join(out, f), "utf8")])));
    return { root, out, standby, command, edit, site };
  }

  it("a read-only standby build folder: one line that says which folder, no stack trace, exit 1, the last good site kept", async () => {
    const { standby, command, edit, site } = await authorsSite();
    const before = await site();
    // The folder and its files: a page is written over the standby's own copy where it can be.
    for (const file of await readdir(standby, { recursive: true })) if (file.endsWith(".html")) await chmod(path.join(standby, file), 0o444);
    await chmod(standby, 0o555);
    await edit("Terceira versão.");
    const result = await command();
    expect(result.code).toBe(1);
    expect(result.stderr).not.toMatch(/\n\s+at |\[cause\]|errno/);
    const shown = path.relative(projectRoot, standby);
    expect(result.stderr.trim().split("\n").filter((l) => !l.startsWith("warning"))).toEqual([
      expect.stringMatching(new RegExp(`^Build failed: cannot write ${shown}/[\\w./-]+ \\(permission denied\\)\\. .* is still the last good site: make ${shown}(/[\\w-]+)? writable \\(or remove it\\) and build again\\.$`)),
    ]);
    expect(await site()).toEqual(before);
    // The folder made writable again (its files left read-only: each is replaced), the next build publishes the edit.
    await chmod(standby, 0o755);
    expect((await command()).code).toBe(0);
    expect((await site())["primeiro.html"]).toContain("Terceira versão.");
  }, 120_000);

  // Only root can leave a file the build's user may not replace in a folder it writes (root's, in a sticky folder).
  it.runIf(isRoot)("a .cafe-build.json it cannot replace after publishing: one warning line, exit 0, the new site published", async () => {
    const { standby, command, edit, site } = await authorsSite();
    const note = path.join(standby, ".cafe-build.json");
    await writeFile(note, "{}\n", { mode: 0o444 });
    await chown(note, 0, 0);
    await chown(standby, 0, 0);
    await chmod(standby, 0o1777);
    await edit("Terceira versão.");
    const result = await command();
    expect(result.stderr).not.toMatch(/\n\s+at |\[cause\]|errno/);
    expect(result.stderr.trim().split("\n").filter((l) => !l.startsWith("warning ")).map((l) => l.replace(/\S*\.cafe-build\.json\S*/, "NOTE"))).toEqual([
      `warning: ${shownPath(projectRoot, path.dirname(standby)).replace(/\.builds$/, "")} is built, but cannot write NOTE (operation not permitted): the next build cannot tell that nothing changed, and builds again`,
    ]);
    expect(result.code).toBe(0);
    expect((await site())["primeiro.html"]).toContain("Terceira versão.");
    expect((await readdir(standby)).filter((f) => f.includes(".tmp"))).toEqual([]);
  }, 120_000);
});
describe("cafe --help and mistaken command lines", () => {
  const cafe = (args: string[], cwd = projectRoot) =>
    run(process.execPath, [path.join(projectRoot, "engine/launch.mjs"), ...args], { cwd }).then(
      (r) => ({ code: 0, stdout: r.stdout, stderr: r.stderr }),
      (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, stdout: e.stdout, stderr: e.stderr }),
    );
  /** Every flag each command takes, as README's commands section lists them. */
  const FLAGS = {
    init: [],
    build: ["--content DIR", "--out DIR", "--force", "--no-cache", "--verbose", "--strict", "--threads N", "--new-published-routes"],
    dev: ["--content DIR", "--port N", "--host H", "--allowed-host NAME", "--force", "--no-cache", "--strict", "--threads N"],
    preview: ["--out DIR", "--port N", "--host H", "--allowed-host NAME", "--force"],
    start: ["--content DIR", "--out DIR", "--force", "--no-cache", "--verbose", "--strict", "--threads N", "--port N", "--host H", "--allowed-host NAME"],
    new: ["--content DIR", "--force"],
    "check-links": ["--content DIR", "--warn-only", "--force", "--no-cache", "--allow-private"],
  };

  it("lists the commands, and each command's help lists every flag it takes", async () => {
    const top = await cafe(["--help"]);
    expect(top.code).toBe(0);
    for (const command of Object.keys(FLAGS)) expect(top.stdout).toMatch(new RegExp(`^  ${command} +\\S`, "m"));
    for (const [command, flags] of Object.entries(FLAGS)) {
      const help = await cafe([command, "--help"]);
      expect(help.code).toBe(0);
      expect(help.stdout).toContain(`usage: cafe ${command} `);
      for (const flag of [...flags, "--root DIR", "-h, --help"]) expect(help.stdout, `cafe ${command} --help`).toMatch(new RegExp(`^  ${flag.replace(/[.*+?^${}()|[\]\\-]/g, "\\$&")}  `, "m"));
      // Exactly those: one line per flag.
      expect(help.stdout.split("options:\n")[1]!.trim().split("\n")).toHaveLength(flags.length + 2);
    }
  }, 60_000);

  it("answers `npm run build -- --help` with the build's help, not an error", async () => {
    const result = await run("npm", ["run", "--silent", "build", "--", "--help"], { cwd: projectRoot });
    expect(result.stdout).toMatch(/^cafe build: /);
    expect(result.stdout).toContain("--out DIR");
  }, 60_000);

  it("refuses a flag the command does not take, naming those it does", async () => {
    const result = await cafe(["build", "--port", "80"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe("--port is not an option of cafe build; its options: --content, --out, --force, --no-cache, --verbose, --strict, --threads, --new-published-routes, --root, --help (cafe build --help)\n");
    const unknown = await cafe(["biuld"]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("unknown command 'biuld': the commands are init, build, dev, preview, start, new, move, check-links");
  }, 60_000);

  it("in a folder that is no site, says so and how to make one", async () => {
    const empty = await mkdtemp(path.join(tmpdir(), "cafe-no-site-"));
    const result = await cafe(["build", "--root", empty]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`There is no site here: no cafe.config.ts (or .mts, .tsx, .js, .mjs) in ${empty}.`);
    expect(result.stderr).toContain("start one here with: cafe init");
    // The guide it names is a file the user has (issue 39): the engine's own README.
    const guide = /the engine's guide: (\S+)\)/.exec(result.stderr)?.[1];
    expect(guide).toBe("engine/README.md");
    expect(existsSync(path.join(projectRoot, guide!))).toBe(true);
    expect(result.stderr).not.toMatch(/\n\s+at /);
  }, 60_000);
});
