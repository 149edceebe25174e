/**
 * Stage 4 — checks: what needs the whole site. Every internal link written in Markdown must
 * lead to a page, a file of public/ or a file the build writes (link-check.ts; #anchors are
 * checked on the rendered pages, before the site is published), then the theme's own checks
 * (a card pointing nowhere). Returns the errors; changes nothing.
 *
 * After render, every link and #anchor of every page as rendered (`renderedLinkStage`); a page
 * taken as it was from the last build is checked again only when a page it links to went, or
 * changed the ids it links to. A build that has errors already renders its pages all the same,
 * in memory, for that check (pipeline/render-pages.ts's `unwrittenLinkStage`): one run reports
 * every error.
 */
import { ContentError, staged, type ContentIssue, type ContentWarning, type Staged } from "../../lib/errors.js";
import { runEditorialRules, type ArticleDelta, type RuleMemory, type RuleRun, type RuleState } from "./editorial-rules.js";
import type { Article, SiteContent } from "../load/content.js";
import { checkedPages, markdownLinkErrors, pageWarningCheck, renderedLinkErrors, sayOnce, sitePages, type CheckedPage, type PageEntry, type PageWarning, type ThemeSources } from "./rendered-links.js";
import { linkTargets, type Addresses, type EarlierArticles } from "../routes/addresses.js";
import type { MarkdownBodies } from "../markdown/markdown-stage.js";
import { articleOf, type Route, type RouteTable } from "../routes/routes.js";
import { shareWarning } from "./share-text.js";
import { hashOf } from "../../lib/hash.js";
import { locate, type LocatableSource } from "../../lib/yaml-source.js";
import { sourceText } from "../../lib/source-text.js";
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
  /** The editorial rules run already, on a worker (pipeline/tasks.ts): their findings, not run again here. */
  ruleRun?: Omit<RuleRun, "state">;
  /** The articles a watch-mode save read again over the last run's content: the rules' state is changed for those alone. */
  touched?: ArticleDelta;
  /** The articles whose text is not the one of the build whose memory `rules` is (incremental/since-record.ts): every other is as that build read it. */
  changedSince?: ReadonlySet<string>;
}

/** What the checks give the next runs: what the editorial rules found in each article, and the articles they read in this run. */
export interface CheckOutput {
  rules?: RuleMemory;
  ruleState?: RuleState;
  /** The articles' files the editorial rules read (the others' findings were the memory's). */
  read: string[];
}

/** The whole-site checks: what is wrong, and what the editorial rules found in each article (for the next run). */
export async function checkStage({ content, table, markdown, addresses, earlier, strict, rules: previous, ruleState, ruleRun, touched, changedSince }: CheckInput, theme: Theme): Promise<Staged<CheckOutput>> {
  const targets = linkTargets(content, table, addresses, earlier);
  const found: CheckHelpers = {
    movedTo: (route) => {
      const moved = targets.movedTo(route);
      return moved && { to: moved.to, file: moved.file };
    },
  };
  const rules = editorialFindings(content, theme.languages, strict === true, previous, ruleState, ruleRun, touched, changedSince);
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
  ran?: Omit<RuleRun, "state"> & { state?: RuleState },
  touched?: ArticleDelta,
  changedSince?: ReadonlySet<string>,
): { errors: ContentError[]; warnings: ContentWarning[]; memory?: RuleMemory; state?: RuleState; read: string[] } {
  const rules = content.rules;
  if (!rules?.value) return { errors: [], warnings: [], read: [] };
  const { findings, memory, read, state } = ran ?? runEditorialRules(content, rules.value, languages, previous, last, touched, { changedSince });
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
  /** Every page of the run, by route (made now or taken as it was from the last build). */
  pages: Readonly<Record<string, PageEntry>>;
  /** The assets' files: link targets too. */
  files: readonly string[];
  /** Where the theme's code is: a link a template writes is named at its line. */
  themeCode?: ThemeSources;
  /** The keys of the theme's parts (incremental/code-keys.ts): a warning is placed at a line of that code. */
  code?: Readonly<Record<string, string>>;
  /** The theme's inline script (the one the policy names by its hash). */
  inlineScript?: string;
  /** The favicon the site's meta names (`siteMeta(site).favicon`). */
  favicon?: string;
  /**
   * The last successful build's record: its pages and what their check found. A page taken as
   * it was (the very entry) is not checked again unless a link of it, or a file it loads, leads
   * to a page that went, or it links with an #anchor to a page whose ids changed (`toCheck`).
   * None: every page is checked.
   */
  last?: { pages: Readonly<Record<string, PageEntry>>; links?: LinkCheckMemory };
  /**
   * Reads into the last build's pages at these routes what the check reads of them (their
   * links, ids, share text, files, scripts and handlers: the store keeps them apart, read only
   * for the pages that need them). None: every page holds them.
   */
  fill?: (routes: readonly string[]) => Promise<void>;
  /**
   * The routes of the pages made in this run, when `pages` has a page at each route of the last
   * build's record and at no other (render-pages.ts, `KeptPages.sameRoutes`): no page went,
   * and every other page is the very entry of the last build, so neither record is gone over
   * to find them (`toCheck`).
   */
  made?: readonly string[];
}

