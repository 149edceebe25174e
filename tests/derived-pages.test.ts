/**
 * Derived pages are not promises (issue 32): a theme declares the pages it makes from the
 * articles (the notebook's /tags/:tag). When the last note of a tag drops it, the tag's page
 * is retired with a notice, not an error, and the record of published addresses lets it go;
 * any other published address that nothing answers is still an error.
 */
import { describe, expect, it } from "vitest";
import path from "node:path";
import { readFile } from "node:fs/promises";
import { SiteBuilder } from "../engine/pipeline/site-builder.js";
import { MemoryWriter } from "../engine/stages/write/writers.js";
import { formatWarning } from "../engine/lib/errors.js";
import { notebook } from "./fixtures/notebook/theme/theme.js";
import { editedFixture, testCode } from "./helpers.js";

async function build(dir: string) {
  const writer = new MemoryWriter();
  // The notebook is a site of its own: its folder is its root.
  return new SiteBuilder({ codeVersion: testCode(), contentDir: path.join(dir, "content"), projectRoot: dir, theme: notebook }).build(writer);
}

const record = (dir: string) => readFile(path.join(dir, "content/published-routes.txt"), "utf8");

describe("a tag's page when its last note drops the tag", () => {
  it("is retired with a notice, and the record lets it go", async () => {
    const dir = await editedFixture("notebook", { "content/articles/notes/reading-slowly.md": (s) => s.replace("tags: [reading]\n", "") });
    expect(await record(dir)).toContain("/tags/reading\n");
    const result = await build(dir);
    expect(result.errors).toEqual([]);
    expect(result.ok).toBe(true);
    expect(result.routes.map((r) => r.path)).not.toContain("/tags/reading");
    const notices = result.warnings.filter((w) => w.notice).map(formatWarning);
    expect(notices).toEqual([expect.stringMatching(/^notice .*content\/published-routes\.txt:\d+: \/tags\/reading is retired: no article makes that page any more/)]);
    expect(result.retired).toEqual(["/tags/reading"]);
    expect(await record(dir)).not.toContain("/tags/reading");
    // Said once: the next build has nothing to retire.
    const again = await build(dir);
    expect(again.warnings.filter((w) => w.notice)).toEqual([]);
  });

  it("comes back, and is recorded again, when a note takes the tag up again", async () => {
    const dir = await editedFixture("notebook", { "content/articles/notes/reading-slowly.md": (s) => s.replace("tags: [reading]\n", "") });
    await build(dir);
    const { writeFile } = await import("node:fs/promises");
    await writeFile(path.join(dir, "content/articles/notes/margins.md"), "---\ntitle: Margins\ntags: [reading]\n---\n\n## What to write\n\nA question.\n");
    const result = await build(dir);
    expect(result.ok).toBe(true);
    expect(result.published).toEqual(["/tags/reading"]);
  });

  it("a page the theme does not derive is still a promise: a note removed is an error at its line", async () => {
    const dir = await editedFixture("notebook", { "content/articles/notes/margins.md": "---\ntitle: Margins\ndraft: true\n---\n\nGone.\n" });
    const result = await build(dir);
    expect(result.ok).toBe(false);
    expect(result.errors.map((e) => e.message)).toContain("/notes/margins was published and nothing answers it now");
    expect(result.warnings.filter((w) => w.notice)).toEqual([]);
  });
});
