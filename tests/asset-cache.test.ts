/**
 * The assets' content-addressed cache (engine/stages/assets/asset-cache.ts, issue 40 point
 * 16): a build of the same code from the same sources takes the bundle without running
 * esbuild; an edited script or stylesheet, or a new file an import now resolves to, bundles
 * again, and the output is what a build without any cache makes; a damaged entry is one
 * notice line and a new bundle. Each build here is a new builder with no last build to take
 * the assets from, as a command-line build after a clean or `cafe dev` started again is.
 */
import { randomUUID } from "node:crypto";
import { existsSync } from "node:fs";
import { cp, mkdir, mkdtemp, readdir, readFile, symlink, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SiteBuilder } from "../engine/pipeline/site-builder.js";
import { formatWarning } from "../engine/lib/errors.js";
import { KEPT } from "../engine/stages/assets/asset-cache.js";
import { MemoryWriter } from "../engine/stages/write/writers.js";
import { islandTheme } from "./fixtures/islands/theme/theme.js";
import { notebook } from "./fixtures/notebook/theme/theme.js";
import type { Theme } from "../engine/theme.js";
import { fixture, projectRoot } from "./helpers.js";

/** The islands fixture's theme (an island: the engine writes its entry, React is bundled) with a script that imports a module, and a stylesheet. */
const base = islandTheme({});
const islands: typeof base = { ...base, assets: { ...base.assets, entries: { main: "client/main.ts", styles: "client/styles.css" } } };
/** The notebook's theme (no island: a small bundle) with the same script beside its stylesheet. */
const plain: typeof notebook = { ...notebook, assets: { entries: { ...notebook.assets.entries, main: "client/main.ts" } } };
const themes = new Map<string, Theme>([["islands", islands], ["notebook", plain]]);

/** A copy of a fixture with the theme's client files; the islands' with the project's packages (React for the island). */
async function site(name: "islands" | "notebook" = "notebook"): Promise<string> {
  const root = await mkdtemp(path.join(tmpdir(), `cafe-asset-cache-${name}-`));
  await cp(fixture(name), root, { recursive: true });
  if (name === "islands") await symlink(path.join(projectRoot, "node_modules"), path.join(root, "node_modules"), "dir");
  await mkdir(path.join(root, "client"));
  await writeFile(path.join(root, "client/main.ts"), `import { greeting } from "./greeting.js";\ndocument.title = greeting("Cris");\n`);
  await writeFile(path.join(root, "client/greeting.ts"), `export const greeting = (name: string): string => \`Hello, \${name}\`;\n`);
  await writeFile(path.join(root, "client/styles.css"), `body { color: #333; }\n`);
  return root;
}

/** A build by a new builder (no last build): told a code version, it may use the cache. */
async function build(root: string, codeVersion?: string) {
  const writer = new MemoryWriter();
  const theme = themes.get(/cafe-asset-cache-(\w+)-/.exec(root)![1]!)!;
  const result = await new SiteBuilder({ contentDir: path.join(root, "content"), projectRoot: root, theme, publishedRoutes: false, codeVersion }).build(writer);
  expect(result.errors).toEqual([]);
  const files = new Map([...writer.files].map(([file, data]) => [file, Buffer.from(data).toString("utf8")]));
  const assets = new Map([...files].filter(([file]) => file.startsWith("assets/")));
  const pages = new Map([...files].filter(([file]) => file.endsWith(".html")));
  return { result, pages, assets, notices: result.warnings.filter((w) => w.notice).map(formatWarning) };
}

/** What a build without any cache makes of the same sources. */
const cold = async (root: string) => (await build(root)).assets;

