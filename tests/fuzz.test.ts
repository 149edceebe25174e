/**
 * Bad input never crashes: generated and mutated articles (half of them with a valid front
 * matter, so that the Markdown stage gets as many as the loader; the test counts them), front
 * matters, YAML settings and JSON data files go through the loader and the Markdown stage,
 * and every outcome is either a result or content errors that name a file and a line, never
 * an uncaught exception.
 */
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { articleModel, loadContent, parseArticle, type SiteContent } from "../engine/stages/load/content.js";
import { renderMarkdown } from "../engine/stages/markdown/article-markdown.js";
import { markdownSession } from "../engine/stages/markdown/markdown-context.js";
import { ContentError, type ContentIssue } from "../engine/lib/errors.js";
import { parseJsonSource, parseYamlSource, schemaErrors } from "../engine/lib/yaml-source.js";
import { cardsSchema, blockSchemas } from "../templates/schema.js";
import { theme } from "../templates/theme.js";
import { fixture } from "./helpers.js";

const model = articleModel(theme);
const site = (await loadContent(fixture("basic"), theme)).content as SiteContent;

/** Pieces an author types, to build and to break text with. */
const TOKENS = [
  "---", "\n", "\n\n", ":", ": ", "  ", "\t", "- ", "#", "## ", "[", "]", "(", ")", "](", "`", "```", "*", "_", "|", "~",
  "%", "%zz", "#50%", "/", "/primeiro", "/primeiro/", "#o-comeco", "https://exemplo.com", "javascript:alert(1)", "mailto:a@b.c",
  "<script>", "<div>", "&amp;", "::", ":::", "::stat-cards", "::tool-table{src=\"tools\"}", "::tool-table{src=\"nada\"}",
  ":::quote", ":::quote{author=\"Cris\"}", ":::note{title=\"Nota\"}", "::editions-carousel", "::pilars", "{", "}", "\"", "'",
  "title: ", "date: ", "readTime: ", "lang: ", "route: ", "share: ", "statCards: ", "draft: ", "series: ", "ação", "😀", "\u0000",
  "[^1]", "[^1]: nota", "![x](/a.png)", "- [ ] tarefa", "www.exemplo.com", "1.", ">", "***", "\\", "&", "=",
];
const token = fc.constantFrom(...TOKENS);
const text = fc.array(fc.oneof(token, fc.string({ maxLength: 8 }), fc.string({ unit: "grapheme", maxLength: 6 })), { maxLength: 40 }).map((parts) => parts.join(""));

/** A YAML value an author could write, well-formed or not. */
const yamlValue: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: "small" },
    fc.string({ maxLength: 12 }),
    fc.integer(),
    fc.double(),
    fc.boolean(),
    fc.constant(null),
    fc.constantFrom("04/08/2025", "2025-13-40", "ontem", "Agosto 2025", "pt", "en", "xx", "/primeiro", "/Nope/", "toast", "alert"),
    fc.array(tie("value"), { maxLength: 4 }),
    fc.dictionary(fc.constantFrom("value", "label", "source", "title", "text", "fallback", "before", "after", "x"), tie("value"), { maxKeys: 4 }),
  ),
})).value;

const frontMatterKeys = fc.constantFrom(...model.keys, "statCards", "pillars", "references", "beforeAfter", "readtime", "titel", "x");
const frontMatter = fc.dictionary(frontMatterKeys, yamlValue, { maxKeys: 8 });

/** A front matter written out as YAML the way an author would (by hand: JSON flow style). */
const writeFrontMatter = (data: Record<string, unknown>) =>
  Object.entries(data)
    .map(([key, value]) => `${key}: ${JSON.stringify(value) ?? "null"}`)
    .join("\n");

/** An article: a front matter and a body, then cut, spliced and broken at random places. */
const article = fc
  .record({ data: frontMatter, body: text, withTitle: fc.boolean(), cuts: fc.array(fc.tuple(fc.nat(), fc.nat({ max: 6 }), text), { maxLength: 3 }) })
  .map(({ data, body, withTitle, cuts }) => {
    let source = `---\n${withTitle ? "title: Um título\n" : ""}${writeFrontMatter(data)}\n---\n${body}\n`;
    for (const [at, remove, insert] of cuts) {
      const i = at % (source.length + 1);
      source = source.slice(0, i) + insert + source.slice(i + remove);
    }
    return source;
  });

/**
 * An article with a valid front matter and any body: half the generated articles, so that the
 * Markdown stage gets as many as the loader (broken front matters mostly stop at the loader).
 */
