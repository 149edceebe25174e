/**
 * The keys of the code (engine/incremental/code-keys.ts) from a module graph: a part the theme
 * names is keyed by the theme's modules it reaches and left out of the cache's version; where
 * the engine cannot tell what a part reaches, it counts all of the code. A build after each
 * kind of code edit: tests/code-edits.test.ts.
 */
import { describe, expect, it } from "vitest";
import { ALL, codeKeys, type ModuleGraph } from "../engine/incremental/code-keys.js";

/** A small graph: the config imports the theme, which imports two templates' modules; both reach a shared layout. */
function graph(edits: Partial<Record<string, Partial<ModuleGraph["modules"][string]>>> = {}): ModuleGraph {
  const modules: ModuleGraph["modules"] = {
    "engine/cli/main.ts": { state: "e1", imports: ["engine/index.ts"] },
    "engine/index.ts": { state: "e2", imports: [] },
    "cafe.config.ts": { state: "c", imports: ["engine/index.ts", "theme/theme.tsx"] },
    "theme/theme.tsx": { state: "t", imports: ["theme/article.tsx", "theme/home.tsx", "theme/sizes.ts"] },
    "theme/article.tsx": { state: "a", imports: ["theme/layout.tsx", "theme/sizes.ts"] },
    "theme/home.tsx": { state: "h", imports: ["theme/layout.tsx"] },
    "theme/layout.tsx": { state: "l", imports: ["engine/index.ts", "node_modules/x/index.js"] },
    "theme/sizes.ts": { state: "s", imports: [] },
    "node_modules/x/index.js": { state: "1:2", imports: [], unknown: true },
  };
  for (const [file, edit] of Object.entries(edits)) modules[file] = { ...modules[file]!, ...edit } as ModuleGraph["modules"][string];
  return { format: 1, engine: "engine", entries: { cli: "engine/cli/main.ts", site: "cafe.config.ts" }, modules, others: [["package-lock.json", "p"]] };
}
const named = { templates: { article: "theme/article.tsx", home: "theme/home.tsx" } };

describe("the keys of the code", () => {
  it("keys a template by the theme's modules its module reaches, and leaves them out of the version", () => {
    const before = codeKeys(graph(), named, "");
    const article = codeKeys(graph({ "theme/article.tsx": { state: "a2" } }), named, "");
    expect(article.version).toBe(before.version);
    expect(article.parts["template:article"]).not.toBe(before.parts["template:article"]);
    expect(article.parts["template:home"]).toBe(before.parts["template:home"]);
    // A module both reach: both keys change, the version does not.
    const layout = codeKeys(graph({ "theme/layout.tsx": { state: "l2" } }), named, "");
    expect([layout.version === before.version, layout.parts["template:article"] === before.parts["template:article"], layout.parts["template:home"] === before.parts["template:home"]]).toEqual([true, false, false]);
    expect(before.notes).toEqual([]);
  });

  it("counts in the version a module the theme reaches otherwise than through a named part, the engine, the packages and the lock file", () => {
    const before = codeKeys(graph(), named, "");
    // sizes.ts: the article template reaches it, and so does the theme's own file (its image settings, say).
    expect(codeKeys(graph({ "theme/sizes.ts": { state: "s2" } }), named, "").version).not.toBe(before.version);
    expect(codeKeys(graph({ "theme/theme.tsx": { state: "t2" } }), named, "").version).not.toBe(before.version);
    expect(codeKeys(graph({ "engine/index.ts": { state: "e3" } }), named, "").version).not.toBe(before.version);
    expect(codeKeys(graph({ "node_modules/x/index.js": { state: "1:3" } }), named, "").version).not.toBe(before.version);
    expect(codeKeys({ ...graph(), others: [["package-lock.json", "p2"]] }, named, "").version).not.toBe(before.version);
  });

  it("fails closed: no graph, a module the graph does not have, a path made at run time", () => {
    // No graph (the engine run from its sources): one version for all of the code, no part apart.
    const none = codeKeys(undefined, named, "whole");
    expect(none).toMatchObject({ version: "whole", parts: {} });
    // Correct, and what a build script run from the sources always did: not a warning on each build.
    expect(none.notes).toEqual([]);
    // A theme that names nothing: every part in the version.
    const nothing = codeKeys(graph(), undefined, "");
    expect(nothing.parts).toEqual({});
    expect(codeKeys(graph({ "theme/article.tsx": { state: "a2" } }), undefined, "").version).not.toBe(nothing.version);
    // A named module the code does not import.
    const missing = codeKeys(graph(), { templates: { ...named.templates, other: "theme/other.tsx" } }, "");
    expect(missing.parts["template:other"]).toBeUndefined();
    expect(missing.notes).toEqual([expect.stringContaining("the theme names theme/other.tsx for its template 'other', but the site's code does not import it")]);
    // A module of a part that imports a path made at run time: the part is not apart, and an edit to it is a new version.
    const dynamic = graph({ "theme/article.tsx": { unknown: true } });
    const keys = codeKeys(dynamic, named, "");
    expect(keys.parts["template:article"]).toBeUndefined();
    expect(keys.notes).toEqual([expect.stringContaining("theme/article.tsx (reached from its template 'article') imports a path made at run time")]);
    const edited = codeKeys(graph({ "theme/article.tsx": { unknown: true, state: "a2" } }), named, "");
    expect(edited.version).not.toBe(keys.version);
    // A path that is no string (a theme in JavaScript): no module has it.
    const odd = codeKeys(graph(), { templates: { article: 42 as unknown as string }, markdown: "theme/home.tsx" as unknown as string[] }, "");
    expect(odd.parts).toEqual({ markdown: expect.any(String) });
    expect(odd.notes).toEqual([expect.stringContaining("the theme names 42 for its template 'article'")]);
    // The same for an import the graph does not list.
    expect(codeKeys(graph({ "theme/home.tsx": { imports: ["theme/layout.tsx", "theme/gone.tsx"] } }), named, "").parts["template:home"]).toBeUndefined();
    expect(ALL).toBe("all");
  });
});
