/**
 * The editorial rules of content/STYLE.md that a program can check, as plain functions: the
 * tests in articles.test.ts run them over the real articles, content.test.ts shows each one
 * failing on a bad example.
 */

/** One term of STYLE.md's "Uma grafia para cada termo" table: the spelling to use, and the ones not to. */
export interface TermRule {
  use: string;
  avoid: string[];
}

export const TERMS_HEADING = "## Uma grafia para cada termo";

/**
 * Reads the term table that follows `TERMS_HEADING` in STYLE.md: `| use | não use |` rows,
 * several forms of one cell separated by commas, backticks optional. The test reads the list
 * from the guide itself, so the guide and the test cannot disagree.
 */
export function termRulesFrom(styleGuide: string): TermRule[] {
  const start = styleGuide.indexOf(`\n${TERMS_HEADING}\n`);
  if (start < 0) throw new Error(`STYLE.md has no "${TERMS_HEADING}" section`);
  const lines = styleGuide.slice(start + TERMS_HEADING.length + 2).split("\n");
  const firstRow = lines.findIndex((line) => line.startsWith("|"));
  const rows: TermRule[] = [];
  for (const line of lines.slice(firstRow + 2)) {
    if (!line.startsWith("|")) break;
    const [use, avoid] = line.split("|").slice(1, 3).map((cell) => cell.trim());
    const forms = (cell: string) => cell.split(",").map((form) => form.trim().replace(/^`|`$/g, "")).filter(Boolean);
    rows.push({ use: forms(use ?? "")[0] ?? "", avoid: forms(avoid ?? "") });
  }
  if (rows.length === 0) throw new Error(`the "${TERMS_HEADING}" section of STYLE.md has no table rows`);
  return rows;
}

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** What a reader reads of a Markdown file: link targets, bare URLs and e-mail addresses left out. */
export function readableText(markdown: string): string {
  return markdown
    .replace(/\]\([^)\s]*\)/g, "]")
    .replace(/https?:\/\/\S+/g, " ")
    .replace(/\S+@\S+\.\S+/g, " ");
}

/**
 * Each avoided spelling found in `text`, as "on-line (use online)". A form that differs from
 * the right one only in capitals (CAGED for Caged) is matched exactly; any other in any case.
 */
export function termViolations(text: string, rules: TermRule[]): string[] {
  const found: string[] = [];
  for (const rule of rules) {
    for (const form of rule.avoid) {
      const caseOnly = form.toLowerCase() === rule.use.toLowerCase();
      const pattern = new RegExp(`(?<![\\p{L}\\p{N}])${escape(form)}(?![\\p{L}\\p{N}])`, caseOnly ? "gu" : "giu");
      for (const match of text.matchAll(pattern)) found.push(`${match[0]} (use ${rule.use})`);
    }
  }
  return found;
}

/** A reference that points at a site's home page (no path, or only "/") instead of the document. */
export function isHomePage(url: string): boolean {
  return new URL(url).pathname === "/";
}

const normalize = (text: string) =>
  text
    .replace(/[*_]/g, "")
    .replace(/[“”]/g, '"')
    .replace(/[‘’]/g, "'")
    .replace(/\s+/g, " ")
    .trim();

/**
 * The `:::quote` blocks of a Markdown body whose words do not appear, as written, elsewhere in
 * the same body: a pull quote repeats a sentence of its article, it does not add one.
 */
export function quotesNotInArticle(markdown: string): string[] {
  const block = /^:::quote(?:\{[^}\n]*\})?[ \t]*\n([\s\S]*?)\n:::[ \t]*$/gm;
  const quotes = [...markdown.matchAll(block)];
  const rest = normalize(readableText(markdown.replace(block, " ")));
  return quotes.map((q) => normalize(readableText(q[1]!))).filter((quote) => !rest.includes(quote));
}

/** Whether a Markdown body places the hashtags block (`::hashtags` on a line of its own). */
export function hasHashtagsBlock(markdown: string): boolean {
  return /^::hashtags(?:\{[^}\n]*\})?[ \t]*$/m.test(markdown);
}
