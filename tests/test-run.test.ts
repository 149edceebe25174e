/**
 * The test run itself (issue 40, point 16): the unit files run on every core, each worker with
 * an engine cache of its own, and the real site is built again only when something it is
 * built from changed (tests/global-setup.ts, tests/setup-unit-worker.ts).
 */
import { afterEach, beforeEach, describe, expect, inject, it, vi } from "vitest";
import { existsSync, readdirSync } from "node:fs";
import { appendFile, cp, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { keepMedia, keepSite, keptDir, keptSite, keepWorkerMedia, siteInputs } from "./global-setup.js";
import { workerTag } from "./media-use.js";

/** An entry of a media cache (a folder with its manifest), made at `folder`. */
async function entry(folder: string): Promise<string> {
  await mkdir(folder, { recursive: true });
  await writeFile(path.join(folder, "manifest.json"), JSON.stringify({ meta: {}, files: [] }));
  return folder;
}

describe("a unit worker", () => {
  it("builds with an engine cache of its own, which starts with the run's (the real site's cards and fonts)", () => {
    const run = inject("runCache");
    const own = process.env.CAFE_CACHE_DIR!;
    expect(own).not.toBe(run.cacheDir);
    expect(path.dirname(own)).toBe(run.workersDir);
    expect(path.basename(own)).toBe(`worker-${workerTag()}`);
    for (const kind of ["cards", "fonts"]) {
      const theRuns = readdirSync(path.join(run.cacheDir, kind));
      expect(theRuns.length).toBeGreaterThan(0);
      for (const entry of theRuns) expect(existsSync(path.join(own, kind, entry)), `${kind}/${entry}`).toBe(true);
    }
  });
});

describe("the media the unit workers used, kept from one run to the next", () => {
  it("keeps exactly the entries of the workers' caches their builds noted, and nothing when no worker noted any", async () => {
    const work = await mkdtemp(path.join(tmpdir(), "cafe-worker-media-"));
    const [project, workers] = [path.join(work, "project"), path.join(work, "workers")];
    const drawn = await entry(path.join(workers, "worker-11/cards/desenhado"));
    await entry(path.join(workers, "worker-11/cards/nao-usado"));
    // A worker of the threads pool (the DOM files' project) is named by its process and its thread.
    const encoded = await entry(path.join(workers, "worker-12-3/images/codificado"));
    const elsewhere = await entry(path.join(work, "a-tests-own-cache/cards/de-outro"));
    const kept = path.join(keptDir(project), "worker-media");
    const keptNow = () => readdirSync(kept, { recursive: true }).map(String).filter((f) => f.endsWith("manifest.json")).sort();

    // No worker noted anything (a run of the integration tests alone): nothing is kept, nothing removed.
    await keepWorkerMedia(project, workers);
    expect(existsSync(kept)).toBe(false);
    await writeFile(path.join(workers, "used-11.txt"), `${drawn}\n${elsewhere}\n${drawn}\n${path.join(workers, "worker-11/cards/apagado")}\n`);
    await writeFile(path.join(workers, "used-12-3.txt"), `${encoded}\n`);
    await keepWorkerMedia(project, workers);
    expect(keptNow()).toEqual(["cards/desenhado/manifest.json", "images/codificado/manifest.json"]);

    // The next run used one of them only: the other is gone.
    await rm(path.join(workers, "used-12-3.txt"));
    await keepWorkerMedia(project, workers);
    expect(keptNow()).toEqual(["cards/desenhado/manifest.json"]);
  });
});

describe("the media the real site's build used, kept from one run to the next", () => {
  it("keeps exactly the entries its build read or stored, not the others the run's cache started with (but every cut font)", async () => {
    const work = await mkdtemp(path.join(tmpdir(), "cafe-site-media-"));
    const [project, cache] = [path.join(work, "project"), path.join(work, "cache")];
    const drawn = await entry(path.join(cache, "cards/desenhado"));
    const read = await entry(path.join(cache, "assets/lido"));
    // Kept by an earlier run for code of another version: the cache starts with them, the build does not read them.
    await entry(path.join(cache, "cards/de-outra-versao"));
    await entry(path.join(cache, "assets/antigo"));
    // Not read by a build whose assets came from their cache, needed by the next that bundles them.
    await entry(path.join(cache, "fonts/cortada"));
    const elsewhere = await entry(path.join(work, "outro-cache/cards/de-outro"));
    await keepMedia(project, cache, new Set([drawn, read, elsewhere, path.join(cache, "cards/apagado")]));
    const kept = path.join(keptDir(project), "media");
    expect(readdirSync(kept, { recursive: true }).map(String).filter((f) => f.endsWith("manifest.json")).sort()).toEqual(["assets/lido/manifest.json", "cards/desenhado/manifest.json", "fonts/cortada/manifest.json"]);
  });
});

describe("the real site kept from one run to the next", () => {
  // What a run that is not cold does (keptSite reads CAFE_TEST_COLD): under CAFE_TEST_COLD=1 the
  // run's own setting made every kept site unusable, so "is copied whole" failed and the tests of
  // when it is built again passed whatever keptSite did. The run's setting is given back after each.
  beforeEach(() => {
    vi.stubEnv("CAFE_TEST_COLD", undefined);
  });
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  /** A small project (a file of each kind a build reads) and a built site to keep: one page is enough to tell them apart. */
  async function setUp() {
    const work = await mkdtemp(path.join(tmpdir(), "cafe-kept-site-"));
    const project = path.join(work, "project");
    const files: Record<string, string> = {
      "content/articles/artigo-transicao.md": "---\ntitle: Transição\n---\n\nTexto.\n",
      "content/site.yaml": "title: Café\n",
      "public/robots.txt": "User-agent: *\n",
      "templates/theme.tsx": "export const theme = {};\n",
      "client/carousel.ts": "export {};\n",
      "engine/pipeline/site-builder.ts": "export {};\n",
      "package.json": "{}\n",
      "node_modules/.package-lock.json": "{}\n",
    };
    for (const [file, text] of Object.entries(files)) {
      await mkdir(path.dirname(path.join(project, file)), { recursive: true });
      await writeFile(path.join(project, file), text);
    }
    const built = path.join(work, "built");
    await mkdir(path.join(built, "artigo"), { recursive: true });
    await writeFile(path.join(built, "index.html"), "<!doctype html><title>Início</title>");
    await writeFile(path.join(built, "artigo/um.html"), "<!doctype html><title>Um</title>");
    const site = { dir: built, routes: [{ path: "/", outFile: "index.html", kind: "home" }], errors: [], warnings: ["warning content/articles/um.md:2: a link to /um loses text when shared"] };
    const inputs = await siteInputs(project);
    await keepSite(project, inputs, site);
    let copies = 0;
    // As the setup asks: with the hash of the inputs as they are now.
    const copy = async () => keptSite(project, await siteInputs(project), path.join(work, `copy-${++copies}`));
    return { project, inputs, site, copy };
  }

  it("is copied whole into the run when nothing it is built from changed", async () => {
    const { project, inputs, site, copy } = await setUp();
    expect(await siteInputs(project)).toBe(inputs);
    const kept = await copy();
    expect(kept?.routes).toEqual(site.routes);
    expect(kept?.errors).toEqual([]);
    expect(kept?.warnings).toEqual(site.warnings);
    expect(await readFile(path.join(kept!.dir, "artigo/um.html"), "utf8")).toBe("<!doctype html><title>Um</title>");
    expect(await readFile(path.join(kept!.dir, "index.html"), "utf8")).toBe("<!doctype html><title>Início</title>");
  });

  it.each([
    ["an article", "content/articles/artigo-transicao.md"],
    ["a data file", "content/site.yaml"],
    ["a template", "templates/theme.tsx"],
    ["a module of the engine", "engine/pipeline/site-builder.ts"],
    ["a script of the client", "client/carousel.ts"],
    ["the libraries installed (npm's record of them)", "node_modules/.package-lock.json"],
    ["the settings of the project", "package.json"],
    ["a file of public/", "public/robots.txt"],
  ])("is built again after an edit to %s (%s)", async (_, file) => {
    const { project, copy } = await setUp();
    await appendFile(path.join(project, file), "\n");
    expect(await copy()).toBeUndefined();
  });

  it("is built again after a new file in the content, and for CAFE_TEST_COLD=1", async () => {
    const { project, copy } = await setUp();
    vi.stubEnv("CAFE_TEST_COLD", "1");
    expect(await copy()).toBeUndefined();
    vi.stubEnv("CAFE_TEST_COLD", undefined);
    expect(await copy()).toBeDefined();
    await writeFile(path.join(project, "content/articles/novo.md"), "---\ntitle: Novo\n---\n\nTexto.\n");
    expect(await copy()).toBeUndefined();
  });

  it("is one per project folder: a worktree whose node_modules is a link to another checkout's keeps its own, and a gone folder's is removed", async () => {
    const { project, site, copy } = await setUp();
    // Another checkout of the project at other content, sharing this one's node_modules (as a git worktree set up with a link).
    const other = path.join(path.dirname(project), "worktree");
    await cp(project, other, { recursive: true, filter: (from) => !from.includes(`${path.sep}node_modules`) });
    await symlink(path.join(project, "node_modules"), path.join(other, "node_modules"));
    await appendFile(path.join(other, "content/articles/artigo-transicao.md"), "Outro texto.\n");
    await keepSite(other, await siteInputs(other), site);
    expect(keptDir(other)).not.toBe(keptDir(project));
    // Its run did not replace this one's kept site.
    expect(await copy()).toBeDefined();
    expect(await keptSite(other, await siteInputs(other), path.join(path.dirname(project), "copy-other"))).toBeDefined();
    // The worktree removed: the next site kept removes what was kept for it.
    await rm(other, { recursive: true });
    await keepSite(project, await siteInputs(project), site);
    expect(readdirSync(path.dirname(keptDir(project)))).toEqual([path.basename(keptDir(project))]);
  });

  it("is built again when what was kept is damaged or half gone, and never throws", async () => {
    const { project, copy } = await setUp();
    const kept = path.join(keptDir(project), "real-site");
    await rm(path.join(kept, "dist", "artigo"), { recursive: true });
    await rm(path.join(kept, "dist", "index.html"));
    expect(await copy()).toBeUndefined();
    await writeFile(path.join(kept, "site.json"), "{ not json");
    expect(await copy()).toBeUndefined();
  });
});

describe("what a test run must leave as it found it", () => {
  it("counts the engine's cache of the project's own node_modules, not that of another checkout its node_modules links to", async () => {
    const { projectState, stateChanges } = await import("./project-state.js");
    const dir = await mkdtemp(path.join(tmpdir(), "cafe-state-"));
    try {
      const other = path.join(dir, "main");
      const worktree = path.join(dir, "worktree");
      const own = path.join(dir, "own");
      await mkdir(path.join(other, "node_modules/.cache/engine"), { recursive: true });
      await mkdir(worktree, { recursive: true });
      await symlink(path.join(other, "node_modules"), path.join(worktree, "node_modules"), "dir");
      await mkdir(path.join(own, "node_modules/.cache/engine"), { recursive: true });
      const before = [projectState(worktree), projectState(own)];
      // The other checkout builds meanwhile; this project's own build writes its cache.
      await writeFile(path.join(other, "node_modules/.cache/engine/record.json"), "{}");
      await writeFile(path.join(own, "node_modules/.cache/engine/record.json"), "{}");
      expect(stateChanges(before[0]!, projectState(worktree))).toEqual([]);
      const changes = stateChanges(before[1]!, projectState(own));
      expect(changes).toHaveLength(1);
      expect(changes[0]).toMatch(/^node_modules\/\.cache\/engine\/record\.json: added/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
