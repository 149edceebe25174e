/**
 * Islands as an engine feature (issue 39): a template renders an island with when it wakes;
 * the server renders it with its props as JSON, the build makes one chunk per island and the
 * engine's runtime, which only a page with an island loads; props that JSON would not carry
 * are an error at the template's line. (The runtime's wake modes: tests/client/islands-runtime.test.ts;
 * this blog's islands in a real browser: tests/browser/islands.test.ts.)
 */
import { describe, expect, it } from "vitest";
import path from "node:path";
import { readFileSync } from "node:fs";
import { SiteBuilder } from "../engine/pipeline/site-builder.js";
import { ContentError } from "../engine/lib/errors.js";
import { MemoryWriter } from "../engine/stages/write/writers.js";
import { islandTheme } from "./fixtures/islands/theme/theme.js";
import { Counter } from "./fixtures/islands/theme/counter.js";
import { defineIsland } from "../engine/index.js";
import { editedFixture, parseHtml, projectRoot, text, testCode } from "./helpers.js";

const siteRoot = path.join(projectRoot, "tests/fixtures/islands");
const themeFile = path.join(siteRoot, "theme/theme.tsx");

/** The fixture's site with the theme given these options (its content in another folder when `content` is given). */
async function build(options: Parameters<typeof islandTheme>[0] = {}, content = siteRoot) {
  const writer = new MemoryWriter();
  const theme = islandTheme(options);
  const result = await new SiteBuilder({ codeVersion: testCode(), contentDir: path.join(content, "content"), projectRoot: siteRoot, theme, publishedRoutes: false }).build(writer);
  return { ...result, writer };
}

/** An article whose body has an island (a block's), with its directive's attributes. */
const withCounted = (attributes: string) =>
  editedFixture("islands", { "content/articles/counted.md": `---\ntitle: Counted\n---\n\nAn island in a body:\n\n:::counter{${attributes}}\n:::\n` });

/** A mistake of the theme's stops the build with one error (a ContentError, as the command prints it). */
const mistake = (options: Parameters<typeof islandTheme>[0]) => build(options).then(
  () => expect.unreachable("the build succeeded"),
  (error: unknown) => {
    expect(error).toBeInstanceOf(ContentError);
    return error as ContentError;
  },
);

/** The line of this file that declares an island. */
const declaredAt = readFileSync(new URL(import.meta.url), "utf8").split("\n").findIndex((line) => /^\s+const Misnamed = /.test(line)) + 1;

/** The lines that render the island: the home page's template, then the block's component. */
const [usageLine, blockLine] = readFileSync(themeFile, "utf8")
  .split("\n")
  .flatMap((line, i) => (line.includes("<CounterIsland") ? [i + 1] : []));
/** What a message about the island adds: both places that render it. */
const bothPlaces = `(the island is rendered at ${path.relative(process.cwd(), themeFile)}:${usageLine}, ${path.relative(process.cwd(), themeFile)}:${blockLine}`;

