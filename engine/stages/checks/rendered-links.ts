/**
 * Internal links, checked where readers meet them: on the rendered pages. A link written in
 * Markdown, in a template, a card, an edition or a data table must lead to a page, a file of
 * `public/` or one the build writes, and its `#anchor` to an element id that page renders
 * (a heading, or an id a template or block gives).
 *
 * Two passes. Before rendering, the links of the Markdown are checked for their route (a
 * missing page stops the build before anything is written, at the link's file:line:column).
 * After rendering, every `<a href>` of every page is: each page's links and ids are kept
 * with it in the cache, so pages taken unchanged from the last build are checked too. An
 * error found there points at the Markdown link it came from, else at the first place the
 * address is written in the content (site.yaml, a collection, a data file, the article's
 * front matter), else at the place in the theme's code that writes it (`templateLinkErrors`).
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import type { Deps } from "../../incremental/dependencies.js";
import { listFiles } from "../../lib/files.js";
import { readTags, type PageTags } from "../../lib/html-tags.js";
import { scriptHash } from "../../lib/hash.js";
import type { ContentWarning } from "../../lib/errors.js";
import type { Redirect } from "../routes/aliases.js";
import type { Article, SiteContent } from "../load/content.js";
import { ContentError } from "../../lib/errors.js";
import type { InternalLink } from "../markdown/article-markdown.js";
import type { MarkdownBodies } from "../markdown/markdown-stage.js";
import { describe, type Moved } from "../routes/published-routes.js";
import { isPublicFile } from "../../lib/public-files.js";
import type { LinkTargets } from "../routes/addresses.js";
import { articleOf, cannotTell, type Route, type RouteTable } from "../routes/routes.js";
import { nearest } from "../../lib/nearest.js";
import { sourceText } from "../../lib/source-text.js";
import { metaOf, shareTextOf, type ShareText } from "./share-text.js";
import { idsOf as recordedIds } from "./page-reads.js";

/** What a rendered page links to (its internal `<a href>`s, each once) and the ids it has. */
/**
 * A page as the build record keeps it: what it was rendered from, its size, and what the
 * checks read of it (its links and ids, what it shows when shared), so a page taken as it was
 * from the last build is checked too.
 */
export interface PageEntry {
  outFile: string;
  /** What it read, with each value's hash. An entry read from the store has it only once asked for (`BuildCache.fill`): a page it keeps is taken on `reads` and `sum`. */
  deps: Deps;
  /** The ids of `deps` in their order, its route's own written relative to it (pipeline/render-pages.ts, `readsOf`: pages alike share one list in the store). */
  reads?: readonly string[];
  /** The hash of every id of `deps` with its hash, in their order. */
  sum?: string;
  /** Size of the page's HTML: a file of another size in the output is not taken as it. */
  size: number;
  /** Its internal links and element ids: a page kept as it was is checked too. */
  links?: string[];
  ids?: string[];
  /** The site's files it loads, its inline scripts and handlers (`pageWarningCheck`). */
  files?: string[];
  scripts?: [string, string][];
  handlers?: string[];
  /** What a link to it loses when shared (share-text.ts, `shareMessage`), said where it was rendered; none for a page that loses nothing. */
  shareSays?: string;
}

export interface PageLinks {
  links: string[];
  ids: string[];
  /** The site's own files it loads (`<link href>`, `<img src>`, `<script src>`…), as paths, each once. */
  files?: string[];
  /** Its inline scripts, each as [its CSP hash, its first words]: the policy blocks one it does not name. */
  scripts?: [string, string][];
  /** Its inline event handlers (`button onclick`): the policy blocks every one. */
  handlers?: string[];
}

/** An internal address: a path on this site (`/x`, `/x#y`) or an anchor of the page itself (`#y`). */
const isInternal = (href: string) => href.startsWith("#") || (href.startsWith("/") && !href.startsWith("//"));

const MAYBE_ID_OR_HREF = /\s(id|href|src|on[a-z]+)\s*=/i;
/** Elements that load a file of the site by `src` (a `<link>` by `href`). */
const LOADS = new Set(["img", "script", "source", "video", "audio", "iframe", "embed"]);
/** The type of an inline script a browser runs (a JSON-LD or template block is data, which no policy blocks). */
const RUNS = /^\s*$|^\s*(module|(text|application)\/(java|ecma)script)\s*$/i;

