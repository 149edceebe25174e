/** The author's workflow outside the dev server: new articles, drafts, interrupted builds. */
import { describe, expect, it, onTestFinished } from "vitest";
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { appendFile, cp, mkdir, mkdtemp, readdir, readFile, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { scaffoldArticle, slugify } from "../engine/tools/new-article.js";
import { buildInMemory, bundledForFile, busyFor, comparable, editedFixture, fixture, parseHtml, projectRoot, STUCK_ARTICLE } from "./helpers.js";
import { writeCorpus } from "../bench/corpus.js";
import { buildSite } from "../engine/pipeline/site-builder.js";
import { FolderWriter } from "../engine/stages/write/writers.js";
import { theme } from "../templates/theme.js";
import { ContentError } from "../engine/lib/errors.js";

/** tests/kill-build.ts, bundled once for this file's killed builds (each a process of its own). */
const killBuild = bundledForFile("tests/kill-build.ts");
/** engine/lib/signals.ts, bundled once for the programs that hold signals (plain `node`, not tsx). */
const signals = bundledForFile("engine/lib/signals.ts");

describe("npm run new", () => {
  it("makes the slug from the title, accents and punctuation included", () => {
    expect(slugify("Gestão de Pessoas: o que muda em 2026?")).toBe("gestao-de-pessoas-o-que-muda-em-2026");
    expect(slugify("  Ação & Reação  ")).toBe("acao-reacao");
  });

  it("scaffolds a Portuguese draft dated today that builds in dev and stays out of a build", async () => {
    const dir = await editedFixture("basic", {});
    const file = await scaffoldArticle(dir, "Como negociar um aumento", new Date(2026, 10, 21), undefined, "pt");
    expect(file).toBe(path.join(dir, "articles/como-negociar-um-aumento.md"));
    const text = await readFile(file, "utf8");
    expect(text).toContain('title: "Como negociar um aumento"');
    expect(text).toContain("date: 21/11/2026");
    expect(text).toContain("draft: true");
    const built = await buildInMemory(dir);
    expect(built.ok).toBe(true);
    expect(built.writer.files.has("como-negociar-um-aumento.html")).toBe(false);
    await expect(scaffoldArticle(dir, "Como negociar um aumento")).rejects.toThrow(/already exists/);
  });

  it("dates a draft of an English site the way no English reader misreads: year first", async () => {
    const dir = await editedFixture("basic", {});
    const file = await scaffoldArticle(dir, "How to ask for a raise", new Date(2026, 10, 21), undefined, "en");
    expect(await readFile(file, "utf8")).toContain("date: 2026-11-21");
  });

  it("refuses a title whose address the site keeps for itself, and cuts a long one to a route the build takes", async () => {
    const dir = await editedFixture("basic", {});
    for (const title of ["index", "404", "Assets", "Feed", "Sitemap"]) {
      const error = await scaffoldArticle(dir, title).catch((e: ContentError) => e);
      expect(error, title).toBeInstanceOf(ContentError);
      expect((error as ContentError).message, title).toMatch(/^the title makes the address \/\w+, which the site keeps for itself/);
    }
    expect((await readdir(path.join(dir, "articles"))).sort()).toEqual(["guia", "primeiro.en.md", "primeiro.md"]);
    const long = `${"Palavra ".repeat(17)}fim`.trim();
    expect(slugify(long).length).toBe(139);
    for (const title of [long, "Um título muito longo ".repeat(14)]) {
      const file = await scaffoldArticle(dir, title);
      const slug = path.basename(file, ".md");
      expect(slug.length + 1).toBeLessThanOrEqual(128);
      expect(slugify(title).startsWith(slug)).toBe(true);
      expect(slug).not.toMatch(/-$/);
      expect(await readFile(file, "utf8")).toContain(`title: ${JSON.stringify(title.trim())}`);
    }
    const built = await buildInMemory(dir);
    expect(built.errors).toEqual([]);
  });
});

describe("drafts", () => {
  it("are left out of the build, the cards, the feed and the sitemap, and built in dev", async () => {
    const dir = await editedFixture("basic", {
      "articles/guia/so-titulo.md": "---\ntitle: Só título\ndate: 02/09/2025\ndraft: true\n---\nTexto\n",
      "articles/primeiro.md": (s) => s.replace("[link interno](/guia/so-titulo)", "link interno"),
      // A draft was never published: its address is not in the record.
      "published-routes.txt": (s) => s.replace("/guia/so-titulo\n", ""),
    });
    const built = await buildInMemory(dir);
    expect(built.ok).toBe(true);
    expect(built.writer.files.has("guia/so-titulo.html")).toBe(false);
    const home = parseHtml(built.writer.text("index.html"));
    expect([...home.querySelectorAll("a.card")].map((a) => a.getAttribute("href"))).toEqual(["/primeiro"]);
    expect(built.writer.text("sitemap.xml")).not.toContain("so-titulo");
    expect(built.writer.text("feed.xml")).not.toContain("so-titulo");

    const { MemoryWriter } = await import("../engine/stages/write/writers.js");
    const writer = new MemoryWriter();
    const dev = await buildSite({ contentDir: dir, projectRoot, theme, writer, drafts: true });
    expect(dev.ok).toBe(true);
    expect(writer.files.has("guia/so-titulo.html")).toBe(true);
    // Neither build publishes the draft's address.
    expect(await readFile(path.join(dir, "published-routes.txt"), "utf8")).not.toContain("/guia/so-titulo");
  });

  it("an article made a draft again takes its published address away: the build says so at the record's line", async () => {
    const dir = await editedFixture("basic", {
      "articles/guia/so-titulo.md": "---\ntitle: Só título\ndraft: true\n---\nTexto\n",
      "articles/primeiro.md": (s) => s.replace("[link interno](/guia/so-titulo)", "link interno"),
      "cards.yaml": (s) => s.slice(0, s.indexOf("- route: /guia/so-titulo")),
    });
    for (const drafts of [false, true]) {
      const { MemoryWriter } = await import("../engine/stages/write/writers.js");
      const result = await buildSite({ contentDir: dir, projectRoot, theme, writer: new MemoryWriter(), drafts });
      expect(result.errors.map((e) => `${e.file.split("/").pop()}: ${e.message}`), `drafts: ${drafts}`).toEqual([
        "published-routes.txt: /guia/so-titulo was published and nothing answers it now",
      ]);
      expect(result.errors[0]!.hint).toMatch(/^its article is a draft now/);
    }
  });

  it("a published article may not link to a draft, and the error says so", async () => {
    const dir = await editedFixture("basic", {
      "articles/guia/so-titulo.md": "---\ntitle: Só título\ndraft: true\n---\nTexto\n",
      "published-routes.txt": (s) => s.replace("/guia/so-titulo\n", ""),
    });
    const built = await buildInMemory(dir);
    expect(built.ok).toBe(false);
    expect(built.errors[0]!.message).toBe("broken link: no page has the route /guia/so-titulo");
    expect(built.errors[0]!.hint).toMatch(/is a draft/);
  });
});

describe("atomic output", () => {
  it("writes pages byte for byte, in folders, and only shows them on commit", async () => {
    const parent = await mkdtemp(path.join(tmpdir(), "cafe-writer-"));
    const out = path.join(parent, "dist");
    const writer = new FolderWriter(out);
    await writer.begin();
    const pages = Array.from({ length: 40 }, (_, i) => [`artigo/página-${i}.html`, `<p>Coração ${i} — ação</p>`] as const);
    await Promise.all([...pages.map(([file, html]) => writer.write(file, html)), writer.write("assets/a.bin", new Uint8Array([0, 255, 7]))]);
    expect(existsSync(out)).toBe(false);
    await writer.commit();
    for (const [file, html] of pages) expect(await readFile(path.join(out, file), "utf8")).toBe(html);
    expect([...(await readFile(path.join(out, "assets/a.bin")))]).toEqual([0, 255, 7]);
    expect(await leftovers(parent)).toEqual([]);
  });

  it("a page that cannot be written fails with its name, and the last good site stays", async () => {
    const parent = await mkdtemp(path.join(tmpdir(), "cafe-writer-fail-"));
    const out = path.join(parent, "dist");
    const good = new FolderWriter(out);
    await good.begin();
    await good.write("index.html", "good");
    await good.commit();

    const writer = new FolderWriter(out);
    await writer.begin();
    await writer.write("artigo", "a file where a folder must go");
    await expect(writer.write("artigo/novo.html", "x")).rejects.toThrow(/could not write .*artigo\/novo\.html/);
    await writer.abort();
    expect(await readFile(path.join(out, "index.html"), "utf8")).toBe("good");
    expect(await leftovers(parent)).toEqual([]);
  });

  it("a build interrupted half-way ends by the signal and leaves the last good site exactly as it was; the next build sweeps what it left", async () => {
    const parent = await mkdtemp(path.join(tmpdir(), "cafe-interrupt-"));
    const out = path.join(parent, "dist");
    const writer = new FolderWriter(out);
    await writer.begin();
    expect((await buildSite({ contentDir: fixture("basic"), projectRoot, theme, writer })).ok).toBe(true);
    const before = await siteFiles(out);
    // A site that takes seconds to build (the real content and 200 generated articles), so
    // that the signal, sent as soon as the build says it started, lands in the middle of it.
    const content = path.join(parent, "content");
    await cp(path.join(projectRoot, "content"), content, { recursive: true });
    await writeCorpus(200, path.join(content, "articles/bench"));
    await appendFile(path.join(content, "site.yaml"), "\nsocialCards: false\n");

    // The signal goes straight to the build (a wrapper such as tsx may SIGKILL its child
    // 30 ms after relaying one; that case is the next tests').
    const build = cliBuild(content, out);
    const interrupted = build();
    await interrupted.said("Building ");
    interrupted.child.kill("SIGINT");
    // Ended as Ctrl+C ends a program (the shell says 130), by the signal itself.
    expect(await interrupted.exited, await interrupted.output).toEqual({ code: null, signal: "SIGINT" });
    expect(await interrupted.output, "the build finished before the signal landed").not.toMatch(/Built \d+ pages/);
    expect(await siteFiles(out)).toEqual(before);

    const next = build();
    expect(await next.exited, await next.output).toEqual({ code: 0, signal: null });
    expect(await leftovers(parent)).toEqual(["content"]);
  }, 180_000);

  it.each(["SIGINT", "SIGTERM"] as const)(
    "%s stops a build at once while it parses an article that would take minutes, keeps the last good site byte for byte, and the next build needs no --force",
    async (signal) => {
      const parent = await mkdtemp(path.join(tmpdir(), "cafe-stuck-"));
      const out = path.join(parent, "dist");
      const content = path.join(parent, "content");
      await cp(fixture("basic"), content, { recursive: true });
      const build = cliBuild(content, out);
      const first = build();
      expect(await first.exited, await first.output).toEqual({ code: 0, signal: null });
      const before = await siteFiles(out);
      await writeFile(path.join(content, "articles/lento.md"), STUCK_ARTICLE);

      const stuck = build();
      onTestFinished(() => void (stuck.child.exitCode === null && stuck.child.signalCode === null && stuck.child.kill("SIGKILL")));
      await stuck.said("Building ");
      // The build's thread is busy parsing (nothing else in a three-article build takes a second of work): a JavaScript listener could not run now.
      await busyFor(stuck.child.pid!, 1.5);
      stuck.child.kill(signal);
      // Were the signal held until the parse ended, this would wait minutes (the test's time runs out first).
      expect(await stuck.exited, await stuck.output).toEqual({ code: null, signal });
      expect(await stuck.output).not.toMatch(/Built \d+ pages/);
      expect(await siteFiles(out)).toEqual(before);

      // The next build takes over what the stopped one left (its lock, its half-made folder) without --force.
      await rm(path.join(content, "articles/lento.md"));
      await appendFile(path.join(content, "articles/primeiro.md"), "\nUm parágrafo novo.\n");
      const next = build();
      expect(await next.exited, await next.output).toEqual({ code: 0, signal: null });
      expect(await next.output).toMatch(/Built \d+ pages/);
      expect(await readFile(path.join(out, "primeiro.html"), "utf8")).toContain("Um parágrafo novo.");
      expect(await leftovers(parent)).toEqual(["content"]);
    },
    120_000,
  );

  it("Ctrl+C in the middle of writing a file of the author's waits for it to be whole, then ends the program; after it, Ctrl+C ends a busy program at once", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "cafe-held-"));
    const file = path.join(dir, "published-routes.txt");
    // A program that writes a file with signals held (a signal lands half-way) and then computes for ever.
    const program = (signalled: boolean) => `
      import { writeFile } from "node:fs/promises";
      const { withSignalsHeld } = await import(${JSON.stringify(signals())});
      await withSignalsHeld(async () => {
        await writeFile(${JSON.stringify(file)}, "half");
        ${signalled ? 'process.kill(process.pid, "SIGINT");' : ""}
        await new Promise((resolve) => setTimeout(resolve, 300));
        await writeFile(${JSON.stringify(file)}, "whole");
      });
      console.log("computing");
      for (;;);`;
    const run = (signalled: boolean) => {
      const child = spawn(process.execPath, ["--input-type=module", "-e", program(signalled)], { cwd: projectRoot, stdio: ["ignore", "pipe", "pipe"] });
      onTestFinished(() => void (child.exitCode === null && child.signalCode === null && child.kill("SIGKILL")));
      let output = "";
      child.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString()));
      child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
      const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; output: string }>((resolve) => child.on("close", (code, signal) => resolve({ code, signal, output })));
      return { child, exited, computing: () => new Promise<void>((resolve) => child.stdout!.on("data", () => output.includes("computing") && resolve())) };
    };
    const interrupted = run(true);
    expect(await interrupted.exited).toEqual({ code: null, signal: "SIGINT", output: "" });
    expect(await readFile(file, "utf8")).toBe("whole");
    // The step over, no listener is left behind: a signal ends the thread's endless work.
    const busy = run(false);
    await busy.computing();
    busy.child.kill("SIGTERM");
    expect(await busy.exited).toEqual({ code: null, signal: "SIGTERM", output: "computing\n" });
  });

  it("a build killed outright leaves the site as it was, and the next build sweeps its folder", async () => {
    const parent = await mkdtemp(path.join(tmpdir(), "cafe-killed-"));
    const out = path.join(parent, "dist");
    const first = new FolderWriter(out);
    await first.begin();
    expect((await buildSite({ contentDir: fixture("basic"), projectRoot, theme, writer: first })).ok).toBe(true);
    // What a SIGKILLed build leaves: its staging folder, named after a process that is gone.
    const dead = spawn(process.execPath, ["-e", ""]);
    const deadPid = await new Promise<number>((resolve) => dead.on("exit", () => resolve(dead.pid!)));
    await mkdir(path.join(parent, "dist.builds", `x1-${deadPid}`, "artigo"), { recursive: true });
    await writeFile(path.join(parent, "dist.builds", `x1-${deadPid}`, "index.html"), "half");
    expect(await readFile(path.join(out, "index.html"), "utf8")).not.toBe("half");

    const next = new FolderWriter(out);
    await next.begin();
    expect((await buildSite({ contentDir: fixture("basic"), projectRoot, theme, writer: next })).ok).toBe(true);
    expect(await leftovers(parent)).toEqual([]);
  }, 60_000);

  it.each(["staging", "written", "linked", "swapped", "cleaned"])(
    "a build killed at '%s' leaves a complete site at dist/, and the next build sweeps what it left",
    async (step) => {
      const parent = await mkdtemp(path.join(tmpdir(), "cafe-kill-step-"));
      const out = path.join(parent, "dist");
      // The first publication, from a plain folder (as sites built before the switch have).
      await mkdir(out);
      await writeFile(path.join(out, "index.html"), "the previous site");
      // Its up-to-date note says a build made it (a folder of other files is never replaced).
      await writeFile(path.join(out, ".cafe-build.json"), "{}\n");
      const build = (killAt = "") =>
        new Promise<number | null>((resolve) => {
          const child = spawn(process.execPath, [killBuild(), fixture("basic"), out, killAt], { cwd: projectRoot, stdio: "ignore" });
          child.on("exit", (code, signal) => resolve(signal === "SIGKILL" || code === 137 ? -9 : code));
        });
      expect(await build(step)).toBe(-9);
      const index = await readFile(path.join(out, "index.html"), "utf8");
      // Before the link is switched the old site is served; after it, the new one.
      if (["staging", "written", "linked"].includes(step)) expect(index).toBe("the previous site");
      else expect(index).toMatch(/^<!DOCTYPE html>/);
      expect(await build()).toBe(0);
      expect(await readFile(path.join(out, "index.html"), "utf8")).toMatch(/^<!DOCTYPE html>/);
      expect(await leftovers(parent)).toEqual([]);
    },
    60_000,
  );
});

