/**
 * Work a rebuild of the real site did that no result needed (issue 37, the real site's one-article
 * edit): each found in a CPU profile of `npm run build` after one article was edited. What the
 * author sees is the same; these tests show the work is no longer done.
 */
import { describe, expect, it } from "vitest";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { fixture, projectRoot } from "./helpers.js";
import { loadContent } from "../engine/stages/load/content.js";
import { checkTheme } from "../engine/theme-check.js";
import { titleLine } from "../engine/stages/checks/checks.js";
import { locate } from "../engine/lib/yaml-source.js";
import { theme } from "../templates/theme.js";
import { poolBeforeLoad } from "../engine/pipeline/threads.js";

describe("a rebuild does no work its result does not need", () => {
  // A guard of what the author reads (the placeholders are now located by the parse site.yaml was
  // loaded with, no longer by a parse of their own each): passes before and after.
  it("site.yaml's placeholder addresses are warned of at the lines their keys are on", async () => {
    const dir = fixture("basic");
    const site = await readFile(path.join(dir, "site.yaml"), "utf8");
    const { warnings } = await loadContent(dir, theme);
    const placeholders = warnings.filter((w) => /is still a placeholder/.test(w.message));
    expect(placeholders.length).toBeGreaterThanOrEqual(2);
    // Each at the line its key is written on.
    const lines = site.split("\n");
    for (const warning of placeholders) {
      const key = /`([^`]+)`/.exec(warning.message)![1]!.split(".").at(-1)!;
      expect(lines[warning.line! - 1]).toMatch(new RegExp(`^\\s*${key}:`));
    }
  });

  it("the theme check of a theme without mistakes does not read where the theme was declared (a stack formatted through the source maps)", () => {
    let read = 0;
    const watched = Object.create(theme, {
      [Symbol.for("cafe-engine.theme.defined-at")]: {
        get: () => {
          read++;
          return undefined;
        },
      },
    });
    expect(checkTheme(watched, path.resolve("."))).toEqual([]);
    expect(read).toBe(0);
    // A mistake still reads it (to name the line of the theme's code).
    const broken = Object.create(watched, { templates: { value: {} } });
    expect(checkTheme(broken, path.resolve(".")).length).toBeGreaterThan(0);
    expect(read).toBeGreaterThan(0);
  });
});

describe("the line of an article's title, for a warning about it (found without parsing the front matter again)", () => {
  const at = (source: string) => titleLine({ file: "x.md", source, format: "front-matter" });
  const parsed = (source: string) => locate({ file: "x.md", source, format: "front-matter" }, ["title"])?.line;

  it("is the line the YAML parser gives, however the title is written", () => {
    const cases = [
      "---\ntitle: Um título\ndate: 2025-01-02\n---\n\nTexto.\n",
      "---\ndate: 2025-01-02\n# title: comentado\ntitle: 'Entre aspas: sim'\n---\n\ntitle: no corpo\n",
      "---\ndate: 2025-01-02\ntitle:\n  Na linha seguinte\n---\n\nTexto.\n",
      "---\ntitle: >-\n  Em bloco,\n  dobrado\n---\n\nTexto.\n",
      '---\n"title": Chave entre aspas\n---\n\nTexto.\n',
      "---\r\ntags: [a, b]\r\ntitle: Com CRLF\r\n---\r\n\r\nTexto.\r\n",
    ];
    for (const source of cases) expect(at(source), source).toBe(parsed(source));
  });

  it("is the parser's line for every article of the real site", async () => {
    const { content } = await loadContent(path.join(projectRoot, "content"), theme);
    for (const article of content!.articles) expect(titleLine(article), article.file).toBe(locate(article, ["title"])?.line);
  });
});

describe("the worker pool of a rebuild", () => {
  it("a build whose cache holds the articles starts no worker before a stage has enough to hand out (a one-article edit of 100,000 had a worker load the code for nothing)", () => {
    // Cold (a first build, --force, new code): the workers load the code while the content is read.
    expect(poolBeforeLoad({ cachedFiles: 0 })).toBe(true);
    // Warm: started by the stage that has enough entries (a template edit's pages), if any does.
    expect(poolBeforeLoad({ cachedFiles: 100_000 })).toBe(false);
    // --threads N: the pool starts with the builder, as the command says.
    expect(poolBeforeLoad({ cachedFiles: 100_000, asked: 2 })).toBe(true);
  });
});
