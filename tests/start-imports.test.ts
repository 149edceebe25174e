/**
 * What every start of the command loads before it knows whether there is work (issue 37: the
 * real site's "nothing changed" build): the command line's own modules and what they import
 * statically. The up-to-date check needs no parser of YAML, JSON with comments or front matter,
 * no schema library and no React: those are loaded by the work that needs them (the config and
 * its theme, the load stage). A static import of one of them from these modules makes every
 * `npm run build`, `npm run preview` and `npm start` compile it first (yaml, js-yaml, esprima,
 * gray-matter and jsonc-parser were 450 KB of JavaScript loaded by each start).
 */
import { describe, expect, it } from "vitest";
import { existsSync, readFileSync } from "node:fs";
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
