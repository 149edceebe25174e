/**
 * Issue 38: what the build cache keeps of an article that is gone. Its entry in the store's
 * `files` (its front matter, body, headings, links) was kept for ever: every later build read it,
 * held it and wrote it again, and a site whose articles come and go grew a store of the dead.
 */
import { describe, expect, it } from "vitest";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { editedFixture, projectRoot, testCode } from "./helpers.js";
import { SiteBuilder } from "../engine/pipeline/site-builder.js";
import { openSiteCache } from "../engine/pipeline/build-record.js";
import { MemoryWriter } from "../engine/stages/write/writers.js";
import { theme } from "../templates/theme.js";

/** A command-line build: a new builder over the cache folder, as `npm run build` opens it. */
async function commandLineBuild(dir: string, cacheDir: string, writer: MemoryWriter) {
  const builder = new SiteBuilder({ codeVersion: testCode(), contentDir: dir, projectRoot, theme, cache: await openSiteCache(cacheDir, testCode()) });
  try {
    return await builder.build(writer);
  } finally {
    await builder.close();
  }
}

describe("the build cache and a deleted article", () => {
  it("keeps no entry of an article that is gone, and still builds the others from the cache", async () => {
    const extra = "---\ntitle: Um artigo que vai embora\n---\n\nTexto do artigo que vai embora.\n";
    const dir = await editedFixture("basic", { "articles/vai-embora.md": extra });
    const cacheDir = await mkdtemp(path.join(tmpdir(), "cafe-removed-article-"));
    // One output folder for every build, as a blog's `dist`.
    const writer = new MemoryWriter();
    try {
      expect((await commandLineBuild(dir, cacheDir, writer)).ok).toBe(true);
      const named = async () => [...(await openSiteCache(cacheDir, testCode())).files.keys()].filter((file) => file.includes("vai-embora"));
      expect(await named()).toHaveLength(1);

      await rm(path.join(dir, "articles/vai-embora.md"));
      // ...and its address let go (deleted from the record of published addresses).
      const published = path.join(dir, "published-routes.txt");
      await writeFile(published, (await readFile(published, "utf8")).replace("/vai-embora\n", ""));
      const after = await commandLineBuild(dir, cacheDir, writer);
      expect(after.ok, JSON.stringify(after.errors)).toBe(true);
      expect(await named()).toEqual([]);
      // The articles that stayed are still the cache's: an edit of nothing renders no page.
      const again = await commandLineBuild(dir, cacheDir, writer);
      expect(again.ok).toBe(true);
      expect(again.rendered).toBe(0);

      // Written again, it is an article like any other.
      await writeFile(path.join(dir, "articles/vai-embora.md"), extra);
      expect((await commandLineBuild(dir, cacheDir, writer)).ok).toBe(true);
      expect(await named()).toHaveLength(1);
    } finally {
      await rm(cacheDir, { recursive: true, force: true });
      await rm(dir, { recursive: true, force: true });
    }
  });
});
