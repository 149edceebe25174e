/**
 * The record of published addresses (content/published-routes.txt, committed): every
 * address a build has published, one a line, sorted. Shared links live on after a page
 * moves, so an address in the record that no page, alias or redirect answers any more fails
 * the build, at its line of the record, with what to write instead; deleting the line is the
 * explicit way to let an address go. A successful build (never one with drafts) adds the
 * addresses it published for the first time.
 *
 * Where a page went is found from what earlier builds read (the persistent cache's articles,
 * the articles earlier runs of watch mode read): the article that was at the old address, and the one that now
 * has the same file, the same text or the same title.
 */
import { readFileSync } from "node:fs";
import { writeFileAtomic } from "../../lib/files.js";
import { withSignalsHeld } from "../../lib/signals.js";
import path from "node:path";
import type { Redirect } from "./aliases.js";
import type { Article, ParsedArticle, SiteContent } from "../load/content.js";
import { isRecord } from "../../lib/hash.js";
import { ContentError, type ContentWarning } from "../../lib/errors.js";
import { byCodePoint, cannotTell, isDerived, type RouteTable } from "./routes.js";
import { routePath } from "../load/content-model.js";
import { nearest } from "../../lib/nearest.js";

const HEADER = [
  "# Every address this site has published, one a line (the build adds new ones).",
  "# An address here that no page, alias or redirect answers fails the build: give the page that",
  "# replaced it an `aliases:` entry, or add it to `redirects` in site.yaml. Delete a line to let it go.",
];

export interface PublishedRecord {
  /** The record's path, absolute. */
  file: string;
  /** As an author sees it (relative to the working directory). */
  shown: string;
  /** Its text ("" when there is none yet). */
  source: string;
  /** Each address with its line. */
  routes: { route: string; line: number }[];
  errors: ContentError[];
}

/** Reads the record; one that does not exist yet is empty. A line that is not a route is an error. */
export function readPublishedRoutes(file: string): PublishedRecord {
  const shown = path.relative(process.cwd(), file) || file;
  let source = "";
  try {
    source = readFileSync(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") {
      return { file, shown, source, routes: [], errors: [new ContentError({ file: shown, message: `cannot read the record of published addresses: ${(error as Error).message}`, cause: error })] };
    }
  }
  const routes: PublishedRecord["routes"] = [];
  const errors: ContentError[] = [];
  source.split("\n").forEach((raw, i) => {
    const line = raw.trim();
    if (line === "" || line.startsWith("#")) return;
    if (!routePath.safeParse(line).success) {
      errors.push(
        new ContentError({
          file: shown,
          line: i + 1,
          column: 1,
          source,
          message: `'${line}' is not a route`,
          hint: "each line holds one address the site published, like /artigo-transicao; fix it, or delete the line",
        }),
      );
      return;
    }
    routes.push({ route: line, line: i + 1 });
  });
  return { file, shown, source, routes, errors };
}

/** Every address a build answers: its pages (not the 404), aliases and redirects; drafts left out. */
export function answeredRoutes(table: RouteTable, redirects: readonly Redirect[]): Set<string> {
  const isDraft = (article: Article | undefined) => article?.meta.draft === true;
  const answered = new Set<string>();
  for (const route of table.routes) {
    if (route.kind === "not-found" || (route.kind === "article" && isDraft(route.article.main))) continue;
    answered.add(route.path);
  }
  for (const redirect of redirects) if (!isDraft(redirect.article)) answered.add(redirect.from);
  return answered;
}

/** An article as an earlier build read it. */
export interface KnownArticle {
  route: string;
  file: string;
  title: string;
  sourceHash: string;
}

/** Where the page of an old address is now, and how we know. */
export interface Moved {
  to: string;
  file: string;
  because: "the same file" | "the same text" | "the same title" | "a new address with words of the old one";
}

/** Articles earlier runs read, by route: where the page of a vanished address was. Plain data, handed from one run to the next. */
export type KnownArticles = ReadonlyMap<string, KnownArticle>;

