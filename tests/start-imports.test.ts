/**
 * What every start of the command loads before it knows whether there is work (issue 37: the
 * real site's "nothing changed" build): the command line's own modules and what they import
 * statically. The up-to-date check needs no parser of YAML, JSON with comments or front matter,
 * no schema library and no React: those are loaded by the work that needs them (the config and
 * its theme, the load stage). A static import of one of them from these modules makes every
 * `npm run build`, `npm run preview` and `npm start` compile it first (yaml, js-yaml, esprima,
 * gray-matter and jsonc-parser were 450 KB of JavaScript loaded by each start).
 *
 * And no engine module imports a library loaded on demand statically (issue 37, point 3; what
 * the command then loads is tests/lazy-loading.test.ts's, an integration file).
 */
import { describe, expect, it } from "vitest";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { projectRoot } from "./helpers.js";

/** Packages the command line's start must not load: parsers and libraries of the build's own work. */
const HEAVY = /^(yaml|js-yaml|gray-matter|jsonc-parser|zod|react|react-dom|unified|satori|sharp|esbuild)(\/|$)/;

/** Every engine module `entry` reaches through static imports (not `import type`, not `import()`), and the packages they import. */
function staticClosure(entry: string): { modules: string[]; packages: Map<string, string> } {
  const seen = new Set<string>();
  const packages = new Map<string, string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    const source = readFileSync(file, "utf8");
    for (const [, specifier] of source.matchAll(/(?:^|\n)\s*(?:import|export)\s+(?!type\b)(?:[^'"]*?from\s*)?["']([^"']+)["']/g)) {
      if (specifier!.startsWith(".")) {
        const target = path.resolve(path.dirname(file), specifier!).replace(/\.js$/, "");
        const found = [".ts", ".tsx"].map((ext) => target + ext).find((f) => existsSync(f));
        if (found) visit(found);
      } else if (!specifier!.startsWith("node:")) packages.set(specifier!, path.relative(projectRoot, file));
    }
  };
  visit(entry);
  return { modules: [...seen].map((f) => path.relative(projectRoot, f)), packages };
}

describe("the command's start loads nothing the up-to-date check does not need", () => {
  it("the command line's modules import no parser, schema library or React statically", () => {
    const { packages } = staticClosure(path.join(projectRoot, "engine/cli/main.ts"));
    const heavy = [...packages].filter(([name]) => HEAVY.test(name)).map(([name, by]) => `${by} → ${name}`);
    expect(heavy).toEqual([]);
  });
});

/** The libraries loaded on demand, as modules import them. */
const LAZY = /^(sharp|satori|@resvg\/resvg-js|esbuild|subset-font|unified|remark-[\w-]+|rehype-[\w-]+|yaml|gray-matter|jsonc-parser)$/;

/**
 * The engine's modules that import (or export) a library on demand statically (not `import
 * type`, not `import()`), and the modules that import the Markdown parser statically: each must be a
 * module only another command loads, or one loaded through lib/packages.ts.
 */
function staticImporters(): string[] {
  const engine = path.join(projectRoot, "engine");
  const found: string[] = [];
  for (const file of readdirSync(engine, { recursive: true }).map(String).filter((f) => /\.tsx?$/.test(f) && !f.endsWith(".d.ts"))) {
    const source = readFileSync(path.join(engine, file), "utf8");
    for (const [, specifier] of source.matchAll(/(?:^|\n)\s*(?:import|export)\s+(?!type\b)[^'"]*?from\s*["']([^"']+)["']/g)) {
      if (LAZY.test(specifier!) || /article-markdown\.js$/.test(specifier!)) found.push(`${file.split(path.sep).join("/")} → ${specifier}`);
    }
  }
  return found.sort();
}

describe("no engine module loads a library on demand at start", () => {
  it("imports them only through lib/packages.ts, or in a module of another command (move, dev)", () => {
    expect(staticImporters().filter((line) => !line.startsWith("stages/markdown/article-markdown.ts → "))).toEqual([
      // The dev server bundles its browser client; `cafe move` reads Markdown and YAML to rewrite links; the editors' schemas are written when they changed.
      "servers/dev-server.ts → esbuild",
      "tools/editor-schemas.ts → jsonc-parser",
      "tools/move-article.ts → jsonc-parser",
      "tools/move-article.ts → remark-directive",
      "tools/move-article.ts → remark-gfm",
      "tools/move-article.ts → remark-parse",
      "tools/move-article.ts → unified",
      "tools/move-article.ts → yaml",
    ]);
  });
});
