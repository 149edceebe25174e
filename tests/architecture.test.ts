/**
 * The engine knows no site: nothing under engine/ imports the theme (templates/, client/);
 * themes (the blog's, the notebook fixture's) reach the engine only through its public face,
 * engine/index.ts; and no module of the project imports itself back through others (no cycles).
 */
import { describe, expect, it, vi } from "vitest";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { projectRoot } from "./helpers.js";

/** What a module imports: `import x from "…"`, `export … from "…"`, `import "…"` (for its side effects) and `import("…")`. */
function specifiersOf(source: string): string[] {
  return [
    ...source.matchAll(/(?:^|\n)\s*(?:import|export)[^'"]*?from\s*["']([^"']+)["']|(?:^|\n)\s*import\s*["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g),
  ].map((m) => m[1] ?? m[2] ?? m[3]!);
}

interface PackageJson {
  name: string;
  bin?: Record<string, string>;
  exports?: Record<string, string>;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
}
const enginePackage = JSON.parse(readFileSync(path.join(projectRoot, "engine/package.json"), "utf8")) as PackageJson;
const rootPackage = JSON.parse(readFileSync(path.join(projectRoot, "package.json"), "utf8")) as PackageJson;

/** The engine's package name and its subpaths (engine/package.json `exports`), as a site that installed it imports them. */
const PACKAGE_FACES: Record<string, string[]> = Object.fromEntries(
  Object.entries(enginePackage.exports ?? {}).map(([subpath, file]) => [path.posix.join(enginePackage.name, subpath), [path.posix.join("engine", file.replace(/\.ts$/, ""))]]),
);

/** Every TypeScript module of the generator and the theme, with the project files it imports. */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  const files = ["engine", "templates", "client", "tests/fixtures/notebook"].flatMap((dir) =>
    readdirSync(path.join(projectRoot, dir), { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile() && /\.tsx?$/.test(e.name) && !e.name.endsWith(".d.ts"))
      .map((e) => path.relative(projectRoot, path.join(e.parentPath, e.name))),
  );
  files.push("build.ts", "cafe.config.ts");
  for (const file of files) {
    const source = readFileSync(path.join(projectRoot, file), "utf8");
    const local = specifiersOf(source)
      .flatMap((s) => (s.startsWith(".") ? [path.relative(projectRoot, path.resolve(path.dirname(path.join(projectRoot, file)), s))] : (PACKAGE_FACES[s] ?? [])))
      .map((s) => s.replace(/\.js$/, ""))
      .map((target) => files.find((f) => f.replace(/\.tsx?$/, "") === target) ?? target);
    graph.set(file, local);
  }
  return graph;
}

describe("the import graph", () => {
  const graph = importGraph();

  it("has no edge from engine/ to templates/ or client/", () => {
    const back = [...graph].flatMap(([file, targets]) =>
      file.startsWith("engine/") ? targets.filter((t) => /^(templates|client)\//.test(t)).map((t) => `${file} -> ${t}`) : [],
    );
    expect(graph.size).toBeGreaterThan(30);
    expect(back).toEqual([]);
  });

  it("sees every kind of import, a side-effect import included", () => {
    const source = 'import a from "./a.js";\nexport { b } from "./b.js";\nimport "./c.js";\nconst d = await import("./d.js");';
    expect(specifiersOf(source)).toEqual(["./a.js", "./b.js", "./c.js", "./d.js"]);
  });

  it("has public faces that change nothing when imported (no environment variable, no global)", async () => {
    const env = process.env.NODE_ENV;
    delete process.env.NODE_ENV;
    const globals = Object.keys(globalThis).sort();
    try {
      vi.resetModules();
      await import("../engine/index.js");
      await import("../engine/node.js");
      expect(process.env.NODE_ENV).toBeUndefined();
      expect(Object.keys(globalThis).sort()).toEqual(globals);
    } finally {
      process.env.NODE_ENV = env;
    }
  });

  it("lets themes reach the engine only through engine/index.ts (and a build script through engine/node.ts)", () => {
    const themes = /^(templates\/|client\/|tests\/fixtures\/notebook\/|cafe\.config\.ts$)/;
    const inside = [...graph].flatMap(([file, targets]) =>
      themes.test(file) ? targets.filter((t) => t.startsWith("engine/") && t !== "engine/index.ts" && !(t === "engine/node.ts" && file.endsWith("/build.ts"))).map((t) => `${file} -> ${t}`) : [],
    );
    expect([...graph].some(([file, targets]) => themes.test(file) && targets.includes("engine/index.ts"))).toBe(true);
    expect(inside).toEqual([]);
  });

  it("has no cycle", () => {
    const cycles: string[] = [];
    const state = new Map<string, "visiting" | "done">();
    const visit = (file: string, trail: string[]) => {
      if (state.get(file) === "done") return;
      if (state.get(file) === "visiting") {
        cycles.push([...trail.slice(trail.indexOf(file)), file].join(" -> "));
        return;
      }
      state.set(file, "visiting");
      for (const next of graph.get(file) ?? []) visit(next, [...trail, file]);
      state.set(file, "done");
    };
    for (const file of graph.keys()) visit(file, []);
    expect(cycles).toEqual([]);
  });
});

describe("the engine's package (engine/package.json, what `npm pack ./engine` installs in a site)", () => {
  // Not engine/starter/: the site `cafe init` writes, whose code imports the engine by its package name as any site's does.
  const engineFiles = readdirSync(path.join(projectRoot, "engine"), { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && /\.(tsx?|mjs)$/.test(e.name) && !e.name.endsWith(".d.ts"))
    .filter((e) => !path.relative(path.join(projectRoot, "engine"), e.parentPath).split(path.sep).includes("starter"))
    .map((e) => path.join(e.parentPath, e.name));

  it("has the `cafe` command and the two public faces, and nothing else of the engine exported", () => {
    expect(enginePackage.bin).toEqual({ cafe: "./launch.mjs" });
    expect(enginePackage.exports).toEqual({ ".": "./index.ts", "./node": "./node.ts", "./package.json": "./package.json" });
    expect(readFileSync(path.join(projectRoot, "engine/launch.mjs"), "utf8")).toMatch(/^#!\/usr\/bin\/env node\n/);
  });

  it("depends on every package the engine imports (React and zod as peers: one copy, the theme's)", () => {
    const declared = new Set([...Object.keys(enginePackage.dependencies ?? {}), ...Object.keys(enginePackage.peerDependencies ?? {})]);
    const missing = new Set<string>();
    for (const file of engineFiles) {
      for (const specifier of specifiersOf(readFileSync(file, "utf8"))) {
        if (specifier.startsWith(".") || specifier.startsWith("node:")) continue;
        const name = specifier.split("/").slice(0, specifier.startsWith("@") ? 2 : 1).join("/");
        // A type-only package (`import type … from "mdast"`) comes from DefinitelyTyped.
        if (!declared.has(name) && !declared.has(`@types/${name}`)) missing.add(`${path.relative(projectRoot, file)}: ${name}`);
      }
    }
    expect([...missing]).toEqual([]);
    expect(Object.keys(enginePackage.peerDependencies ?? {}).sort()).toEqual(["react", "react-dom", "zod"]);
  });

  it("asks for the same versions as this project, so the blog and an installed engine run the same libraries", () => {
    const ours = { ...rootPackage.dependencies, ...rootPackage.devDependencies };
    const differ = Object.entries({ ...enginePackage.dependencies, ...enginePackage.peerDependencies }).filter(([name, range]) => name in ours && ours[name] !== range);
    expect(differ).toEqual([]);
  });

  it("has the launcher look for the config files engine/config.ts names", async () => {
    const { CONFIG_FILES } = await import("../engine/config.js");
    const launcher = readFileSync(path.join(projectRoot, "engine/launch.mjs"), "utf8");
    expect(/const CONFIG_FILES = (\[[^\]]*\]);/.exec(launcher)?.[1]).toBe(JSON.stringify(CONFIG_FILES).replaceAll(",", ", "));
  });
});

