/**
 * Stage 2, second half — every address the site answers besides its pages: the articles'
 * aliases and site.yaml's redirects (aliases.ts), checked against the record of addresses
 * published before (published-routes.ts), and the targets every link is checked against
 * (link-check.ts). Returns them with the errors found; changes nothing (what earlier runs read comes in as data).
 */
import path from "node:path";
import type { SiteContent } from "../load/content.js";
import { ContentError, staged, type Staged } from "../../lib/errors.js";
import { buildRedirects, type Redirect, type RedirectTable } from "./aliases.js";
import { listPublicFiles } from "../../lib/public-files.js";
import { RECORD_FILE } from "../../lib/site-paths.js";
import { answeredRoutes, readPublishedRoutes, vanishedRoutes, whereNow, pageFinder, type KnownArticles, type Moved, type PublishedRecord } from "./published-routes.js";
import { REDIRECT_FILES } from "./redirect-files.js";
import { byCodePoint, type RouteTable } from "./routes.js";
import { SITE_FILES } from "../../lib/site-paths.js";

export interface AddressInput {
  content: SiteContent;
  table: RouteTable;
  contentDir: string;
  publicDir: string;
  /** The record of published addresses: `<contentDir>/published-routes.txt` unless told otherwise; false: none. */
  recordFile?: string | false;
  /** Where earlier runs saw each article (the known articles; what the cache kept, for a new process's first build). */
  earlier: EarlierArticles;
  /** The theme's derived pages (`Theme.derivedPages`): gone, they are retired, not missing. */
  derived?: readonly string[];
}

export interface Addresses {
  redirects: RedirectTable;
  record?: PublishedRecord;
  /** Every address answered: pages, aliases, redirects. */
  answered: Set<string>;
  /** The files of public/, as paths in the site. */
  publicFiles: Set<string>;
  /** Derived pages of the record that no article makes any more: the record lets them go. */
  retired: string[];
}

/** Where earlier runs saw each article: what says where the page of a vanished address went. */
export interface EarlierArticles {
  known: KnownArticles;
  cachedArticles?: Parameters<typeof pageFinder>[1];
}

/**
 * What a link may point at: the pages, the old addresses, public/ and the files the build
 * writes (`files`: the assets, once bundled), and where a vanished page went.
 */
export function linkTargets(content: SiteContent, table: RouteTable, addresses: Addresses, earlier: EarlierArticles, files: readonly string[] = []): LinkTargets {
  const movedTo = whereNow(pageFinder(earlier.known, earlier.cachedArticles), content.articles, addresses.record, table);
  const generated = new Set([...SITE_FILES, ...files].map((f) => `/${f}`));
  return { content, table, redirects: addresses.redirects.byFrom, publicFiles: addresses.publicFiles, generated, movedTo };
}

export function addressStage({ content, table, contentDir, publicDir, recordFile, earlier, derived }: AddressInput): Staged<Addresses> {
  const publicFiles = listPublicFiles(publicDir);
  const generated = [...SITE_FILES, ...REDIRECT_FILES];
  const redirects = buildRedirects({ content, table, publicFiles, generated });
  const file = recordFile ?? path.join(contentDir, RECORD_FILE);
  const record = file === false ? undefined : readPublishedRoutes(file);
  const movedTo = whereNow(pageFinder(earlier.known, earlier.cachedArticles), content.articles, record, table);
  const answered = answeredRoutes(table, redirects.redirects);
  // A route whose article did not load is not gone: its own error says what to fix (`cannotTell`).
  const vanished = record ? vanishedRoutes({ record, answered, content, table, movedTo, derived }) : { errors: [], retired: [], notices: [] };
  const errors = [...redirects.errors, ...vanished.errors, ...publicFileErrors(publicFiles, table, generated)];
  return staged({ redirects, record, answered, publicFiles, retired: vanished.retired }, errors, vanished.notices);
}

/** What every internal link is checked against: the pages, the old addresses, public/ and the generated files. */
export interface LinkTargets {
  content: SiteContent;
  table: RouteTable;
  /** Old addresses (aliases, redirects) by address. */
  redirects: ReadonlyMap<string, Redirect>;
  publicFiles: ReadonlySet<string>;
  /** Files the build writes besides pages (`/feed.xml`, `/assets/main-x.js`), as paths. */
  generated: ReadonlySet<string>;
  /** Where the page of a vanished address went, if known. */
  movedTo: (route: string) => Moved | undefined;
}

/**
 * The page a file of `public/` has the address of: the route whose file it is (`outFileOf`:
 * `x.html` is /x's, `index.html` the home page's) or whose path it is (`x` is /x's), the
 * later in route order of the two: the public files are few, the routes thousands, so only
 * the routes the file could be are looked up.
 */
function pageAt(file: string, table: RouteTable): string | undefined {
  const byFile = file === "index.html" ? "/" : file.endsWith(".html") ? `/${file.slice(0, -".html".length)}` : undefined;
  const ofFile = byFile !== undefined && table.byPath.get(byFile)?.outFile === file ? byFile : undefined;
  const ofPath = file !== "" && table.byPath.has(`/${file}`) ? `/${file}` : undefined;
  if (ofFile === undefined || ofPath === undefined) return ofPath ?? ofFile;
  return byCodePoint(ofFile, ofPath) > 0 ? ofFile : ofPath;
}

/**
 * Files of `public/` that collide with what the build writes: a page (`404.html`, or a bare
 * `artigo-transicao` that hosts would serve at the page's address), a file the build
 * generates (`feed.xml`…), or anything under `assets/`, the generated, cached-for-ever folder.
 */
export function publicFileErrors(files: ReadonlySet<string>, table: RouteTable, generated: readonly string[]): ContentError[] {
  const errors: ContentError[] = [];
  for (const file of [...files].sort()) {
    const page = pageAt(file, table);
    const clash = page
      ? `the page ${page}`
      : generated.includes(file)
        ? `the ${file} the build writes`
        : file.startsWith("assets/")
          ? "the generated assets/ folder"
          : undefined;
    if (!clash) continue;
    errors.push(
      new ContentError({
        file: `public/${file}`,
        message: `public/${file} has the same address as ${clash}`,
        hint: file.startsWith("assets/")
          ? "assets/ is the build's own: move the file to another folder of public/"
          : "rename the file (or move it to a folder of public/), or give the page another route",
      }),
    );
  }
  return errors;
}