describe("the assets' content-addressed cache", () => {
  // Each test with an engine cache of its own: what it finds there is what its builds stored.
  let cacheDir = "";
  const worker = process.env.CAFE_CACHE_DIR;
  beforeEach(async () => {
    cacheDir = await mkdtemp(path.join(tmpdir(), "cafe-asset-cache-engine-"));
    process.env.CAFE_CACHE_DIR = cacheDir;
  });
  afterEach(() => {
    process.env.CAFE_CACHE_DIR = worker;
  });
  /** The cache's entries: the bundles and the lists of what a recipe read. */
  const entries = async () => {
    const dir = path.join(cacheDir, "assets");
    return Promise.all((await readdir(dir)).map(async (name) => ({ name, meta: JSON.parse(await readFile(path.join(dir, name, "manifest.json"), "utf8")).meta as Record<string, unknown> })));
  };

  it("gives a second build of unchanged sources its bundle without esbuild, as a cold build makes it", async () => {
    const root = await site("islands");
    const code = randomUUID();
    const first = await build(root, code);
    expect(first.result.assets).toBe("bundled");
    expect([...first.assets.keys()].some((file) => /^assets\/main-\w+\.js$/.test(file))).toBe(true);
    expect([...first.assets.keys()].some((file) => /^assets\/islands-\w+\.js$/.test(file))).toBe(true);
    const second = await build(root, code);
    expect(second.result.assets).toBe("cached");
    expect(second.notices).toEqual([]);
    expect(second.assets).toEqual(first.assets);
    // Every page as well: the manifest (the entries' and the runtime's names) came with the bundle.
    expect(second.pages).toEqual(first.pages);
    expect(await cold(root)).toEqual(second.assets);
  });

  it("is used only by a build that knows its code's version, and by another version not at all", async () => {
    const root = await site();
    expect((await build(root)).result.assets).toBe("bundled");
    expect(existsSync(path.join(cacheDir, "assets"))).toBe(false);
    const code = randomUUID();
    await build(root, code);
    expect((await build(root, randomUUID())).result.assets).toBe("bundled");
    expect((await build(root, code)).result.assets).toBe("cached");
  });

  it("bundles again after an edit to a script, a module it imports or a stylesheet, as a cold build does", async () => {
    const root = await site();
    const code = randomUUID();
    await build(root, code);
    const edits: [string, string][] = [
      ["client/main.ts", `import { greeting } from "./greeting.js";\ndocument.title = greeting("Ana");\n`],
      ["client/greeting.ts", `export const greeting = (name: string): string => \`Oi, \${name}\`;\n`],
      ["theme/style.css", `${await readFile(path.join(root, "theme/style.css"), "utf8")}\nbody { color: #222; }\n`],
    ];
    let edited;
    for (const [file, text] of edits) {
      await writeFile(path.join(root, file), text);
      edited = await build(root, code);
      expect(edited.result.assets, file).toBe("bundled");
      expect([...edited.assets.values()].join("\n")).toContain(/Ana|Oi|#222/.exec(text)![0]);
    }
    expect(edited!.assets).toEqual(await cold(root));
    // And the edited sources' bundle is then the one kept.
    expect((await build(root, code)).result.assets).toBe("cached");
  });

  it("bundles again when an import now resolves to a newly added file, though no file it read changed", async () => {
    const root = await site();
    const code = randomUUID();
    await build(root, code);
    expect((await build(root, code)).result.assets).toBe("cached");
    // `./greeting.js` was client/greeting.ts; a client/greeting.js beside it is what it names now.
    await writeFile(path.join(root, "client/greeting.js"), "export const greeting = (name) => `Bom dia, ${name}`;\n");
    const added = await build(root, code);
    expect(added.result.assets).toBe("bundled");
    expect([...added.assets.values()].join("\n")).toContain("Bom dia");
    expect(added.assets).toEqual(await cold(root));
  });

  it("bundles again when a package's own import now resolves to a file added in its folder", async () => {
    const root = await site();
    // A package of the site's own: its main requires ./lib/hello, a folder.
    const pkg = path.join(root, "node_modules/cafe-greeting");
    await mkdir(path.join(pkg, "lib/hello"), { recursive: true });
    await writeFile(path.join(pkg, "package.json"), `{ "name": "cafe-greeting", "version": "1.0.0", "main": "index.js" }\n`);
    await writeFile(path.join(pkg, "index.js"), `module.exports = require("./lib/hello");\n`);
    await writeFile(path.join(pkg, "lib/hello/index.js"), `module.exports = "Hello from a folder";\n`);
    await writeFile(path.join(root, "client/main.ts"), `import hello from "cafe-greeting";\ndocument.title = hello;\n`);
    const code = randomUUID();
    await build(root, code);
    expect((await build(root, code)).result.assets).toBe("cached");
    // ./lib/hello was the folder lib/hello/; a file lib/hello.js comes first: the package's files are as they were, its folder is not.
    await writeFile(path.join(pkg, "lib/hello.js"), `module.exports = "Hello from a file";\n`);
    const added = await build(root, code);
    expect(added.result.assets).toBe("bundled");
    expect([...added.assets.values()].join("\n")).toContain("Hello from a file");
    expect(added.assets).toEqual(await cold(root));
  });

  /** A package of the site's own in `folder`/node_modules, its main saying `text`. */
  const installed = async (folder: string, text: string, version = "1.0.0") => {
    const pkg = path.join(folder, "node_modules/cafe-greeting");
    await mkdir(pkg, { recursive: true });
    await writeFile(path.join(pkg, "package.json"), `{ "name": "cafe-greeting", "version": "${version}", "main": "index.js" }\n`);
    await writeFile(path.join(pkg, "index.js"), `module.exports = ${JSON.stringify(text)};\n`);
    return pkg;
  };

  /** Builds twice (the second takes the bundle, asking esbuild's resolver once), then makes a change; the next build must show it, as a cold build does. */
  async function staleAfter(root: string, change: () => Promise<void>, shows: string) {
    const code = randomUUID();
    await build(root, code);
    expect((await build(root, code)).result.assets).toBe("cached");
    expect((await build(root, code)).result.assets).toBe("cached");
    await change();
    const changed = await build(root, code);
    expect(changed.result.assets).toBe("bundled");
    expect([...changed.assets.values()].join("\n")).toContain(shows);
    expect(changed.assets).toEqual(await cold(root));
    expect((await build(root, code)).result.assets).toBe("cached");
  }

  it("bundles again when a folder an import names now has an index.ts before its index.js", async () => {
    const root = await site();
    await mkdir(path.join(root, "client/words"));
    await writeFile(path.join(root, "client/words/index.js"), `export const word = "from index.js";\n`);
    await writeFile(path.join(root, "client/main.ts"), `import { word } from "./words";\ndocument.title = word;\n`);
    await staleAfter(root, () => writeFile(path.join(root, "client/words/index.ts"), `export const word: string = "from index.ts";\n`), "from index.ts");
  });

  it("bundles again when the package an import names is installed closer to the script", async () => {
    const root = await site();
    await installed(root, "Hello from the site's package");
    await writeFile(path.join(root, "client/main.ts"), `import hello from "cafe-greeting";\ndocument.title = hello;\n`);
    await staleAfter(root, () => installed(path.join(root, "client"), "Hello from the client's package").then(() => {}), "Hello from the client's package");
  });

  it("bundles again when an installed package's new version names another main file", async () => {
    const root = await site();
    const pkg = await installed(root, "Hello from version 1");
    await writeFile(path.join(pkg, "next.js"), `module.exports = "Hello from version 2";\n`);
    await writeFile(path.join(root, "client/main.ts"), `import hello from "cafe-greeting";\ndocument.title = hello;\n`);
    // Only its package.json changes: the files the bundle read and the package's folder are as they were.
    const upgrade = () => writeFile(path.join(pkg, "package.json"), `{ "name": "cafe-greeting", "version": "2.0.0", "main": "next.js" }\n`);
    await staleAfter(root, upgrade, "Hello from version 2");
  });

  it("bundles again when the site's tsconfig sends an alias to another file", async () => {
    const root = await site();
    await writeFile(path.join(root, "client/words-a.ts"), `export const word: string = "alias A";\n`);
    await writeFile(path.join(root, "client/words-b.ts"), `export const word: string = "alias B";\n`);
    await writeFile(path.join(root, "client/main.ts"), `import { word } from "@words";\ndocument.title = word;\n`);
    const tsconfig = path.join(root, "tsconfig.json");
    const text = await readFile(tsconfig, "utf8");
    const aliased = (file: string) => text.replace(`"paths": {`, `"paths": { "@words": ["./client/${file}"],`);
    await writeFile(tsconfig, aliased("words-a.ts"));
    await staleAfter(root, () => writeFile(tsconfig, aliased("words-b.ts")), "alias B");
  });

  it("bundles again when a configuration esbuild reads beside the sources appears", async () => {
    const root = await site();
    const code = randomUUID();
    await build(root, code);
    await writeFile(path.join(root, "client/package.json"), `{ "sideEffects": false }\n`);
    expect((await build(root, code)).result.assets).toBe("bundled");
    expect((await build(root, code)).result.assets).toBe("cached");
  });

  it("ignores a damaged entry with one notice line, bundles again and stores it anew", async () => {
    const root = await site();
    const code = randomUUID();
    const first = await build(root, code);
    const bundles = (await entries()).filter(({ meta }) => "manifest" in meta);
    expect(bundles).toHaveLength(1);
    await writeFile(path.join(cacheDir, "assets", bundles[0]!.name, "0"), "damaged");
    const damaged = await build(root, code);
    expect(damaged.result.assets).toBe("bundled");
    expect(damaged.notices).toHaveLength(1);
    expect(damaged.notices[0]).toMatch(/^notice .*assets.*: this cached bundle of the assets was damaged and is not used: the assets are bundled again/);
    expect(damaged.assets).toEqual(first.assets);
    const healed = await build(root, code);
    expect(healed.result.assets).toBe("cached");
    expect(healed.notices).toEqual([]);
  });

  it("keeps the newest entries only", async () => {
    const root = await site();
    const dir = path.join(cacheDir, "assets");
    await mkdir(dir, { recursive: true });
    const old = new Date(Date.now() - 86_400_000);
    for (let i = 0; i < KEPT + 5; i++) {
      await mkdir(path.join(dir, `old-${i}`));
      await utimes(path.join(dir, `old-${i}`), old, old);
    }
    const code = randomUUID();
    await build(root, code);
    const left = await readdir(dir);
    expect(left).toHaveLength(KEPT);
    expect(left.filter((name) => !name.startsWith("old-"))).toHaveLength(2);
    expect((await build(root, code)).result.assets).toBe("cached");
  });
});
