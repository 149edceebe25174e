/**
 * Stage 4 — checks: what needs the whole site. Every internal link written in Markdown must
 * lead to a page, a file of public/ or a file the build writes (link-check.ts; #anchors are
 * checked on the rendered pages, before the site is published), then the theme's own checks
 * (a card pointing nowhere). Returns the errors; changes nothing.
 *
 * After render, every link and #anchor of every page as rendered (`renderedLinkStage`). A
 * build that has errors already renders its pages all the same, in memory, for that check
 * (pipeline/render-pages.ts's `unwrittenLinkStage`): one run reports every error.
 */
import { ContentError, staged, type ContentIssue, type ContentWarning, type Staged } from "../../lib/errors.js";
import { runEditorialRules, type RuleMemory, type RuleState } from "./editorial-rules.js";
import type { Article, SiteContent } from "../load/content.js";
import { checkedPages, markdownLinkErrors, pageWarnings, renderedLinkErrors, type CheckedPage, type ThemeSources } from "./rendered-links.js";
import { linkTargets, type Addresses, type EarlierArticles } from "../routes/addresses.js";
import type { MarkdownBodies } from "../markdown/markdown-stage.js";
import { articleOf, type RouteTable } from "../routes/routes.js";
import { shareWarnings } from "./share-text.js";
import { locate } from "../../lib/yaml-source.js";
import type { CheckHelpers, Theme } from "../../theme.js";

export interface CheckInput {
  content: SiteContent;
  table: RouteTable;
  markdown: MarkdownBodies;
  addresses: Addresses;
  earlier: EarlierArticles;
  /** The site's editorial rules (content/rules.yaml) find errors, not warnings (`--strict`, or CI). */
  strict?: boolean;
  /** What the last run's editorial rules found in each article (watch mode, or the cache): an article whose text did not change is not read again. */
  rules?: RuleMemory;
  /** What the last run of this process found out beside that memory (watch mode): the rules look only at what changed since. */
  ruleState?: RuleState;
}

/** What the checks give the next runs: what the editorial rules found in each article, and the articles they read in this run. */
export interface CheckOutput {
  rules?: RuleMemory;
  ruleState?: RuleState;
  /** The articles' files the editorial rules read (the others' findings were the memory's). */
  read: string[];
}

/** The whole-site checks: what is wrong, and what the editorial rules found in each article (for the next run). */
export async function checkStage({ content, table, markdown, addresses, earlier, strict, rules: previous, ruleState }: CheckInput, theme: Theme): Promise<Staged<CheckOutput>> {
  const targets = linkTargets(content, table, addresses, earlier);
  const found: CheckHelpers = {
    movedTo: (route) => {
      const moved = targets.movedTo(route);
      return moved && { to: moved.to, file: moved.file };
    },
  };
  const rules = editorialFindings(content, theme.languages, strict === true, previous, ruleState);
  return staged({ rules: rules.memory, ruleState: rules.state, read: rules.read }, [...markdownLinkErrors(content, markdown, targets), ...(await themeChecks(theme, content, table, found)), ...rules.errors], rules.warnings);
}

/**
 * What the site's editorial rules find: warnings at file:line, or (strict) errors with their
 * code frame. None while the rules file did not load (its own errors are reported).
 */
export function editorialFindings(
  content: SiteContent,
  languages: readonly string[],
  strict: boolean,
  previous?: RuleMemory,
  last?: RuleState,
): { errors: ContentError[]; warnings: ContentWarning[]; memory?: RuleMemory; state?: RuleState; read: string[] } {
  const rules = content.rules;
  if (!rules?.value) return { errors: [], warnings: [], read: [] };
  const { findings, memory, read, state } = runEditorialRules(content, rules.value, languages, previous, last);
  if (!strict) return { errors: [], warnings: findings.map(({ file, line, rule, message }) => ({ file, line, message: `${message} [${rule}]` })), memory, state, read };
  const hint = `a rule of ${rules.file}: fix the text, or change the rule there (without --strict, and outside CI, it is a warning)`;
  return { errors: findings.map(({ file, line, column, source, rule, message }) => new ContentError({ file, line, column, source, message: `${message} [${rule}]`, hint })), warnings: [], memory, state, read };
}

/** The theme's own checks; none while a file they read did not load (its own errors are reported). */
async function themeChecks(theme: Theme, content: SiteContent, table: RouteTable, found: CheckHelpers): Promise<ContentError[]> {
  try {
    return (await theme.check?.(content, table, found)) ?? [];
  } catch (error) {
    if (content.unavailable.length === 0) throw error;
    return [];
  }
}

export interface RenderedLinkInput extends CheckInput {
  pages: readonly CheckedPage[];
  /** The assets' files: link targets too. */
  files: readonly string[];
  /** Where the theme's code is: a link a template writes is named at its line. */
  themeCode?: ThemeSources;
  /** The theme's inline script (the one the policy names by its hash). */
  inlineScript?: string;
  /** The favicon the site's meta names (`siteMeta(site).favicon`). */
  favicon?: string;
}

/**
 * After render: every link and #anchor of every page as rendered (the assets' `files` are
 * link targets too); and a warning for each page whose shared title or description an app
 * will cut, at the article's title.
 */
export function renderedLinkStage({ content, table, pages, markdown, addresses, earlier, files, themeCode, inlineScript, favicon }: RenderedLinkInput): Staged<null> {
  const titleOf = (route: string) => {
    const article = articleOf(table.byPath.get(route)!)?.main;
    return article && { file: article.file, line: titleLine(article) };
  };
  const shared = pages.map(({ route, share }) => ({ route: route.path, share }));
  const targets = linkTargets(content, table, addresses, earlier, files);
  return staged(null, renderedLinkErrors(pages, targets, markdown, themeCode), [...shareWarnings(shared, titleOf), ...pageWarnings(pages, targets, { inlineScript, favicon }, themeCode)]);
}

/**
 * The line of an article's title, for a warning about it. Written on its key's line at the
 * start of a line of the front matter (`title: …`, as nearly every article has it), it is
 * found there; otherwise (a title on the next line, a block scalar, a quoted key) the YAML
 * parser locates it. Parsing the front matter again for each page whose shared title is cut
 * was most of the rendered-link stage on every build and every dev save.
 */
export function titleLine(article: Pick<Article, "file" | "source" | "format">): number | undefined {
  const lines = article.source.split("\n");
  if (/^---\r?$/.test(lines[0] ?? "")) {
    for (let i = 1; i < lines.length && !/^(---|\.\.\.)\r?$/.test(lines[i]!); i++) {
      if (/^title[ \t]*:[ \t]*[^\s|>#&!*]/.test(lines[i]!)) return i + 1;
    }
  }
  return locate(article, ["title"])?.line;
}