/**
 * What the checks keep of a rendered page, from one scan of it: its internal links and ids
 * (entities decoded as a browser reads them), the files it loads, its inline scripts and
 * handlers, and what a link to it shows when shared (share-text.ts).
 */
export function pageFindings(html: string): PageLinks & { share: ShareText } {
  const tags = readTags(html, MAYBE_ID_OR_HREF);
  return { ...linksOf(tags), share: shareTextOf(metaOf(tags)) };
}

/** The internal links and the ids of a scanned page; the files it loads, its inline scripts and handlers. */
function linksOf({ tags, scripts: found }: PageTags): PageLinks {
  const links = new Set<string>();
  const ids = new Set<string>();
  const files = new Set<string>();
  const handlers = new Set<string>();
  for (const { name, attributes } of tags) {
    if (attributes.id !== undefined) ids.add(attributes.id);
    if (name === "a" && attributes.href !== undefined && isInternal(attributes.href)) links.add(attributes.href);
    const loaded = name === "link" ? attributes.href : LOADS.has(name) ? attributes.src : undefined;
    if (loaded !== undefined && loaded.startsWith("/") && !loaded.startsWith("//")) files.add(loaded.replace(/[?#].*$/, ""));
    for (const attribute of Object.keys(attributes)) if (/^on[a-z]+$/.test(attribute)) handlers.add(`${name} ${attribute}`);
  }
  const scripts: [string, string][] = [];
  for (const [attributes, code] of found) {
    if (/\ssrc\s*=/i.test(attributes) || !code.trim() || !RUNS.test(/\stype\s*=\s*["']?([^"'\s>]*)/i.exec(attributes)?.[1] ?? "")) continue;
    scripts.push([scriptHash(code), code.trim().split("\n")[0]!.slice(0, 60)]);
  }
  return { links: [...links], ids: [...ids], ...(files.size > 0 ? { files: [...files] } : {}), ...(scripts.length > 0 ? { scripts } : {}), ...(handlers.size > 0 ? { handlers: [...handlers] } : {}) };
}

type Problem = { message: string; hint: string };

/** A URL part with its percent-escapes decoded; undefined when one is malformed (`%zz`, a lone `%`). */
function decode(part: string): string | undefined {
  try {
    return decodeURIComponent(part);
  } catch {
    return undefined;
  }
}

/**
 * What is wrong with an internal link, if anything. `idsOf` gives the ids of a route's page
 * (after rendering); without it anchors are not checked.
 */
export function linkProblem(url: string, targets: LinkTargets, idsOf?: (route: Route) => ReadonlySet<string> | undefined, here?: Route): Problem | undefined {
  const { content, table, redirects, publicFiles, generated } = targets;
  const hashAt = url.indexOf("#");
  const pathPart = (hashAt < 0 ? url : url.slice(0, hashAt)).replace(/\?.*$/, "");
  const anchor = hashAt < 0 ? undefined : url.slice(hashAt + 1);
  const decodedPath = decode(pathPart);
  const decodedAnchor = anchor === undefined ? "" : decode(anchor);
  if (decodedPath === undefined || decodedAnchor === undefined) {
    return {
      message: `link \`${url}\` has a malformed percent-encoding`,
      hint: "write % as %25, or use the characters themselves (a route is lowercase letters, digits and hyphens)",
    };
  }
  const fragment = anchor === undefined ? "" : `#${anchor}`;
  let route: Route | undefined;
  if (decodedPath === "") {
    route = here; // `#anchor`: this page
  } else {
    // Servers answer a route at its exact path only: /x/ is a 404 everywhere.
    if (decodedPath.length > 1 && decodedPath.endsWith("/")) {
      return { message: `link to ${decodedPath} ends with a slash, and no page is served there`, hint: `write ${decodedPath.replace(/\/+$/, "")}${fragment}` };
    }
    route = table.byPath.get(decodedPath);
    if (!route) {
      // A file of public/ (a PDF, the favicon) or one the build writes: its #fragment is not ours to check.
      if (isPublicFile(publicFiles, pathPart) || generated.has(decodedPath)) return undefined;
      const old = redirects.get(decodedPath);
      if (old) {
        return {
          message: `link to ${decodedPath}, an old address of ${old.to}`,
          hint: `link to ${old.to}${fragment}: readers go straight there, with no redirect on the way (on GitHub Pages, no page in between)`,
        };
      }
    }
    if (!route || route.kind === "not-found") {
      // The article at that route did not load (or the pages could not be listed): its own error is reported, not this one.
      if (cannotTell(table, decodedPath)) return undefined;
      const moved = targets.movedTo(decodedPath);
      const guess = moved ? undefined : nearest(decodedPath, table.routes.filter((r) => r.kind !== "not-found").map((r) => r.path));
      return {
        message: `broken link: no page has the route ${decodedPath}`,
        hint: content.draftRoutes.has(decodedPath)
          ? `${decodedPath} is a draft: publish it (remove \`draft: true\`) or remove the link`
          : moved
            ? `its page ${moved.because.startsWith("a new") ? "may have moved" : "moved"} to ${moved.to} (${describe(moved)}): link to ${moved.to}${fragment}`
            : guess
              ? `did you mean ${guess}${fragment}?`
              : "link to an existing route (the file path under content/articles without .md)",
      };
    }
  }
  if (!decodedAnchor || !route || !idsOf) return undefined;
  const ids = idsOf(route);
  if (!ids || ids.has(decodedAnchor)) return undefined;
  const guess = nearest(decodedAnchor, [...ids]);
  const shown = [...ids].slice(0, 8).map((id) => `#${id}`).join(", ");
  return {
    message: `broken link: ${decodedPath || route.path} has no element with the id #${decodedAnchor}`,
    hint: guess ? `did you mean #${guess}?` : `the ids of that page (its headings and what its template gives): ${shown}${ids.size > 8 ? "…" : ""}`,
  };
}

/** Before rendering: each Markdown link leads to a page (its #anchor is checked on the rendered pages). */
export function markdownLinkErrors(content: SiteContent, markdown: MarkdownBodies, targets: LinkTargets): ContentError[] {
  const sourceOf = articleSources(content.articles);
  const errors: ContentError[] = [];
  for (const { result } of markdown.values()) {
    for (const link of result.links) {
      const problem = linkProblem(link.url, targets);
      if (problem) errors.push(new ContentError({ file: link.file, line: link.line, column: link.column, source: sourceOf(link.file), ...problem }));
    }
  }
  return errors;
}

/** An article's text by its file, for an error's code frame: the whole site's looked up only once an error is found (rare), not on every save. */
function articleSources(articles: readonly Article[]): (file: string) => string | undefined {
  let byFile: Map<string, Article> | undefined;
  return (file) => {
    const article = (byFile ??= new Map(articles.map((a) => [a.file, a]))).get(file);
    // Its text read again when the build took it on its file's evidence (`sourceText`).
    return article && sourceText(article);
  };
}

/** A page as the whole-site check sees it: its route, what it links to, its ids and what it read. */
export interface CheckedPage {
  route: Route;
  links: readonly string[];
  ids: readonly string[];
  /** The dependency ids the page read (`body:<file>`, `site`, `collection:cards`…). */
  reads: readonly string[];
  /** What a link to it loses when shared (`PageEntry.shareSays`). */
  shareSays?: string;
  /** The site's files it loads, its inline scripts and handlers (`pageWarningCheck`). */
  files?: readonly string[];
  scripts?: readonly (readonly [string, string])[];
  handlers?: readonly string[];
}

/** Where the theme's code is, to point at a link a template writes: its folders, absolute, and the project they are named from. */
export interface ThemeSources {
  projectRoot: string;
  folders: readonly string[];
}

/** Every rendered page as the check sees it: its links, ids and what it read (a route without a record was not rendered, and is not checked). */
export function checkedPages(routes: readonly Route[], pages: Readonly<Record<string, PageEntry>>): CheckedPage[] {
  return routes.flatMap((route) => {
    const entry = pages[route.path];
    return entry ? [{ route, links: entry.links ?? [], ids: entry.ids ?? [], reads: recordedIds(route, entry.reads ?? Object.keys(entry.deps ?? {})) ?? [], shareSays: entry.shareSays, files: entry.files, scripts: entry.scripts, handlers: entry.handlers }] : [];
  });
}

/**
 * Every page of a run, for what the check of some pages reads of the others: the ids of a page
 * an #anchor leads to, and (rare: a body no page shows) every page's reads and ids.
 */
export interface SitePages {
  /** The ids of the page at a route; undefined when it has no page. */
  idsOf(path: string): readonly string[] | undefined;
  /** The routes that have a page, in route order. */
  routes: readonly Route[];
  /** Every page as the check sees it. */
  all(): readonly CheckedPage[];
  /** The articles' files whose page is one of `routes` (an article's and its translations'): made once a check, for the stage and its errors both. */
  own(): ReadonlySet<string>;
  /** The files of `markdown`'s bodies that are not `own()`, in its order (nearly always none): found once a check, for the stage and its errors both. */
  unowned(markdown: MarkdownBodies): readonly string[];
}

/** The pages of a run as `SitePages`: each page's record read only when the check asks for it. */
export function sitePages(routes: readonly Route[], pages: Readonly<Record<string, PageEntry>>): SitePages {
  let all: CheckedPage[] | undefined;
  let own: Set<string> | undefined;
  let unowned: { of: MarkdownBodies; files: string[] } | undefined;
  const paged = routes.filter((r) => Object.hasOwn(pages, r.path));
  const ownSet = () => (own ??= ownFiles(paged));
  const unownedOf = (markdown: MarkdownBodies) => {
    if (unowned?.of !== markdown) {
      const files: string[] = [];
      for (const file of markdown.keys()) if (!ownSet().has(file)) files.push(file);
      unowned = { of: markdown, files };
    }
    return unowned.files;
  };
  return { idsOf: (path) => (Object.hasOwn(pages, path) ? (pages[path]!.ids ?? []) : undefined), routes: paged, all: () => (all ??= checkedPages(routes, pages)), own: ownSet, unowned: unownedOf };
}

/**
 * After rendering: every link of `pages` (all of `site`'s, or those a rebuild checks again),
 * and its #anchor against the ids of the page it leads to among `site`'s; then the links of
 * the bodies no page shows.
 */
export function renderedLinkErrors(pages: readonly CheckedPage[], targets: LinkTargets, markdown: MarkdownBodies, themeCode: ThemeSources | undefined, site: SitePages): ContentError[] {
  const { content } = targets;
  const idSets = new Map<string, Set<string>>();
  const idsOf = (route: Route) => {
    let ids = idSets.get(route.path);
    if (!ids) {
      const found = site.idsOf(route.path);
      if (!found) return undefined;
      idSets.set(route.path, (ids = new Set(found)));
    }
    return ids;
  };
  const errors: ContentError[] = [];
  const reported = new Set<string>();
  const verdicts = new Map<string, Problem | undefined>();
  // The theme's code, read when a link is found nowhere in the content (rare: most builds never read it).
  let code: SourceFile[] | undefined;
  const codeFiles = () => (code ??= themeCode ? readThemeCode(themeCode) : []);
  for (const page of pages) {
    for (const href of page.links) {
      // The same link on many pages (the header's, a card's) is judged once; `#x` depends on the page.
      const key = href.startsWith("#") ? `${page.route.path}${href}` : href;
      let problem = verdicts.get(key);
      if (!verdicts.has(key)) verdicts.set(key, (problem = linkProblem(href, targets, idsOf, page.route)));
      if (!problem) continue;
      for (const error of locate(href, page, problem, content, markdown, codeFiles)) {
        const id = `${error.location}\0${error.message}`;
        if (reported.has(id)) continue;
        reported.add(id);
        errors.push(error);
      }
    }
  }
  // A body no rendered page shows (an article that lost its route to another): its links'
  // #anchors are checked all the same, at their place in the Markdown.
  // A page shows the body of its article (or of the one it features): the bodies pages read besides are gathered only when a body is left (rare).
  // Only the bodies no page of their own shows are looked at (`unowned`: nearly always none).
  let read: Set<string> | undefined;
  const isShown = (file: string) => (read ??= new Set(site.all().flatMap((page) => articlesOf(page, content).map((a) => a.file)))).has(file);
  const sourceOf = articleSources(content.articles);
  // The ids every article page has whatever its body (the template's own): with a body's
  // headings, the ids its page would have, for a body whose article did not load.
  let templateIds: Set<string> | undefined;
  const commonIds = () =>
    (templateIds ??= site
      .all()
      .filter((p) => p.route.kind === "article")
      .map((p) => new Set(p.ids))
      .reduce<Set<string> | undefined>((all, ids) => (all ? new Set([...all].filter((id) => ids.has(id))) : ids), undefined) ?? new Set());
  for (const file of site.unowned(markdown)) {
    if (isShown(file)) continue;
    const { result, unpublished } = markdown.get(file)!;
    // The body of an article whose front matter failed: no page has its route; its own #anchors are checked against its headings.
    const ownIds = () => new Set([...commonIds(), ...result.headings.map((h) => h.id)]);
    for (const link of result.links) {
      if (link.url.startsWith("#")) continue; // the anchor of a page it does not have
      const at = link.url.indexOf("#");
      if (unpublished !== undefined && at > 0 && link.url.slice(0, at) === unpublished) {
        const anchor = decode(link.url.slice(at + 1)) ?? link.url.slice(at + 1);
        if (!ownIds().has(anchor)) {
          errors.push(new ContentError({ file: link.file, line: link.line, column: link.column, source: sourceOf(link.file), message: `broken link: ${unpublished} has no element with the id #${anchor}`, hint: `its headings' ids: ${result.headings.map((h) => `#${h.id}`).join(", ") || "none"}` }));
        }
        continue;
      }
      const problem = linkProblem(link.url, targets, idsOf);
      if (problem) errors.push(new ContentError({ file: link.file, line: link.line, column: link.column, source: sourceOf(link.file), ...problem }));
    }
  }
  return errors;
}

/** A warning of one page, with what it is said once for in the whole site (`file /x`, `script <hash>`, `handler button onclick`). */
export type PageWarning = [once: string, warning: ContentWarning];

/** The warnings of pages in route order, each said once: at the first page that has it. */
export function sayOnce(lists: Iterable<readonly PageWarning[]>): ContentWarning[] {
  const said = new Set<string>();
  const warnings: ContentWarning[] = [];
  for (const list of lists) {
    for (const [once, warning] of list) {
      if (said.has(once)) continue;
      said.add(once);
      warnings.push(warning);
    }
  }
  return warnings;
}

/**
 * What a page does that will fail in a reader's browser, though it builds: a file it loads
 * that the site does not have (a favicon, a stylesheet, an image the theme names: a 404 in
 * every page's console), an inline script the Content-Security-Policy does not name by its
 * hash, an inline event handler (the policy blocks every one). Each is said once (`sayOnce`:
 * at the first page in route order that has it), at the line of the theme's code that writes
 * it when it can be found there (else in site.yaml, else at the template), as a warning: the
 * pages work otherwise. A page at a time: what one page would be warned of were it the first
 * to have it, and the favicon's warning (said before any page's).
 */
export function pageWarningCheck(targets: LinkTargets, site: { inlineScript?: string; favicon?: string }, themeCode?: ThemeSources) {
  const { inlineScript, favicon } = site;
  let code: SourceFile[] | undefined;
  const codeFiles = () => (code ??= themeCode ? readThemeCode(themeCode) : []);
  /** Where each text is first written in the theme's code or site.yaml (many pages load the same files): looked for once. */
  const places = new Map<string, { file: string; line: number } | undefined>();
  /** The first place `text` is written in the theme's code, or in site.yaml. */
  const placeOf = (text: string, page: CheckedPage): { file: string; line?: number } => {
    if (!places.has(text)) {
      let found: { file: string; line: number } | undefined;
      for (const { file, source } of [...codeFiles(), targets.content.site]) {
        const at = source.indexOf(text);
        if (at >= 0) {
          found = { file, line: source.slice(0, at).split("\n").length };
          break;
        }
      }
      places.set(text, found);
    }
    return places.get(text) ?? { file: `the '${page.route.template}' template (page ${page.route.path})` };
  };
  const allowed = new Set(inlineScript ? [scriptHash(inlineScript)] : []);
  /** A path of the site that names no file (undefined: it names one, or is not the site's); each path looked at once (every page loads the same few). */
  const verdicts = new Map<string, string | undefined>();
  const missing = (file: string) => {
    if (verdicts.has(file)) return verdicts.get(file);
    const decoded = decode(file) ?? file;
    const ours = decoded.startsWith("/") && !decoded.startsWith("//") && !decoded.startsWith("/assets/images/") && !decoded.startsWith("/assets/cards/");
    const found = !ours || targets.table.byPath.has(decoded) || isPublicFile(targets.publicFiles, file) || targets.generated.has(decoded) || targets.redirects.has(decoded);
    verdicts.set(file, found ? undefined : decoded);
    return verdicts.get(file);
  };
  /** Where a path is written: quoted in the theme's code or site.yaml, else anywhere there, else the page's template. */
  const placeOfPath = (file: string, page: CheckedPage) => {
    const quoted = placeOf(`"${file}"`, page);
    return quoted.line === undefined ? placeOf(file, page) : quoted;
  };
  return {
    /** The favicon siteMeta names: every browser asks for it (or for /favicon.ico when no page links one). */
    favicon(first: CheckedPage | undefined): PageWarning[] {
      const icon = favicon === undefined ? undefined : missing(favicon);
      if (icon === undefined || !first) return [];
      return [[`file ${icon}`, { ...placeOfPath(favicon!, first), message: `the favicon (siteMeta's \`favicon\`) ${icon} names no file of the site: every page's browser asks for it and gets a 404; put the file in public/, or correct the path` }]];
    },
    page(page: CheckedPage): PageWarning[] {
      const found: PageWarning[] = [];
      for (const file of page.files ?? []) {
        const decoded = missing(file);
        if (decoded === undefined) continue;
        found.push([`file ${decoded}`, { ...placeOfPath(file, page), message: `${decoded} names no file of the site (page ${page.route.path} loads it): every page that does gets a 404; put the file in public/, or correct the path` }]);
      }
      for (const [hash, start] of page.scripts ?? []) {
        if (allowed.has(hash)) continue;
        found.push([
          `script ${hash}`,
          {
            ...placeOf(start, page),
            message: `an inline <script> (\`${start}\`, on ${page.route.path}) is blocked by the page's Content-Security-Policy, which allows inline scripts only by hash: move it into a file of the theme's assets (\`assets.entries\`), or make it the theme's \`assets.inline\` script`,
          },
        ]);
      }
      for (const handler of page.handlers ?? []) {
        const [element, attribute] = handler.split(" ");
        found.push([
          `handler ${handler}`,
          {
            ...placeOf(`${attribute}=`, page),
            message: `an inline event handler (<${element} ${attribute}>, on ${page.route.path}) is blocked by the page's Content-Security-Policy: attach the handler from a script of the theme's assets, or from an island`,
          },
        ]);
      }
      return found;
    },
  };
}

/** The articles' files whose page one of `routes` is (each its article and translations). */
function ownFiles(routes: readonly Route[]): Set<string> {
  const files = new Set<string>();
  for (const route of routes) {
    const variants = articleOf(route);
    if (!variants) continue;
    files.add(variants.main.file);
    for (const a of variants.translations) files.add(a.file);
  }
  return files;
}

/** The articles whose page a route is: its article and translations (none for another page). */
function ownArticles(route: Route): Article[] {
  const variants = articleOf(route);
  return variants ? [variants.main, ...variants.translations] : [];
}

/** The articles a page shows: its own (and translations), and every body it read. */
function articlesOf(page: CheckedPage, content: SiteContent): Article[] {
  const files = new Set(page.reads.filter((id) => id.startsWith("body:")).map((id) => id.slice(5)));
  const own = ownArticles(page.route);
  for (const a of own) files.add(a.file);
  const byFile = new Map(own.map((a) => [a.file, a]));
  return [...files].flatMap((file) => byFile.get(file) ?? content.articles.find((a) => a.file === file) ?? []);
}

/** Where a link of a page is written: its Markdown, else the content files the page read, else its template. */
function locate(href: string, page: CheckedPage, problem: Problem, content: SiteContent, markdown: MarkdownBodies, codeFiles: () => SourceFile[]): ContentError[] {
  const articles = articlesOf(page, content);
  // As written, or as the Markdown pipeline percent-encoded it (`#seção` is rendered `#se%C3%A7%C3%A3o`).
  const written = decode(href) ?? href;
  const inMarkdown: InternalLink[] = articles.flatMap((a) => markdown.get(a.file)?.result.links.filter((l) => l.url === href || (decode(l.url) ?? l.url) === written) ?? []);
  if (inMarkdown.length > 0) {
    const sourceOf = articleSources(articles);
    return inMarkdown.map((l) => new ContentError({ file: l.file, line: l.line, column: l.column, source: sourceOf(l.file), ...problem }));
  }
  // Written as it is in a content file the page read: site.yaml, a collection, a data file, the front matter.
  const sources: { file: string; source: string }[] = articles.map((a) => ({ file: a.file, source: sourceText(a) }));
  if (page.reads.includes("site")) sources.push(content.site);
  for (const id of page.reads) {
    if (id.startsWith("collection:")) {
      const collection = content.collections[id.slice(11)];
      if (collection) sources.push(collection);
    } else if (id.startsWith("data:")) {
      const data = content.data.get(id.slice(5));
      if (data) sources.push(data);
    } else if (id === "data" || id.startsWith("listing:") || id.startsWith("block:")) {
      // Listings and blocks are computed from the collections and data files.
      for (const collection of Object.values(content.collections)) sources.push(collection);
      for (const data of content.data.values()) sources.push(data);
    }
  }
  const pattern = new RegExp(`${href.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}(?![\\w/#-])`);
  const seen = new Set<string>();
  for (const { file, source } of sources) {
    if (seen.has(file)) continue;
    seen.add(file);
    const match = pattern.exec(source);
    if (!match) continue;
    const before = source.slice(0, match.index);
    const line = before.split("\n").length;
    const column = match.index - before.lastIndexOf("\n");
    return [new ContentError({ file, line, column, source, ...problem })];
  }
  const inCode = templateLinkErrors(href, problem, codeFiles());
  if (inCode.length > 0) return inCode;
  return [new ContentError({ file: `the '${page.route.template}' template (page ${page.route.path})`, ...problem, message: `${problem.message} (a link the template writes)` })];
}

/** A file of the theme's code, named from the project's root. */
interface SourceFile {
  file: string;
  source: string;
}

/** The theme's scripts and templates, as text. */
function readThemeCode({ projectRoot, folders }: ThemeSources): SourceFile[] {
  return folders
    .flatMap((folder) => listFiles(folder))
    .filter((file) => /\.(tsx?|jsx?|mjs)$/.test(file))
    .map((file) => ({ file: path.relative(projectRoot, file), source: readFileSync(file, "utf8") }));
}

/**
 * A link a template writes, at the place in the theme's code that writes it. Production
 * renders keep no trace of where an element was written (React 19 dropped elements' source
 * positions; its development build keeps only a stack, and the build renders with the
 * production one), so the address is looked for in the theme's sources: written whole
 * (`href="/sobre"`, `"/sobre"`), or, computed, by the fixed start of a template string
 * (`` `/tags/${tag}` `` for /tags/dessert). Every place that writes it is named; none found,
 * the caller names the template.
 */
function templateLinkErrors(href: string, problem: Problem, files: readonly SourceFile[]): ContentError[] {
  const exact: ContentError[] = [];
  let prefix: { at: ContentError; length: number } | undefined;
  // A quoted string or the fixed part of a template string that starts like an address.
  const STRING = /(["'`])(\/[^"'`$\s]*)(\1|\$\{)/g;
  for (const { file, source } of files) {
    for (const m of source.matchAll(STRING)) {
      const [, , value, end] = m;
      const whole = end !== "${" && value === href;
      const start = end === "${" && value!.length > 1 && href.startsWith(value!);
      if (!whole && !start) continue;
      const before = source.slice(0, m.index);
      const line = before.split("\n").length;
      const column = m.index - before.lastIndexOf("\n") + 1;
      const error = new ContentError({
        file,
        line,
        column,
        source,
        ...problem,
        message: `${problem.message} (a link written in the theme's code)`,
        hint: `${problem.hint}; or add the page it points at`,
      });
      if (whole) exact.push(error);
      else if (!prefix || value!.length > prefix.length) prefix = { at: error, length: value!.length };
    }
  }
  return exact.length > 0 ? exact : prefix ? [prefix.at] : [];
}
