/**
 * The checks of content/STYLE.md that are not editorial rules of the site (content/rules.yaml,
 * which the engine checks on every build): whether a link opens a publisher's home page, the
 * series links, the hashtags block. The tests in articles.test.ts run them over the real
 * articles, content.test.ts shows each one failing on a bad example.
 */

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

/** Whether a Markdown body places the hashtags block (`::hashtags` on a line of its own). */
export function hasHashtagsBlock(markdown: string): boolean {
  return /^::hashtags(?:\{[^}\n]*\})?[ \t]*$/m.test(markdown);
}

/** A Markdown link `[text](target)` of a body, with the line it sits on (bodies keep their file's line numbers). */
export interface BodyLink {
  target: string;
  line: number;
}

/** Every inline link of a Markdown body, each with its line. */
export function bodyLinks(markdown: string): BodyLink[] {
  return markdown.split("\n").flatMap((text, index) => [...text.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map((match) => ({ target: match[1]!, line: index + 1 })));
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