/**
 * What the check of the rendered pages found on each page, for the next build to take for a
 * page it does not check again: made by a successful build, which found no broken link on any
 * page, so a page's findings are its warnings. `key`: what the verdicts read besides the
 * pages (another key, and every page is checked again).
 */
export interface LinkCheckMemory {
  key: string;
  /** Each page's findings, by route (a page that has none is not listed). */
  found: Record<string, PageFindings>;
  /**
   * The pages that link to each page with an #anchor (their own left out), by the route linked
   * to: a page whose ids change sends these to be checked again, not every page's links.
   */
  anchors?: Record<string, string[]>;
}

/** What one page is warned of: its shared title or description cut (the message; its place is found again), what fails in its browser. */
export interface PageFindings {
  share?: string;
  warnings?: PageWarning[];
}

/**
 * After render: every link and #anchor of every page as rendered (the assets' `files` are
 * link targets too); and a warning for each page whose shared title or description an app
 * will cut, at the article's title. With the last build's record, only the pages made again
 * and the kept pages whose links a change reaches (`toCheck`) are checked; the others'
 * findings are the last check's. Returns this check's findings, for the next.
 */
export async function renderedLinkStage({ content, table, pages, markdown, addresses, earlier, files, themeCode, code, inlineScript, favicon, last, made, fill = async () => {} }: RenderedLinkInput): Promise<Staged<LinkCheckMemory>> {
  const titleOf = (route: string) => {
    const article = articleOf(table.byPath.get(route)!)?.main;
    return article && { file: article.file, line: titleLine(article) };
  };
  const targets = linkTargets(content, table, addresses, earlier, files);
  const site = sitePages(table.routes, pages);
  // What every verdict reads besides the pages: the site's files, the old addresses, where a
  // warning is placed (the theme's code, site.yaml). A table that cannot tell of some routes
  // (an article that did not load) keys nothing: every page is checked.
  const tellable = table.unreadable.size === 0 && !table.pagesUnknown && (table.derivedUnknown ?? []).length === 0;
  const key = tellable
    ? hashOf(JSON.stringify([[...targets.publicFiles].sort(), [...targets.generated].sort(), [...targets.redirects.keys()].sort(), inlineScript, favicon, Object.entries(code ?? {}).sort(), themeCode ?? null, content.site.source]))
    : "";
  const memory = key !== "" && last?.links?.key === key ? last.links : undefined;
  // A body no page of its own shows: every page is read for where it is shown (rare).
  const everyPage = !memory || site.unowned(markdown).length > 0;
  const checking = everyPage ? undefined : await toCheck(site.routes, pages, last!.pages, memory!, fill, made);
  await fill(checking ? [...checking] : site.routes.map((route) => route.path));
  const checked = checkedPages(checking ? site.routes.filter((route) => checking.has(route.path)) : site.routes, pages);
  // The pages their #anchors lead to, for their ids.
  if (checking) await fill([...new Set(checked.flatMap((page) => page.links.filter((href) => href.includes("#")).map(pathOf)))].filter((path) => Object.hasOwn(pages, path)));
  const errors = renderedLinkErrors(checked, targets, markdown, themeCode, site);
  const check = pageWarningCheck(targets, { inlineScript, favicon }, themeCode);
  const now: Record<string, PageFindings> = {};
  for (const page of checked) {
    const share = page.shareSays;
    const warnings = check.page(page);
    if (share !== undefined || warnings.length > 0) now[page.route.path] = { ...(share === undefined ? {} : { share }), ...(warnings.length > 0 ? { warnings } : {}) };
  }
  // Every page's findings in route order, this check's or (a page not checked again) the last's; one pass over the routes.
  const found: Record<string, PageFindings> = {};
  const shares: ContentWarning[] = [];
  const first = site.routes[0] && { route: site.routes[0], links: [], ids: [], reads: [] };
  const pageWarnings: (readonly PageWarning[])[] = [check.favicon(first)];
  for (const { path } of site.routes) {
    const findings = !checking || checking.has(path) ? now[path] : memory!.found[path];
    if (!findings) continue;
    found[path] = findings;
    if (findings.share !== undefined) shares.push(shareWarning(path, findings.share, titleOf));
    if (findings.warnings) pageWarnings.push(findings.warnings);
  }
  // Who links with an #anchor: this check's pages, and the last check's word for the others (none when it had no word).
  const anchors = !checking ? anchorsOf(checked) : memory!.anchors && anchorsOf(checked, { anchors: memory!.anchors, keep: (from) => !checking.has(from) && Object.hasOwn(pages, from) });
  return staged({ key, found, ...(anchors ? { anchors } : {}) }, errors, [...shares, ...sayOnce(pageWarnings)]);
}

