/**
 * Work a rebuild of the real site did that no result needed (issue 37, the real site's one-article
 * edit): each found in a CPU profile of `npm run build` after one article was edited. What the
 * author sees is the same; these tests show the work is no longer done.
 */
import { describe, expect, it } from "vitest";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { fixture } from "./helpers.js";
import { loadContent } from "../engine/stages/load/content.js";
import { checkTheme } from "../engine/theme-check.js";
import { theme } from "../templates/theme.js";

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
