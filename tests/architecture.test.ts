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

/** Every TypeScript module of the generator and the theme, with the project files it imports. */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  const files = ["engine", "templates", "client", "tests/fixtures/notebook"].flatMap((dir) =>
    readdirSync(path.join(projectRoot, dir), { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile() && /\.tsx?$/.test(e.name) && !e.name.endsWith(".d.ts"))
      .map((e) => path.relative(projectRoot, path.join(e.parentPath, e.name))),
  );
  files.push("build.ts");
  for (const file of files) {
    const source = readFileSync(path.join(projectRoot, file), "utf8");
    const local = specifiersOf(source)
      .filter((s) => s.startsWith("."))
      .map((s) => path.relative(projectRoot, path.resolve(path.dirname(path.join(projectRoot, file)), s)).replace(/\.js$/, ""))
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
    const themes = /^(templates|client|tests\/fixtures\/notebook)\//;
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
