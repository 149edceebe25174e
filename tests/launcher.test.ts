/**
 * The launcher (engine/launch.mjs) never runs old code: whatever file its bundle was made
 * from changes (a .cjs, .cts or .jsx module of the theme, a package in node_modules), the
 * next command runs the new code; a bundle damaged on disk is made again instead of failing
 * on every run; --force bundles again even when nothing it can see changed.
 *
 * Each test works on a copy of the project with a cache folder of its own, and reads what
 * an author would: the built page.
 */
import { describe, expect, it } from "vitest";
import { execFile } from "node:child_process";
import { appendFile, cp, mkdir, mkdtemp, readdir, readFile, rm, stat, symlink, truncate, unlink, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { fixture, projectCopy } from "./helpers.js";

const run = promisify(execFile);

/** A copy of the project whose footer shows a value from a .jsx, a .cts and a .cjs module and from a package in node_modules. */
async function instrumentedProject() {
  const project = await projectCopy();
  const cache = await mkdtemp(path.join(tmpdir(), "cafe-launcher-cache-"));
  await writeFile(path.join(project, "templates/extra.jsx"), 'export const fromJsx = "jsx-one";\n');
  await writeFile(path.join(project, "templates/extra.cts"), 'const value: string = "cts-one";\nmodule.exports = { fromCts: value };\n');
  await writeFile(path.join(project, "templates/extra.cjs"), 'module.exports = { fromCjs: "cjs-one" };\n');
  // A package of its own in the copy's node_modules (the others are links to the project's).
  const pkg = path.join(project, "node_modules/cafe-test-note");
  await mkdir(pkg);
  await writeFile(path.join(pkg, "package.json"), '{ "name": "cafe-test-note", "version": "1.0.0", "main": "index.js" }\n');
  await writeFile(path.join(pkg, "index.js"), 'module.exports = { fromPackage: "package-one" };\n');
  const footer = path.join(project, "templates/footer.tsx");
  const source = await readFile(footer, "utf8");
  await writeFile(
    footer,
    `import { fromJsx } from "./extra.jsx";\nimport cts from "./extra.cts";\nimport cjs from "./extra.cjs";\nimport note from "cafe-test-note";\n` +
      source.replace("<p>{footer.copyright}</p>", '<p>{footer.copyright}</p><p id="launcher-test">{[fromJsx, cts.fromCts, cjs.fromCjs, note.fromPackage].join(" ")}</p>'),
  );
  let builds = 0;
  /** `npm run build` into a new folder (no cache: the page is rendered by the code that runs), node given `node`'s flags; the footer's test line. */
  const buildWith = async (node: string[], ...flags: string[]) => {
    const out = path.join(project, `out-${++builds}`);
    const result = await run(process.execPath, [...node, "engine/launch.mjs", "build", "--content", fixture("basic"), "--out", out, "--no-cache", ...flags], {
      cwd: project,
      env: { ...process.env, CAFE_CACHE_DIR: cache, NO_COLOR: "1" },
    }).then(
      (r) => ({ code: 0, stderr: r.stderr }),
      (e: { code: number; stderr: string }) => ({ code: e.code, stderr: e.stderr }),
    );
    const html = await readFile(path.join(out, "primeiro.html"), "utf8").catch(() => "");
    return { ...result, line: /<p id="launcher-test">([^<]*)<\/p>/.exec(html)?.[1] };
  };
  const build = (...flags: string[]) => buildWith([], ...flags);
  return { project, cache, build, buildWith };
}

/** The files of the bundle made last, the biggest first (whatever the launcher calls them). */
async function bundleFiles(cache: string): Promise<string[]> {
  const all = (await readdir(cache, { recursive: true, withFileTypes: true }))
    .filter((e) => e.isFile() && e.name.endsWith(".js"))
    .map((e) => path.join(e.parentPath, e.name));
  const stats = await Promise.all(all.map(async (file) => ({ file, ...(await stat(file)) })));
  const newest = Math.max(...stats.map((s) => s.mtimeMs));
  // The files written with the newest one: the last bundle.
  return stats.filter((s) => newest - s.mtimeMs < 2000).sort((a, b) => b.size - a.size).map((s) => s.file);
}

describe("the launcher runs the code as it is now", () => {
  it("bundles again after an edit to a .jsx, .cts or .cjs module the theme imports, or to a package in node_modules", async () => {
    const { project, build } = await instrumentedProject();
    expect((await build()).line).toBe("jsx-one cts-one cjs-one package-one");
    const edits = [
      ["templates/extra.jsx", "jsx-one", "jsx-two-edited"],
      ["templates/extra.cts", "cts-one", "cts-two-edited"],
      ["templates/extra.cjs", "cjs-one", "cjs-two-edited"],
      // As patch-package or an `npm link` changes a package.
      ["node_modules/cafe-test-note/index.js", "package-one", "package-two-edited"],
    ] as const;
    let expected = "jsx-one cts-one cjs-one package-one";
    for (const [file, before, after] of edits) {
      const full = path.join(project, file);
      await writeFile(full, (await readFile(full, "utf8")).replace(before, after));
      expected = expected.replace(before, after);
      const result = await build();
      // Each edit on its own: one that the launcher missed is reported, and the next ones still checked.
      expect.soft(result.line, `after editing ${file}`).toBe(expected);
      expected = result.line ?? expected;
    }
  }, 120_000);

  it("makes a truncated or half-deleted bundle again instead of failing on every run", async () => {
    const { cache, build } = await instrumentedProject();
    expect((await build()).line).toBe("jsx-one cts-one cjs-one package-one");
    // Cut in half, as a full disk or a killed copy leaves it.
    const [biggest] = await bundleFiles(cache);
    await truncate(biggest!, Math.floor((await stat(biggest!)).size / 2));
    const afterTruncation = await build();
    expect(afterTruncation.stderr).not.toMatch(/SyntaxError/);
    expect(afterTruncation.code).toBe(0);
    expect(afterTruncation.line).toBe("jsx-one cts-one cjs-one package-one");
    // A file of the bundle gone.
    const files = await bundleFiles(cache);
    await unlink(files[files.length - 1]!);
    const afterDeletion = await build();
    expect(afterDeletion.code, afterDeletion.stderr).toBe(0);
    expect(afterDeletion.line).toBe("jsx-one cts-one cjs-one package-one");
  }, 120_000);

  it("does not trust a bundle record that lists nothing: later edits are run without --force", async () => {
    const { project, cache, build } = await instrumentedProject();
    expect((await build()).line).toBe("jsx-one cts-one cjs-one package-one");
    const records = (await readdir(cache, { recursive: true, withFileTypes: true })).filter((e) => e.isFile() && e.name === "bundle.json").map((e) => path.join(e.parentPath, e.name));
    expect(records.length).toBeGreaterThan(0);
    for (const record of records) {
      const manifest = JSON.parse(await readFile(record, "utf8"));
      await writeFile(record, JSON.stringify({ ...manifest, inputs: [], outputs: [] }));
    }
    const extra = path.join(project, "templates/extra.jsx");
    await writeFile(extra, (await readFile(extra, "utf8")).replace("jsx-one", "jsx-two-edited"));
    const result = await build();
    expect(result.code, result.stderr).toBe(0);
    expect(result.line).toBe("jsx-two-edited cts-one cjs-one package-one");
  }, 120_000);

  it("leaves zod's messages in other languages out of the bundle, unless the site's code names them", async () => {
    const { project, cache, build } = await instrumentedProject();
    const bundled = async () => (await Promise.all((await bundleFiles(cache)).map((file) => readFile(file, "utf8")))).join("\n");
    expect((await build()).line).toBe("jsx-one cts-one cjs-one package-one");
    // zod's Portuguese message for a wrong input, from its locales/pt.js ("Entrada inválida", as esbuild writes it: ASCII).
    const portuguese = "Entrada inv\\xE1lida";
    expect(await bundled()).not.toContain(portuguese);
    // A theme that asks for another language gets them all, and they work.
    await writeFile(path.join(project, "templates/extra.jsx"), 'import { z } from "zod";\nexport const fromJsx = `jsx-${typeof z.locales.pt}`;\n');
    const named = await build();
    expect(named.code, named.stderr).toBe(0);
    expect(named.line).toBe("jsx-function cts-one cjs-one package-one");
    expect(await bundled()).toContain(portuguese);
  }, 120_000);

  it("loads React's CommonJS packages with require, not through Node's ESM loader, and the pages still render with them", async () => {
    const { cache, build } = await instrumentedProject();
    expect((await build()).line).toBe("jsx-one cts-one cjs-one package-one");
    // Imported as ES modules, Node's loader parses each CommonJS file of react-dom/server for its
    // exports at every start (cjs-module-lexer); required, it only runs them. (The engine's own
    // text of an island's client entry, which imports React in the browser, is not an import.)
    const files = await bundleFiles(cache);
    const imports = (await Promise.all(files.map(async (file) => [...(await readFile(file, "utf8")).matchAll(/^(?:import|export)\b[^;`]*?\bfrom\s*"(react(?:-dom)?(?:\/[^"]*)?)";|\bimport\(\s*"(react(?:-dom)?(?:\/[^"]*)?)"\s*\)/gm)].map((m) => m[1] ?? m[2])))).flat();
    expect(imports).toEqual([]);
    expect((await Promise.all(files.map((file) => readFile(file, "utf8")))).join("\n")).toMatch(/require\("react\/jsx-runtime"\)/);
    // The graph of modules the pages are keyed by (beside the site's bundle) still sees a template's import of React as one of the package, and only modules that are files.
    const graph = JSON.parse(await readFile(path.join(path.dirname(files.find((file) => path.basename(file) === "site.js")!), "modules.json"), "utf8")) as {
      modules: Record<string, { imports: string[]; external?: string[]; unknown?: boolean }>;
    };
    expect(graph.modules["templates/footer.tsx"]).toMatchObject({ external: expect.arrayContaining(["react/jsx-runtime"]) });
    expect(Object.entries(graph.modules).filter(([file, m]) => file.startsWith("templates/") && m.unknown)).toEqual([]);
    expect(Object.entries(graph.modules).filter(([file, m]) => /^[a-z-]+:/.test(file) || m.imports.some((i) => /^[a-z-]+:/.test(i)))).toEqual([]);
  }, 120_000);

  it("bundles again with --force, even when an edit kept the file's size and time", async () => {
    const { project, build } = await instrumentedProject();
    // A time in whole seconds, which can be put back exactly.
    const file = path.join(project, "templates/extra.cjs");
    const then = new Date(Math.floor(Date.now() / 1000) * 1000 - 60_000);
    await utimes(file, then, then);
    expect((await build()).line).toBe("jsx-one cts-one cjs-one package-one");
    // Same size, and its time put back: nothing the launcher looks at changed.
    await writeFile(file, (await readFile(file, "utf8")).replace("cjs-one", "cjs-two"));
    await utimes(file, then, then);
    expect((await build()).line).toBe("jsx-one cts-one cjs-one package-one");
    expect((await build("--force")).line).toBe("jsx-one cts-one cjs-two package-one");
  }, 120_000);
});

describe("the engine is bundled once, apart from the site's code", () => {
  /** The engine's command line in the cache (whatever folder the launcher keeps it in): each file with its modification time. */
  const engineBundles = async (cache: string) =>
    Promise.all(
      (await readdir(cache, { recursive: true, withFileTypes: true }))
        .filter((e) => e.isFile() && e.name === "cli.js")
        .map(async (e) => `${path.join(e.parentPath, e.name)} ${(await stat(path.join(e.parentPath, e.name))).mtimeMs}`),
    );

  it("a template edited or the site's bundle removed runs the new code without making the engine's bundle again", async () => {
    const { project, cache, build } = await instrumentedProject();
    expect((await build()).line).toBe("jsx-one cts-one cjs-one package-one");
    const engine = await engineBundles(cache);
    expect(engine).toHaveLength(1);
    const extra = path.join(project, "templates/extra.jsx");
    await writeFile(extra, (await readFile(extra, "utf8")).replace("jsx-one", "jsx-two-edited"));
    expect((await build()).line).toBe("jsx-two-edited cts-one cjs-one package-one");
    expect(await engineBundles(cache)).toEqual(engine);
    // The site's bundles gone (each is a folder with a site.js): made again, the engine's kept.
    const sites = (await readdir(cache, { recursive: true, withFileTypes: true })).filter((e) => e.isFile() && e.name === "site.js");
    expect(sites.length).toBeGreaterThan(0);
    for (const e of sites) await rm(e.parentPath, { recursive: true, force: true });
    expect((await build()).line).toBe("jsx-two-edited cts-one cjs-one package-one");
    expect(await engineBundles(cache)).toEqual(engine);
  }, 120_000);

  it("bundles the site's code asking esbuild's resolver again only for the imports that name the engine's folder, and still refuses one of its modules", async () => {
    const { project, buildWith } = await instrumentedProject();
    // Notes each path the launcher's plugin asks esbuild's resolver for (\`build.resolve\`): esbuild's
    // \`build\` wrapped, through a module hook that hands the launcher the wrapper for "esbuild".
    const work = await mkdtemp(path.join(tmpdir(), "cafe-resolves-"));
    const log = path.join(work, "resolves.log");
    const real = pathToFileURL(createRequire(path.join(project, "package.json")).resolve("esbuild")).href;
    const wrapper = path.join(work, "esbuild.mjs");
    await writeFile(
      wrapper,
      `import { appendFileSync } from "node:fs";\nimport * as real from ${JSON.stringify(real)};\nexport * from ${JSON.stringify(real)};\n` +
        `const spied = (p) => ({ ...p, setup: (b) => p.setup(new Proxy(b, { get: (t, k) => (k === "resolve" ? (what, o) => (appendFileSync(${JSON.stringify(log)}, p.name + " " + what + "\\n"), t.resolve(what, o)) : t[k]) })) });\n` +
        `export const build = (options) => real.build({ ...options, plugins: options.plugins?.map(spied) });\n`,
    );
    await writeFile(path.join(work, "hooks.mjs"), `export async function resolve(specifier, context, next) {\n  return specifier === "esbuild" ? { url: ${JSON.stringify(pathToFileURL(wrapper).href)}, shortCircuit: true } : next(specifier, context);\n}\n`);
    const spy = path.join(work, "spy.mjs");
    await writeFile(spy, `import { register } from "node:module";\nregister(${JSON.stringify(pathToFileURL(path.join(work, "hooks.mjs")).href)});\n`);
    const asked = async () => (await readFile(log, "utf8").catch(() => "")).split("\n").filter((line) => line.startsWith("engine-imports "));

    expect((await buildWith(["--import", spy])).line).toBe("jsx-one cts-one cjs-one package-one");
    // The site's imports of the engine (its API, by a path into the engine's folder), and no other: not every one of its own.
    const cold = await asked();
    expect(cold.length).toBeGreaterThan(0);
    expect(cold.filter((line) => !/ (\.\.\/)+engine\/index\.js$|^engine-imports \.\/engine\/index\.js$/.test(line))).toEqual([]);

    // A theme that imports a module of the engine past its API is still refused, at its line.
    await writeFile(path.join(project, "templates/extra.jsx"), 'import { ContentError } from "../engine/lib/errors.js";\nexport const fromJsx = typeof ContentError;\n');
    const refused = await buildWith(["--import", spy]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("templates/extra.jsx:1:30: engine/lib/errors.ts is a module of the engine");

    // A module of the engine through a link (its path as written is not in the engine's folder): refused all the same.
    await symlink(path.join(project, "engine/lib/slug.ts"), path.join(project, "templates/slug-link.ts"));
    await writeFile(path.join(project, "templates/extra.jsx"), 'import { slugify } from "./slug-link.ts";\nexport const fromJsx = slugify("A b");\n');
    const linked = await buildWith(["--import", spy]);
    expect(linked.code).toBe(1);
    expect(linked.stderr).toContain("engine/lib/slug.ts is a module of the engine");
  }, 120_000);

  it("refuses a theme that imports a module of the engine other than its API, at the import's file and line", async () => {
    const { project, build } = await instrumentedProject();
    await writeFile(path.join(project, "templates/extra.jsx"), 'import { ContentError } from "../engine/lib/errors.js";\nexport const fromJsx = typeof ContentError;\n');
    const result = await build();
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('templates/extra.jsx:1:30: engine/lib/errors.ts is a module of the engine: a site\'s config and theme import the engine only through its API, "cafe-engine" (engine/index.ts).');
    expect(result.stderr).not.toMatch(/\n\s+at /);
  }, 120_000);
});

describe("the source maps are read only for a stack shown to the author", () => {
  it("a cold build, an up-to-date check and a one-article edit read none; a config that throws is still shown at its line, the map read then", async () => {
    const project = await projectCopy();
    const work = await mkdtemp(path.join(tmpdir(), "cafe-maps-"));
    const content = path.join(work, "content");
    await cp(fixture("basic"), content, { recursive: true });
    // Notes every .map file the process reads (Node's own source-map cache reads them with fs.readFileSync, as the engine would).
    const spy = path.join(work, "spy.cjs");
    const log = path.join(work, "maps.log");
    await writeFile(
      spy,
      `const fs = require("fs");\nconst read = fs.readFileSync;\nfs.readFileSync = function (file, ...rest) {\n  if (String(file).endsWith(".map")) fs.appendFileSync(${JSON.stringify(log)}, String(file) + "\\n");\n  return read.call(this, file, ...rest);\n};\n`,
    );
    const build = (spied: boolean, ...flags: string[]) =>
      run(process.execPath, [...(spied ? ["--require", spy] : []), "engine/launch.mjs", "build", "--content", content, ...flags], {
        cwd: project,
        env: { ...process.env, CAFE_CACHE_DIR: path.join(work, "cache"), NO_COLOR: "1" },
      }).then(
        (r) => ({ code: 0, stderr: r.stderr, stdout: r.stdout }),
        (e: { code: number; stderr: string; stdout: string }) => ({ code: e.code, stderr: e.stderr, stdout: e.stdout }),
      );
    const mapsRead = async () => (await readFile(log, "utf8").catch(() => "")).split("\n").filter(Boolean);

    // The launcher's bundle made first (its record hashes every file of it, maps included).
    expect((await build(false, "--out", path.join(work, "first"))).stdout).toMatch(/Built \d+ pages/);
    const out = path.join(work, "dist");
    expect((await build(true, "--out", out, "--no-cache")).stdout).toMatch(/Built \d+ pages/);
    expect((await build(true, "--out", out)).stdout).toMatch(/up to date/);
    const article = (await readdir(path.join(content, "articles"), { recursive: true })).find((name) => name.endsWith(".md"))!;
    await appendFile(path.join(content, "articles", article), "\nUma frase a mais.\n");
    expect((await build(true, "--out", out)).stdout).toMatch(/Built \d+ pages/);
    expect(await mapsRead()).toEqual([]);

    // The config throws at its line 4: the author is shown that line of the source, not the bundle's.
    await writeFile(path.join(project, "cafe.config.ts"), 'import { defineConfig } from "./engine/index.js";\nimport { theme } from "./templates/theme.js";\n\nif (theme) throw new Error("parada aqui");\nexport default defineConfig({ theme, themeFolders: ["templates", "client"] });\n');
    expect((await build(false, "--out", path.join(work, "first"))).code).toBe(1);
    const broken = await build(true, "--out", out);
    expect(broken.code).toBe(1);
    expect(broken.stderr).toMatch(/^cafe\.config\.ts:4:\d+: the config could not be loaded: parada aqui$/m);
    expect((await mapsRead()).length).toBeGreaterThan(0);
  }, 120_000);
});