/** What the persistent cache kept of each article file, as the load stage reads it. */
type CachedArticles = ReadonlyMap<string, { readonly sourceHash: string; readonly article?: ParsedArticle }>;

/** The known articles after a run that read `articles`: they take the place of what was known at their routes. */
export function knownAfter(known: KnownArticles, articles: readonly Article[]): KnownArticles {
  if (articles.length === 0) return known;
  const next = new Map(known);
  for (const a of articles) next.set(a.route, { route: a.route, file: a.file, title: a.meta.title, sourceHash: a.sourceHash });
  return next;
}

/**
 * Where the page of a route is now, judged from what earlier runs read: the known articles,
 * else (a new process's first build) the articles the cache kept. Indexed only when first
 * asked: most builds never look.
 */
export function pageFinder(known: KnownArticles, cached: CachedArticles | undefined): (route: string, now: readonly Article[]) => Moved | undefined {
  let index: Map<string, KnownArticle> | undefined;
  const indexed = () => {
    if (index) return index;
    index = new Map();
    for (const [file, entry] of cached ?? []) {
      const parsed = entry.article;
      if (isRecord(parsed) && typeof parsed.route === "string") index.set(parsed.route, { route: parsed.route, file, title: String(parsed.meta?.title ?? ""), sourceHash: entry.sourceHash });
    }
    for (const [route, article] of known) index.set(route, article);
    return index;
  };
  return (route, now) => {
    const old = indexed().get(route);
    if (!old) return undefined;
    const elsewhere = now.filter((a) => a.route !== route);
    const byFile = elsewhere.find((a) => a.file === old.file);
    if (byFile) return { to: byFile.route, file: byFile.file, because: "the same file" };
    const byText = elsewhere.find((a) => a.sourceHash === old.sourceHash);
    if (byText) return { to: byText.route, file: byText.file, because: "the same text" };
    const byTitle = old.title ? elsewhere.find((a) => a.meta.title === old.title) : undefined;
    if (byTitle) return { to: byTitle.route, file: byTitle.file, because: "the same title" };
    return undefined;
  };
}

/**
 * Where the page of an old address is now: as earlier builds tell (RouteHistory), else the
 * article at a new address (one the record does not list yet) whose route shares the most
 * words with the old one (a renamed file usually keeps some).
 */
export function whereNow(
  found: ReturnType<typeof pageFinder>,
  articles: readonly Article[],
  record: PublishedRecord | undefined,
  table: RouteTable,
): (route: string) => Moved | undefined {
  const listed = new Set(record?.routes.map((r) => r.route));
  let newcomers: Article[] | undefined;
  const words = (route: string) => new Set(route.split(/[/-]/).filter((w) => w.length > 2));
  return (route) => {
    const moved = found(route, articles);
    if (moved || !record) return moved;
    newcomers ??= table.routes.flatMap((r) => (r.kind === "article" && !listed.has(r.path) && r.article.main.meta.draft !== true ? [r.article.main] : []));
    const old = words(route);
    let best: Article | undefined;
    let bestScore = 0;
    for (const article of newcomers) {
      const now = words(article.route);
      const shared = [...now].filter((w) => old.has(w)).length;
      const score = shared / (old.size + now.size - shared || 1);
      if (score > bestScore) [best, bestScore] = [article, score];
    }
    return best && bestScore >= 0.3 ? { to: best.route, file: best.file, because: "a new address with words of the old one" } : undefined;
  };
}

export interface VanishedInput {
  record: PublishedRecord;
  answered: ReadonlySet<string>;
  content: SiteContent;
  table: RouteTable;
  /** Where the page of an address went (RouteHistory). */
  movedTo: (route: string) => Moved | undefined;
  /** The theme's derived pages (`Theme.derivedPages`): retired with a notice when gone, never an error. */
  derived?: readonly string[];
}

export interface Vanished {
  /** An error at each line of the record that nothing answers now. */
  errors: ContentError[];
  /** Derived pages no article makes any more: the record lets them go (`updatePublishedRoutes`). */
  retired: string[];
  /** What the author reads about each retired page. */
  notices: ContentWarning[];
}

