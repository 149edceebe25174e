/**
 * Plain data between stages: everything a stage takes and returns survives `structuredClone`
 * (what a worker thread or a stored cache entry sees), so a build whose every hand-over
 * (and the record each run hands to the next) goes through `structuredClone` writes the same
 * bytes as one that hands the values over as they are. No module keeps state of its own.
 */
import { describe, expect, it } from "vitest";
import { readdirSync, readFileSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { SiteBuilder, type BuildOptions } from "../engine/pipeline/site-builder.js";
import { MemoryWriter } from "../engine/stages/write/writers.js";
import { notebook } from "./fixtures/notebook/theme/theme.js";
import { theme } from "../templates/theme.js";
import { comparable, editedFixture, fixture, projectRoot, testCode } from "./helpers.js";
import { formatError } from "../engine/lib/errors.js";

async function bothWays(options: Omit<BuildOptions, "cloneBetweenStages">, edit?: { file: string; text: (before: string) => string }) {
  const sites = [];
  for (const cloneBetweenStages of [false, true]) {
    const writer = new MemoryWriter();
    const builder = new SiteBuilder({ codeVersion: testCode(), ...options, cloneBetweenStages, publishedRoutes: false });
    const result = await builder.build(writer);
    expect(result.errors.map(formatError)).toEqual([]);
    if (edit) {
      // Watch mode: the next run starts from the record the first one handed on.
      const before = readFileSync(edit.file, "utf8");
      await writeFile(edit.file, edit.text(before));
      const again = await builder.update([edit.file], writer);
      expect(again.errors.map(formatError)).toEqual([]);
      expect(again.rendered).toBeGreaterThan(0);
      await writeFile(edit.file, before);
    }
    sites.push(writer);
  }
  const [direct, cloned] = sites as [MemoryWriter, MemoryWriter];
  expect([...cloned.files.keys()].sort()).toEqual([...direct.files.keys()].sort());
  for (const [file, data] of direct.files) expect(comparable(cloned.files.get(file)), file).toEqual(comparable(data));
  return direct;
}

describe("stages hand over plain data", () => {
  it("the real site: the same bytes when every hand-over is a structured clone", async () => {
    const site = await bothWays({ contentDir: path.join(projectRoot, "content"), projectRoot, theme });
    expect(site.files.size).toBeGreaterThan(30);
  }, 120_000);

  it("the images fixture (pictures, covers): the same bytes", async () => {
    const dir = fixture("images");
    await bothWays({ contentDir: path.join(dir, "content"), publicDir: path.join(dir, "public"), projectRoot, theme });
  }, 120_000);

  it("the notebook, a second theme, with an article edited in watch mode: the same bytes", async () => {
    const dir = await editedFixture("notebook", {});
    const file = path.join(dir, "content/articles/notes/margins.md");
    await bothWays({ contentDir: path.join(dir, "content"), projectRoot: dir, theme: notebook }, { file, text: (t) => `${t}\nOne more line.\n` });
  }, 120_000);
});

describe("what a stage finds wrong is plain data too", () => {
  it("a build with errors reports the same errors, file, line and hint, when every hand-over is a structured clone", async () => {
    const dir = await editedFixture("notebook", {
      "content/articles/notes/margins.md": (s) => `${s.replace(/^title: .*$/m, "titel: Margins")}\n[nowhere](/notes/nowhere)\n`,
      "content/articles/notes/reading-slowly.md": (s) => `${s}\n[again](/notes/nowhere-else)\n`,
    });
    const reports = [];
    for (const cloneBetweenStages of [false, true]) {
      const result = await new SiteBuilder({ codeVersion: testCode(), contentDir: path.join(dir, "content"), projectRoot: dir, theme: notebook, cloneBetweenStages, publishedRoutes: false }).build(new MemoryWriter());
      expect(result.ok).toBe(false);
      reports.push(result.errors.map((e) => [e.location, e.message, e.hint, formatError(e)]));
    }
    expect(reports[0]!.length).toBeGreaterThanOrEqual(2);
    expect(reports[1]).toEqual(reports[0]);
  });
});

describe("no module keeps state of its own", () => {
  it("has no module-level `let` and no module-level Map, Set or WeakMap that starts empty", () => {
    const found: string[] = [];
    for (const entry of readdirSync(path.join(projectRoot, "engine"), { recursive: true, withFileTypes: true })) {
      if (!entry.isFile() || !/\.(ts|tsx|mjs)$/.test(entry.name)) continue;
      const file = path.relative(projectRoot, path.join(entry.parentPath, entry.name));
      readFileSync(path.join(projectRoot, file), "utf8")
        .split("\n")
        .forEach((line, i) => {
          if (/^(export )?let /.test(line) || /^(export )?const \w+(: [^=]+)? = new (Weak)?(Map|Set)(<[^>]*>)?\(\)/.test(line)) found.push(`${file}:${i + 1}: ${line.trim()}`);
        });
    }
    expect(found).toEqual([]);
  });
});
