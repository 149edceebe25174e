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

/**
 * A link that points at a site's home page (no path, or only "/") instead of the document. On
 * gov.br, which hosts every ministry, an organ's front page (`/trabalho-e-emprego`, with or
 * without `/pt-br`) is a home page too.
 */
export function isHomePage(url: string): boolean {
  const { host, pathname } = new URL(url);
  if (pathname === "/") return true;
  return host === "www.gov.br" && /^\/[^/]+(\/pt-br)?\/?$/.test(pathname) && pathname !== "/pt-br" && pathname !== "/pt-br/";
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

/** A Markdown link `[text](target)` of a body, with the line it sits on (bodies keep their file's line numbers). */
export interface BodyLink {
  target: string;
  line: number;
  /** The date (ISO) of the dated update note the link sits in, if it sits in one. */
  updateNote?: string;
}

/**
 * A dated update note: a `:::note` whose title starts with "Atualização" and carries the date
 * of what it reports, as `:::note{title="Atualização: a ordem de 20/11/2025"}`. An article may
 * speak of what came after its own date only inside such a note (content/STYLE.md).
 */
const UPDATE_NOTE = /^:::note\{title="Atualização[^"]*?(\d{2})\/(\d{2})\/(\d{4})[^"]*"\}[ \t]*$/;

/** Every inline link of a Markdown body, each with its line and the dated update note around it. */
export function bodyLinks(markdown: string): BodyLink[] {
  const links: BodyLink[] = [];
  let note: string | undefined;
  markdown.split("\n").forEach((text, index) => {
    const opens = UPDATE_NOTE.exec(text);
    if (opens) note = `${opens[3]}-${opens[2]}-${opens[1]}`;
    else if (/^:::[ \t]*$/.test(text)) note = undefined;
    for (const match of text.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
      links.push({ target: match[1]!, line: index + 1, ...(note ? { updateNote: note } : {}) });
    }
  });
  return links;
}

/**
 * Whether `later` falls after `earlier`, both ISO dates as the site writes them ("2025-08-04",
 * or "2025-08" for a date given as a month). Compared at the coarser of the two: a page dated
 * "Agosto 2025" is not later than one dated 04/08/2025, nor earlier.
 */
export function isAfter(later: string, earlier: string): boolean {
  const length = Math.min(later.length, earlier.length);
  return later.slice(0, length) > earlier.slice(0, length);
}

/**
 * The links of an article (dated `ownDate`) to articles dated after it, as "line 102:
 * /artigo-burnout-inovacao (2025-10-11)". A link inside a dated update note passes when the
 * note is not older than the page it links to. `dateOf` gives a route's ISO date, or undefined
 * for a page without one.
 */
export function linksToLaterArticles(markdown: string, ownDate: string, dateOf: (route: string) => string | undefined): string[] {
  const found: string[] = [];
  for (const link of bodyLinks(markdown)) {
    if (!link.target.startsWith("/")) continue;
    const route = link.target.split("#")[0]!;
    const date = dateOf(route);
    if (!date || !isAfter(date, ownDate)) continue;
    if (link.updateNote && !isAfter(date, link.updateNote)) continue;
    found.push(`line ${link.line}: ${route} (${date})`);
  }
  return found;
}

/**
 * Sites whose front page is itself the service a text sends the reader to: the gov.br account,
 * the Escola Virtual de Governo's course catalogue, the Consumidor.gov.br complaint form,
 * LinkedIn. Any other front page in a body is a publisher's home page (content/STYLE.md).
 */
export const SERVICE_SITES = new Set(["www.gov.br", "www.escolavirtual.gov.br", "www.consumidor.gov.br", "www.linkedin.com"]);

/** Whether `url` is the front page of one of `services` (its root: a ministry's page on gov.br is not the gov.br account). */
function isServiceFrontPage(url: string, services: Set<string>): boolean {
  const { host, pathname } = new URL(url);
  return services.has(host) && pathname === "/";
}

/** The links of a Markdown body that open a publisher's home page instead of the service or document meant, as "line 36: https://…". */
export function homePageLinks(markdown: string, services: Set<string> = SERVICE_SITES): string[] {
  return bodyLinks(markdown)
    .filter((link) => /^https?:\/\//.test(link.target) && isHomePage(link.target) && !isServiceFrontPage(link.target, services))
    .map((link) => `line ${link.line}: ${link.target}`);
}

/**
 * The series links missing from the bodies of a series' articles, as "/a → /b": each article of
 * a series links to every other one in its own text (DECISIONS.md), not only in the list the
 * page template adds under it.
 */
export function missingSeriesLinks(series: { route: string; links: Set<string> }[]): string[] {
  const missing: string[] = [];
  for (const article of series) {
    for (const other of series) {
      if (other.route !== article.route && !article.links.has(other.route)) missing.push(`${article.route} → ${other.route}`);
    }
  }
  return missing;
}

/**
 * The `:::quote` blocks placed where a reader meets them out of turn: before the sentence they
 * repeat ("before its sentence"), or right under the paragraph that says it, so the same words
 * are read twice in a row ("right after its sentence"). A pull quote comes later, at a pause.
 */
export function misplacedQuotes(markdown: string): string[] {
  const block = /^:::quote(?:\{[^}\n]*\})?[ \t]*\n([\s\S]*?)\n:::[ \t]*$/gm;
  const found: string[] = [];
  for (const match of markdown.matchAll(block)) {
    const quote = normalize(readableText(match[1]!));
    const before = markdown.slice(0, match.index).replace(block, " ");
    const paragraphs = before.split(/\n[ \t]*\n/).filter((p) => p.trim() !== "");
    if (!normalize(readableText(before)).includes(quote)) found.push(`before its sentence: ${quote}`);
    else if (normalize(readableText(paragraphs.at(-1) ?? "")).includes(quote)) found.push(`right after its sentence: ${quote}`);
  }
  return found;
}