/**
 * The addresses of the record that nothing answers now: an error at each line, but for a
 * derived page (a tag's listing), which was never a promise: it is retired with a notice.
 * An address that cannot be judged in this run (its article did not load; a derived page
 * while an article did not load: it may be that article's tag) is neither.
 */
/** How many vanished addresses are given a likely new one ("to /x?"): more than a report prints. */
const GUESSED = 100;

export function vanishedRoutes({ record, answered, content, table, movedTo, derived }: VanishedInput): Vanished {
  const errors = [...record.errors];
  const retired: string[] = [];
  const notices: ContentWarning[] = [];
  const siteFile = content.site.file;
  // Made once: asked for each vanished address, these were a pass over every route and article
  // each (a section of 90,000 addresses gone at once ran for over a quarter of an hour).
  const pages = table.routes.filter((r) => r.kind !== "not-found").map((r) => r.path);
  const drafts = new Map<string, (typeof content.articles)[number]>();
  for (const a of content.articles) if (a.meta.draft === true && !drafts.has(a.route)) drafts.set(a.route, a);
  let guessed = 0;
  for (const { route, line } of record.routes) {
    if (answered.has(route) || cannotTell(table, route)) continue;
    if (isDerived(derived, route)) {
      retired.push(route);
      notices.push({
        file: record.shown,
        line,
        notice: true,
        message: `${route} is retired: no article makes that page any more (the theme derives it from the articles, it is no promise); a build without errors takes its line out of the record`,
      });
      continue;
    }
    const draft = drafts.get(route);
    const moved = movedTo(route);
    // A likely new address for the first GUESSED only: each costs a comparison with every route,
    // and the report prints the first errors in full (lib/report.ts), not thousands.
    const guess = moved || guessed >= GUESSED ? undefined : (guessed++, nearest(route, pages));
    const hints: string[] = [];
    if (content.draftRoutes.has(route) || draft) {
      hints.push(`its article is a draft now${draft ? ` (${draft.file})` : ""}: publish it again (remove \`draft: true\`)`);
    }
    if (moved) {
      hints.push(`${moved.because.startsWith("a new") ? "it may have moved" : "it moved"} to ${moved.to} (${describe(moved)}): add \`aliases: [${route}]\` to the front matter of ${moved.file}`);
    } else {
      hints.push(`if its page moved${guess ? ` (to ${guess}?)` : ""}, add \`aliases: [${route}]\` to that article's front matter`);
    }
    hints.push(`if it is gone for good, send its readers on from ${siteFile}: \`redirects: {${route}: /}\` (or to another route)`);
    hints.push("to let the address go (it will answer 404), delete this line");
    errors.push(
      new ContentError({
        file: record.shown,
        line,
        column: 1,
        source: record.source,
        message: `${route} was published and nothing answers it now`,
        hint: hints.join("; "),
      }),
    );
  }
  return { errors, retired, notices };
}

/**
 * Adds the addresses published for the first time to the record (written aside and renamed
 * over it) and takes the retired derived pages out; the others listed stay. Returns the
 * addresses added.
 */
export async function updatePublishedRoutes(record: PublishedRecord, answered: ReadonlySet<string>, retired: readonly string[] = []): Promise<string[]> {
  const gone = new Set(retired);
  const listed = new Set(record.routes.map((r) => r.route).filter((route) => !gone.has(route)));
  const added = [...answered].filter((route) => !listed.has(route)).sort(byCodePoint);
  if (added.length === 0 && gone.size === 0) return [];
  const all = [...listed, ...added].sort(byCodePoint);
  const text = `${HEADER.join("\n")}\n${all.join("\n")}\n`;
  // Never cut between the two steps by Ctrl+C: a temporary file left beside the author's record.
  await withSignalsHeld(() => writeFileAtomic(record.file, text, { mkdirs: false }));
  return added;
}

/** How a page's new home was found, for a hint. */
export function describe(moved: Moved): string {
  return moved.because.startsWith("a new") ? `${moved.file}, ${moved.because}` : `${moved.file} has ${moved.because}`;
}