describe("an island", () => {
  it("is rendered by the server with its props as JSON, and a page that has one loads the runtime, which knows its chunk", async () => {
    const { ok, errors, writer } = await build({}, await withCounted('start="2" label="Votes"'));
    expect(errors).toEqual([]);
    expect(ok).toBe(true);
    const home = parseHtml(writer.text("index.html"));
    const island = home.querySelector("[data-island=counter]")!;
    expect(island.getAttribute("data-wake")).toBe("visible");
    expect(JSON.parse(island.getAttribute("data-props")!)).toEqual({ start: 1, label: "Clicks" });
    expect(text(island.querySelector("button.counter"))).toBe("Clicks: 1");

    // One script: the engine's runtime, from the site's own assets (the policy allows it: no inline script).
    const scripts = [...home.querySelectorAll("script")];
    expect(scripts.map((s) => [s.getAttribute("type"), s.textContent])).toEqual([["module", ""]]);
    const runtime = scripts[0]!.getAttribute("src")!;
    expect(runtime).toMatch(/^\/assets\/islands-[A-Z0-9]+\.js$/);
    expect(home.querySelector("meta[http-equiv=Content-Security-Policy]")?.getAttribute("content")).toMatch(/script-src 'self' ?;/);
    // The runtime imports the island's chunk when it wakes; the chunk is its own file.
    const chunk = /import\("\.\/(chunks\/counter-[A-Z0-9]+\.js)"\)/.exec(writer.text(runtime.slice(1)))?.[1];
    expect(chunk).toBeDefined();
    expect(writer.text(`assets/${chunk}`)).toMatch(/export\s*\{/);

    // A page without an island loads no script at all.
    expect(parseHtml(writer.text("hello.html")).querySelector("script")).toBeNull();
    // One in an article's body (a block's) is hydrated all the same: its page loads the runtime.
    const counted = parseHtml(writer.text("counted.html"));
    expect(JSON.parse(counted.querySelector("[data-island=counter]")!.getAttribute("data-props")!)).toEqual({ start: 2, label: "Votes" });
    expect([...counted.querySelectorAll("script")].map((s) => s.getAttribute("src"))).toEqual([runtime]);
  });

  it("in an article's body, with a prop JSON cannot carry, is an error naming the article, and the other pages build", async () => {
    const contentDir = await withCounted('start="many" label="Votes"');
    const { ok, errors } = await build({}, contentDir);
    expect(ok).toBe(false);
    // At the block's line, not the home page's: its tag is the one that writes `start`.
    expect(errors.map((e) => [path.resolve(siteRoot, e.file), e.line, e.message])).toEqual([
      [themeFile, blockLine, `the island 'counter' in ${path.relative(siteRoot, path.join(contentDir, "content/articles/counted.md"))} gets a prop that is not plain data: props.start is NaN, which arrives as null; an island's props cross to the browser as JSON`],
    ]);
  });

  it("with a function among its props is an error at the template's line, saying that props cross as JSON", async () => {
    const error = await mistake({ homeProps: { start: 1, label: "Clicks", onCount: () => undefined } as never });
    expect(path.resolve(siteRoot, error.file)).toBe(themeFile);
    expect(error.line).toBe(usageLine);
    expect(error.message).toContain("the island 'counter' on / gets a prop that is not plain data: props.onCount is a function");
    expect(error.message).toContain("as JSON");
    expect(error.hint).toMatch(/strings, numbers, booleans, null, arrays and plain objects/);
    expect(error.hint).toContain(`${bothPlaces}: this is the first)`);
  });

  it("with a Date among its props says what arrives and what to pass instead", async () => {
    const error = await mistake({ homeProps: { start: 1, label: "Clicks", when: new Date(0) } as never });
    expect(error.message).toContain("props.when is a Date, which arrives as a string (pass `date.toISOString()`");
  });

  it("given a wake that is none of the five is an error at the template's line that lists them", async () => {
    const error = await mistake({ homeWake: "hover" as never });
    expect([path.resolve(siteRoot, error.file), error.line, error.message, error.hint]).toEqual([
      themeFile,
      usageLine,
      `the island 'counter' is given wake="hover"`,
      `write one of "load", "idle", "visible", "intent", "manual" ${bothPlaces}: this is the first)`,
    ]);
  });

  it("that the theme does not list in `assets.islands` is an error naming the list, not a page that never wakes", async () => {
    const error = await mistake({ islands: [] });
    expect([path.resolve(siteRoot, error.file), error.line, error.message]).toEqual([
      themeFile,
      usageLine,
      "the island 'counter' is rendered on / but is not in the theme's `assets.islands`, so the build made no chunk for it",
    ]);
    expect(error.hint).toBe(`list it in the theme's \`assets: { islands: [...] }\` ${bothPlaces}: this is the first)`);
  });

  it("whose module does not export the component under the name given is an error at its declaration", async () => {
    const Misnamed = defineIsland({ name: "counter", module: "theme/counter.tsx", export: "Countr", component: Counter });
    const { ok, errors } = await build({ islands: [Misnamed] });
    expect(ok).toBe(false);
    expect(errors.map((e) => [e.file, e.line, e.message, e.hint])).toEqual([
      [
        "../../islands.test.tsx",
        declaredAt,
        `the island 'counter' cannot be bundled: No matching export in "theme/counter.tsx" for import "Countr"`,
        'check `module: "theme/counter.tsx"` (a file from the site\'s folder) and `export: "Countr"` (the name that file exports the component under)',
      ],
    ]);
  });

  it("whose module imports a module of Node's is an error at that import, saying the island runs in the browser", async () => {
    const OnDisk = defineIsland({ name: "counter", module: "theme/disk-counter.tsx", export: "DiskCounter", component: Counter });
    const { errors } = await build({ islands: [OnDisk] });
    expect(errors.map((e) => [e.file, e.line, e.message, e.hint])).toEqual([
      [
        "theme/disk-counter.tsx",
        2,
        'Could not resolve "node:fs"',
        "this code runs in the browser, which has no `fs` module: read what it needs in the template, and hand it to the island as props",
      ],
    ]);
  });

  it("named so that it can have no chunk of its own is an error at its declaration", async () => {
    const Spaced = defineIsland({ name: "My Counter", module: "theme/counter.tsx", export: "Counter", component: Counter });
    const { errors } = await build({ islands: [Spaced] });
    expect(errors.map((e) => [e.file, e.message])).toEqual([["../../islands.test.tsx", "the island name 'My Counter' is not lowercase words joined by hyphens"]]);
  });
});
