/**
 * The rendered-link check of a rebuild (issue 38): a page taken as it was from the last build
 * is not checked again unless a page it links to came, went or changed its ids. What the
 * author reads must not change: each rebuild here reports what a build from scratch of the
 * same content reports, at the same file and line.
 */
import { describe, expect, it } from "vitest";
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { editedFixture, projectRoot, testCode } from "./helpers.js";
import { SiteBuilder } from "../engine/pipeline/site-builder.js";
import { openSiteCache } from "../engine/pipeline/build-record.js";
import { FolderWriter } from "../engine/stages/write/writers.js";
import { formatWarning } from "../engine/lib/errors.js";
import { theme } from "../templates/theme.js";

/** A command-line build into `out`: a new builder over the cache folder (none: a build from scratch), as `npm run build` opens it. */
async function build(dir: string, out: string, cacheDir?: string, { force = false } = {}) {
  const writer = new FolderWriter(out);
  await writer.begin();
  const builder = new SiteBuilder({ codeVersion: testCode(), contentDir: dir, projectRoot, theme, cache: cacheDir ? await openSiteCache(cacheDir, testCode(), { read: !force }) : undefined });
  try {
    return await builder.build(writer);
  } catch (error) {
    // As the command does when a build throws: nothing published, the folder's lock given back.
    await writer.abort();
    throw error;
  } finally {
    await builder.close();
  }
}

/** What the author reads of a build: whether it succeeded, its errors at their places, its warnings. */
const said = (result: Awaited<ReturnType<typeof build>>) => ({
  ok: result.ok,
  errors: result.errors.map((e) => `${e.location}: ${e.message}`),
  warnings: result.warnings.map(formatWarning),
});

/** The same content built from scratch into another folder, with no cache. */
async function fromScratch(dir: string) {
  const out = path.join(await mkdtemp(path.join(tmpdir(), "cafe-scratch-")), "dist");
  try {
    return said(await build(dir, out));
  } finally {
    await rm(path.dirname(out), { recursive: true, force: true });
  }
}

const TARGET = "---\ntitle: Alvo\n---\n\n## Parte um\n\nTexto do alvo.\n";
const READER = "---\ntitle: Leitor\n---\n\nVeja [a parte](/guia/alvo#parte-um) do alvo.\n";
/** A title X cuts when shared (a warning of a page every rebuild here keeps). */
const LONG = `---\ntitle: ${"Um título longo demais para ser compartilhado inteiro ".repeat(2).trim()}\n---\n\nTexto.\n`;

describe("a rebuild's check of the pages it kept", () => {
  /** The site built once with its cache, then edited and built again over that cache for each edit; and the last content built from scratch. */
  async function afterEdit(...edits: ((dir: string) => Promise<void>)[]) {
    const dir = await editedFixture("basic", { "articles/guia/alvo.md": TARGET, "articles/guia/leitor.md": READER, "articles/guia/longo.md": LONG });
    const root = await mkdtemp(path.join(tmpdir(), "cafe-kept-links-"));
    const out = path.join(root, "dist");
    const cacheDir = path.join(root, "cache");
    try {
      let result = await build(dir, out, cacheDir);
      for (const edit of edits) {
        expect(result.ok).toBe(true);
        await edit(dir);
        result = await build(dir, out, cacheDir);
      }
      return { result, again: said(result), scratch: await fromScratch(dir) };
    } finally {
      await Promise.all([rm(root, { recursive: true, force: true }), rm(dir, { recursive: true, force: true })]);
    }
  }

  it("an edit that removes an id a kept page links to reports the broken link at the kept page's line, as a build from scratch does", async () => {
    const { again, scratch } = await afterEdit((dir) => writeFile(path.join(dir, "articles/guia/alvo.md"), TARGET.replace("## Parte um", "## Parte dois")));
    expect(again.errors).toEqual([expect.stringMatching(/guia\/leitor\.md:5:\d+: broken link: \/guia\/alvo has no element with the id #parte-um$/)]);
    expect(again).toEqual(scratch);
  });

  // The store keeps a page's links and ids apart, read for the pages a build checks: the save of
  // the first rebuild wrote the kept page's shard again, with its links.
  it("an id removed two rebuilds later is still reported at the kept page's line", async () => {
    const { again, scratch } = await afterEdit(
      (dir) => writeFile(path.join(dir, "articles/guia/longo.md"), `${LONG}\nMais texto.\n`),
      (dir) => writeFile(path.join(dir, "articles/guia/alvo.md"), TARGET.replace("## Parte um", "## Parte dois")),
    );
    expect(again.errors).toEqual([expect.stringMatching(/guia\/leitor\.md:5:\d+: broken link: \/guia\/alvo has no element with the id #parte-um$/)]);
    expect(again).toEqual(scratch);
  });

  // Also said before rendering (the Markdown's links, the published address): a guard.
  it("a removed page a kept page links to is reported at the kept page's line, as a build from scratch does", async () => {
    const { again, scratch } = await afterEdit((dir) => rm(path.join(dir, "articles/guia/alvo.md")));
    expect(again.ok).toBe(false);
    expect(again.errors).toContainEqual(expect.stringMatching(/guia\/leitor\.md:5:\d+: broken link: no page has the route \/guia\/alvo$/));
    expect(again).toEqual(scratch);
  });

  it("an edit that changes nothing a kept page links to reports what a build from scratch reports (the kept pages' warnings too)", async () => {
    const { result, again, scratch } = await afterEdit((dir) => writeFile(path.join(dir, "articles/guia/alvo.md"), `${TARGET}\nMais um parágrafo.\n`));
    // The long title's page was kept, not rendered again: its warning is the last check's.
    expect(result.rendered).toBeLessThan(result.routes.length);
    expect(again.warnings).toContainEqual(expect.stringMatching(/guia\/longo\.md:2: a link to \/guia\/longo loses text when shared/));
    expect(again).toEqual(scratch);
  });

  it("a damaged shard of the pages' links, found when the check reads it, stops the build with what to do; --force builds", async () => {
    const dir = await editedFixture("basic", { "articles/guia/alvo.md": TARGET, "articles/guia/leitor.md": READER });
    const root = await mkdtemp(path.join(tmpdir(), "cafe-kept-links-"));
    const out = path.join(root, "dist");
    const cacheDir = path.join(root, "cache");
    try {
      expect((await build(dir, out, cacheDir)).ok).toBe(true);
      const shard = path.join(cacheDir, (await readdir(cacheDir)).find((name) => name.startsWith("pages.late-"))!);
      await writeFile(shard, (await readFile(shard, "utf8")).replace('"parte-um"', '"outra"'));
      await writeFile(path.join(dir, "articles/guia/alvo.md"), TARGET.replace("## Parte um", "## Parte dois"));
      await expect(build(dir, out, cacheDir)).rejects.toThrow(/build cache's shard pages\.late-0\.[0-9a-f]+\.json is missing or damaged: run the build again with --force/);
      const forced = said(await build(dir, out, cacheDir, { force: true }));
      expect(forced.errors).toEqual([expect.stringMatching(/guia\/leitor\.md:5:\d+: broken link: \/guia\/alvo has no element with the id #parte-um$/)]);
    } finally {
      await Promise.all([rm(root, { recursive: true, force: true }), rm(dir, { recursive: true, force: true })]);
    }
  });
});
