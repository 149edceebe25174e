/**
 * A theme's mistakes are errors an author can act on, never a crash: each at the theme's
 * file and line, with what it probably meant. Those a theme shows when it loads (its asset
 * entries, its required templates, its fonts: `checkTheme`) and those it shows while a page
 * renders (a listing or a template it does not have, a template that throws).
 */
import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { defineTheme, type Theme } from "../engine/index.js";
import { ContentError } from "../engine/lib/errors.js";
import { SiteBuilder } from "../engine/pipeline/site-builder.js";
import { MemoryWriter } from "../engine/stages/write/writers.js";
import { checkTheme } from "../engine/theme-check.js";
import { notebook } from "./fixtures/notebook/theme/theme.js";
import { projectRoot, testCode } from "./helpers.js";

const siteRoot = path.join(projectRoot, "tests/fixtures/notebook");
const thisFile = fileURLToPath(import.meta.url);
const lines = readFileSync(thisFile, "utf8").split("\n");
/** The line of this file that holds `text` (where an error should point). */
const lineOf = (text: string) => lines.findIndex((line) => line.includes(text)) + 1;
/** `line:column` of `text` in this file. */
const placeOf = (text: string) => `${lineOf(text)}:${lines[lineOf(text) - 1]!.indexOf(text) + 1}`;

/** Builds the notebook's content with a theme; the build's result, or the error it threw. */
async function build(theme: Theme) {
  return new SiteBuilder({ codeVersion: testCode(), contentDir: path.join(siteRoot, "content"), projectRoot: siteRoot, theme }).build(new MemoryWriter()).catch((error: unknown) => error);
}

describe("a theme's mistakes found when it loads", () => {
  it("an asset entry that names no file: at the theme's line, with the file it meant", () => {
    const theme = defineTheme({ ...notebook, assets: { entries: { style: "tests/fixtures/notebook/theme/styles.css" } } });
    const [error, ...more] = checkTheme(theme, projectRoot);
    expect(more).toEqual([]);
    // At the entry's path, quoted, in the file that declared the theme.
    expect(error!.location).toBe(`tests/theme-mistakes.test.tsx:${placeOf('"tests/fixtures/notebook/theme/styles.css"')}`);
    expect(error!.message).toBe("the asset entry 'style' names tests/fixtures/notebook/theme/styles.css, which does not exist");
    expect(error!.hint).toBe("did you mean tests/fixtures/notebook/theme/style.css?");
  });

  it("a required template missing: with the one it probably is", () => {
    const { "not-found": notFound, ...templates } = notebook.templates;
    const theme = defineTheme({ ...notebook, templates: { ...templates, notfound: notFound! } });
    expect(checkTheme(theme, siteRoot).map((e) => [e.message, e.hint])).toEqual([
      ["the theme has no template 'not-found'", "did you mean 'notfound'? A theme's templates must include 'not-found'"],
    ]);
  });

  it("a font whose package is not installed: with the command that installs it", () => {
    const theme = defineTheme({ ...notebook, assets: { ...notebook.assets, fonts: [{ name: "brand", source: "@fontsource/not-a-font/files/x-latin-400-normal.woff", text: () => "Ab" }] } });
    expect(checkTheme(theme, siteRoot).map((e) => [e.message, e.hint])).toEqual([
      ["the font 'brand' names @fontsource/not-a-font/files/x-latin-400-normal.woff, which is not installed", "install its package (npm install @fontsource/not-a-font) or correct the path"],
    ]);
  });

  it("finds nothing wrong with the two themes of this repository", async () => {
    const { theme } = await import("../templates/theme.js");
    expect(checkTheme(theme, projectRoot)).toEqual([]);
    expect(checkTheme(notebook, siteRoot)).toEqual([]);
  });

  it("accepts an asset entry written as an absolute path (it used to end the build with 'no output for the entry')", async () => {
    const theme = defineTheme({ ...notebook, assets: { entries: { style: path.join(siteRoot, "theme/style.css") } } });
    expect(checkTheme(theme, siteRoot)).toEqual([]);
    const result = await build(theme);
    expect(result).not.toBeInstanceOf(Error);
    expect((result as { ok: boolean }).ok).toBe(true);
  });
});

describe("a theme's mistakes found while a page renders", () => {
  it("a listing the theme does not have: at the template's line, with the name it meant", async () => {
    const theme = defineTheme({
      ...notebook,
      templates: {
        ...notebook.templates,
        list: (ctx) => <p>{(ctx.listing as (name: string) => unknown[])("nots").length}</p>,
      },
    });
    const error = await build(theme);
    expect(error).toBeInstanceOf(ContentError);
    const { file, line, message, hint } = error as ContentError;
    expect([file, line, message, hint]).toEqual([thisFile, lineOf('("nots")'), "the theme has no listing 'nots'", "did you mean 'notes'?"]);
  });

  it("a page whose template the theme does not have: with the one it meant", async () => {
    const theme = defineTheme({ ...notebook, pages: () => [{ path: "/", template: "lst" }] });
    const error = await build(theme);
    expect(error).toBeInstanceOf(ContentError);
    expect([(error as ContentError).message, (error as ContentError).hint]).toEqual(["the theme has no template 'lst' (the page / asks for it)", "did you mean 'list'?"]);
  });

  it("a template that throws: at the line that threw, with the page", async () => {
    const theme = defineTheme({
      ...notebook,
      templates: {
        ...notebook.templates,
        list: (ctx) => <p>{(ctx.site as unknown as { missing: { name: string } }).missing.name}</p>,
      },
    });
    const error = await build(theme);
    expect(error).toBeInstanceOf(ContentError);
    const { file, line, message } = error as ContentError;
    expect([file, line]).toEqual([thisFile, lineOf(".missing.name")]);
    expect(message).toMatch(/^the template 'list' failed on \/: Cannot read properties of undefined \(reading 'name'\)$/);
  });
});