/** Who links to each page with an #anchor: the `checked` pages' links, and the last check's for the pages `keep` says were not checked again. */
function anchorsOf(checked: readonly CheckedPage[], last?: { anchors: Record<string, string[]>; keep: (from: string) => boolean }): Record<string, string[]> {
  const anchors: Record<string, Set<string>> = {};
  for (const page of checked) {
    for (const href of page.links) {
      const target = href.includes("#") ? pathOf(href) : "";
      if (target !== "" && target !== page.route.path) (anchors[target] ??= new Set()).add(page.route.path);
    }
  }
  if (last) for (const target in last.anchors) for (const from of last.anchors[target]!) if (last.keep(from)) (anchors[target] ??= new Set()).add(from);
  return Object.fromEntries(Object.entries(anchors).map(([target, from]) => [target, [...from].sort()]));
}

/**
 * The routes to check again: every page made in this run (not the very entry of the last
 * build); every page taken as it was one of whose links (its path) or loaded files leads to a
 * route whose page went (a link to a page that was not there failed that build), or that links
 * with an #anchor to a page that has other ids than in the last build (the last check's
 * `anchors`); and, when a page is new, the kept pages warned of a file (its path may be that
 * page's). `fill`: what the check reads of the last build's pages is read for the pages made
 * again (their ids then), and for every kept page only when a page went (or the last check
 * did not say who links with an #anchor). `made`: the pages made again, when the two records
 * have the same routes (`RenderedLinkInput.made`): no page went or is new, and the kept ones
 * are listed only if a page's ids changed without the last check's `anchors`.
 */
async function toCheck(routes: readonly Route[], pages: Readonly<Record<string, PageEntry>>, before: Readonly<Record<string, PageEntry>>, { found, anchors }: LinkCheckMemory, fill: (routes: readonly string[]) => Promise<void>, made?: readonly string[]): Promise<Set<string>> {
  const changed = new Set<string>();
  const touched = new Set<string>();
  let kept: string[] | undefined;
  let added = false;
  if (made) for (const path of made) changed.add(path);
  else {
    for (const path in before) if (!Object.hasOwn(pages, path)) touched.add(path);
    kept = [];
    for (const { path } of routes) {
      const old = Object.hasOwn(before, path) ? before[path] : undefined;
      if (pages[path] === old) kept.push(path);
      else changed.add(path);
      added ||= old === undefined;
    }
  }
  await fill([...changed].filter((path) => Object.hasOwn(before, path)));
  const linkers: string[] = [];
  for (const path of changed) {
    const old = Object.hasOwn(before, path) ? before[path] : undefined;
    if (!old || sameList(pages[path]!.ids ?? [], old.ids ?? [])) continue;
    if (anchors) linkers.push(...(anchors[path] ?? []));
    else touched.add(path);
  }
  for (const path of linkers) if (Object.hasOwn(pages, path) && pages[path] === before[path]) changed.add(path);
  // (`added` only where the records were gone over: `kept` is listed then.)
  if (added) for (const path of kept!) if (found[path]?.warnings) changed.add(path);
  if (touched.size === 0) return changed;
  // The pages taken as they were, when the two records were not gone over: every route but those made again.
  const remade = new Set(made);
  kept ??= routes.flatMap(({ path }) => (remade.has(path) ? [] : [path]));
  await fill(kept);
  const leadsThere = (address: string) => touched.has(pathOf(address));
  for (const path of kept) {
    const { links = [], files = [] } = pages[path]!;
    if (links.some(leadsThere) || files.some(leadsThere)) changed.add(path);
  }
  return changed;
}

/** The path an address leads to, decoded (`/x#y?z` → `/x`); `#y`, the page itself, is "". */
function pathOf(address: string): string {
  const part = address.replace(/[?#].*$/, "");
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}

const sameList = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((x, i) => x === b[i]);

/**
 * The line of an article's title, for a warning about it. Written on its key's line at the
 * start of a line of the front matter (`title: …`, as nearly every article has it), it is
 * found there; otherwise (a title on the next line, a block scalar, a quoted key) the YAML
 * parser locates it. Parsing the front matter again for each page whose shared title is cut
 * was most of the rendered-link stage on every build and every dev save.
 */
export function titleLine(article: LocatableSource): number | undefined {
  const source = sourceText(article);
  const lines = source.split("\n");
  if (/^---\r?$/.test(lines[0] ?? "")) {
    for (let i = 1; i < lines.length && !/^(---|\.\.\.)\r?$/.test(lines[i]!); i++) {
      if (/^title[ \t]*:[ \t]*[^\s|>#&!*]/.test(lines[i]!)) return i + 1;
    }
  }
  return locate({ ...article, source }, ["title"])?.line;
}