const wellFormedArticle = fc
  .tuple(fc.constantFrom("title: Um título", 'title: "Ação: 50%"\nreadTime: 3', "title: Só título\ndate: 04/08/2025\nlang: en"), text, text)
  .map(([front, a, b]) => `---\n${front}\n---\n${a}\n\n${b}\n`);

/**
 * Every problem has a file and a line (nothing an author cannot find), as data that crosses a
 * thread whole: the loader's ContentErrors, and the Markdown stage's plain issues.
 */
function expectLocated(errors: readonly unknown[]) {
  for (const error of errors) {
    const e = error as ContentIssue;
    if (!(error instanceof ContentError)) expect(structuredClone(e)).toEqual(e);
    expect(e.location).toBe(`${e.file}:${e.line}${e.column === undefined ? "" : `:${e.column}`}`);
    expect(e.file).toBeTruthy();
    expect(e.line, `${e.file}: ${e.message}`).toBeGreaterThanOrEqual(1);
    expect(e.message).not.toMatch(/\n\s+at /);
  }
}

describe("fuzzing the content loader and the Markdown stage", () => {
  it("turns any article into a page or into located errors (1,500 articles)", () => {
    const outcomes = { runs: 0, rendered: 0, pages: 0 };
    // One session for every article, as a build's Markdown stage has: its parsers made once.
    const session = markdownSession();
    fc.assert(
      fc.property(fc.oneof(article, wellFormedArticle), (source) => {
        outcomes.runs++;
        const parsed = parseArticle(source, "content/articles/fuzz.md", "fuzz.md", model);
        if ("errors" in parsed) {
          expect(parsed.errors.length).toBeGreaterThan(0);
          expectLocated(parsed.errors);
          return;
        }
        outcomes.rendered++;
        const result = renderMarkdown(parsed.article, site, theme, { session });
        expectLocated(result.errors);
        if (result.errors.length === 0) {
          expect(typeof result.html).toBe("string");
          outcomes.pages++;
        }
      }),
      { numRuns: 1500 },
    );
    // The Markdown stage is fuzzed as much as the loader: a third of the articles at least
    // reach it (about half are meant to), and some of those become pages.
    const summary = `${outcomes.runs} articles, ${outcomes.rendered} reached the Markdown stage, ${outcomes.pages} became pages`;
    expect(outcomes.rendered, summary).toBeGreaterThanOrEqual(500);
    expect(outcomes.pages, summary).toBeGreaterThanOrEqual(100);
  }, 120_000);

  it("turns any YAML settings file into a value or located errors (400 files)", () => {
    fc.assert(
      fc.property(fc.oneof(fc.array(fc.dictionary(fc.constantFrom("route", "icon", "title", "excerpt", "date", "readTime", "gradient", "x"), yamlValue), { maxLength: 3 }).map((v) => JSON.stringify(v, null, 2)), text), (source) => {
        let parsed;
        try {
          parsed = parseYamlSource(source, "content/cards.yaml", source);
        } catch (error) {
          expectLocated([error]);
          return;
        }
        const result = cardsSchema.safeParse(parsed.value);
        if (!result.success) expectLocated(schemaErrors(result.error.issues, "content/cards.yaml", source, parsed.locate));
      }),
      { numRuns: 400 },
    );
  });

  it("locates what a JSON data file's schema refuses behind the white space JSON allows and YAML does not (a tab)", () => {
    // fast-check found it (seed 436035309): "\tfalse" was refused with no line or column, as the
    // positions were found by the YAML parser, for which a tab cannot indent.
    for (const [source, line, column] of [["\tfalse", 1, 2], ["\t\n\t[\n\t1\n]", 3, 2], ["[\n\t{}\n]", 2, 2]] as const) {
      const parsed = parseJsonSource(source, "content/data/tab.json");
      const result = blockSchemas["tool-table"].safeParse(parsed.value);
      expect(result.success).toBe(false);
      const [error] = schemaErrors(result.error!.issues, "content/data/tab.json", source, parsed.locate);
      expect([error?.line, error?.column]).toEqual([line, column]);
    }
  });

  it("turns any JSON data file into a value or located errors (400 files)", () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.json(), fc.tuple(fc.json(), fc.nat(), text).map(([json, at, insert]) => json.slice(0, at % (json.length + 1)) + insert + json.slice(at % (json.length + 1)))),
        (source) => {
          let parsed;
          try {
            parsed = parseJsonSource(source, "content/data/fuzz.json");
          } catch (error) {
            expectLocated([error]);
            return;
          }
          const result = blockSchemas["tool-table"].safeParse(parsed.value);
          if (!result.success) expectLocated(schemaErrors(result.error.issues, "content/data/fuzz.json", source, parsed.locate));
        },
      ),
      { numRuns: 400 },
    );
  });
});