/**
 * `cafe build --content <content> --out <out>` as a process of its own: what it printed, and how it ended.
 */
function cliBuild(content: string, out: string) {
  return () => {
    const child = spawn(process.execPath, ["engine/launch.mjs", "build", "--content", content, "--out", out], { cwd: projectRoot, stdio: ["ignore", "pipe", "pipe"] });
    let text = "";
    const waiting: { line: string; resolve: () => void }[] = [];
    const take = (chunk: Buffer) => {
      text += chunk.toString();
      for (const w of waiting.filter((w) => text.includes(w.line))) w.resolve();
    };
    child.stdout!.on("data", take);
    child.stderr!.on("data", take);
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on("close", (code, signal) => resolve({ code, signal })));
    const output = exited.then(() => text);
    return {
      child,
      exited,
      output,
      said: (line: string) =>
        new Promise<void>((resolve, reject) => {
          if (text.includes(line)) return resolve();
          waiting.push({ line, resolve });
          void exited.then(() => reject(new Error(`the build ended before it said "${line}":\n${text}`)));
        }),
    };
  };
}

/** Every file of a published site with its bytes, as a value to compare. */
async function siteFiles(dir: string): Promise<Record<string, string>> {
  const files: Record<string, string> = {};
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) files[path.relative(dir, path.join(entry.parentPath, entry.name))] = comparable(await readFile(path.join(entry.parentPath, entry.name)))!;
  }
  return files;
}

/**
 * What an interrupted build could leave beside the published site: anything but the live
 * folder, the standby build folder (it holds what its record says: the next build starts
 * from it) and the two records.
 */
async function leftovers(parent: string): Promise<string[]> {
  const builds = path.join(parent, "dist.builds");
  const current = await realpath(path.join(parent, "dist")).catch(() => undefined);
  const names = await readdir(builds).catch(() => [] as string[]);
  const kept = (name: string) => /^[ab]\.json$/.test(name) || (/^[ab]$/.test(name) && names.includes(`${name}.json`));
  const inBuilds = names.filter((name) => path.join(builds, name) !== current && !kept(name));
  const beside = (await readdir(parent)).filter((name) => name !== "dist" && name !== "dist.builds");
  return [...beside, ...inBuilds.map((name) => `dist.builds/${name}`)];
}
