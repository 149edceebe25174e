/**
 * The render stage's shell: around the compute core (stages/render/render.ts), what reads
 * and asks. The core says which pages of the last build it would keep; the writer is asked
 * once, for all of them, which it still holds (`reuse`); the others are rendered, on the threads in slices
 * or here, and every page is yielded to the write stage in route order as it is ready (no
 * run holds every page's HTML). Then the site's other files.
 *
 * A build that has errors already renders its pages all the same, in memory, to check their
 * links and #anchors (`unwrittenLinkStage`): one run reports every error.
 */
import { ContentError, staged, type ContentIssue, type Staged } from "../lib/errors.js";
import type { SiteValues } from "../lib/site-values.js";
import type { SiteContent } from "../stages/load/content.js";
import type { Route, RouteTable } from "../stages/routes/routes.js";
import type { Redirect } from "../stages/routes/aliases.js";
import type { MarkdownBodies } from "../stages/markdown/markdown-stage.js";
import type { SiteImages } from "../stages/images/images.js";
import type { SiteCards } from "../stages/cards/cards.js";
import type { AssetRecord, AssetStageOutput } from "../stages/assets/assets.js";
import { changedAfter, changedSince, otherFiles, sameOrder, type SaveDelta, ownId, pageBodies, pagePolicy, pageValues, wouldKeep, type PageBody, type PageShare, type PageSnapshot, type RenderedFile } from "../stages/render/render.js";
import type { PageEntry, ThemeSources } from "../stages/checks/rendered-links.js";
import { absoluteDeps, idsOf, OWN, OWN_BODY, OWN_CARD, OWN_ROUTE } from "../stages/checks/page-reads.js";
import { renderedLinkStage, type CheckInput } from "../stages/checks/checks.js";
import type { Theme } from "../theme.js";
import { streamSlices, type Threads } from "./threads.js";
import { hash } from "node:crypto";
import { hashOf } from "../lib/hash.js";
import { dep, type DepValues, type Deps } from "../incremental/dependencies.js";
import type { Shared, SiteShare } from "./tasks.js";
import type { SinceRecord } from "../incremental/since-record.js";

export interface RenderInput {
  content: SiteContent;
  table: RouteTable;
  /** The run's listings and site blocks' data. */
  values: SiteValues;
  /** The keys of the theme's parts (incremental/code-keys.ts). */
  code?: Readonly<Record<string, string>>;
  markdown: MarkdownBodies;
  images: SiteImages;
  /** Each route's card as its page names it (drawn later: the feed, which states their lengths, is not made here). */
  cards: Pick<SiteCards, "byRoute">;
  assets: AssetRecord;
  /** The old addresses: each gets its page for hosts that cannot redirect, and a line in `_redirects`. */
  redirects: readonly Redirect[];
  /** The pages of the last build, by route. */
  previous: Readonly<Record<string, PageEntry>>;
  /** The HTML of bodies the persistent cache kept or that this run wrote there (the store's texts, by article file): read only for the pages this run renders. */
  storedBodies?: (files: readonly string[]) => Promise<ReadonlyMap<string, string>>;
  /** The same for one body, read at once (a page on the build's thread that reads a body it did not name); undefined when the store cannot give it. */
  storedBody?: (file: string) => string | undefined;
  /** Reads into the last build's pages at these routes what the store keeps apart (their `deps`…: build-record.ts), where a run needs every page's (a page the store gave without them is taken on its sum). */
  fill: (routes: readonly string[]) => Promise<void>;
  /**
   * What may differ since the build whose pages `previous` holds (incremental/since-record.ts),
   * when the stages can tell (a run with no earlier run of its own, from a store whose entries
   * are that build's): a page none of whose own values may differ is not hashed (`vouched`).
   */
  since?: SinceRecord;
  /**
   * Pages rendered only to check their links, never written (the build has errors already):
   * a page that fails to render is left out (what it needs is among the errors); a page of
   * the last build is taken as recorded when only its card or the assets changed; no other
   * file is made.
   */
  checkOnly?: boolean;
  /**
   * Routes whose pages, when they are rendered, are rendered and handed on before every other
   * page (watch mode: the pages open in a browser, reloaded once written, while the others are
   * made). A path that is not a route, or whose page is kept, is passed over.
   */
  first?: readonly string[];
}

/** Where the pages are rendered: the threads for `count` pages, and the run's site share for them. */
export type PageThreads = (count: number) => Promise<{ threads: Threads; site: () => Shared<SiteShare> }>;

/** The sources every page of a run is rendered from, and the policy they carry. */
function pageSources(input: RenderInput, theme: Theme, last?: { bodies: ReadonlyMap<string, PageBody>; fresh: readonly string[] }) {
  const { content, table, values, code, markdown, images, cards, assets } = input;
  const csp = pagePolicy(theme.siteMeta(content.site.value), assets.manifest);
  const bodyOf = ({ result, htmlHash }: NonNullable<ReturnType<typeof markdown.get>>): PageBody => ({ html: result.html, images: result.images, htmlHash });
  // After a save the Markdown stage describes: the last run's bodies, those it did not keep as they were made again.
  const bodies = last ? new Map(last.bodies) : new Map<string, PageBody>([...markdown].map(([file, entry]) => [file, bodyOf(entry)]));
  for (const file of last?.fresh ?? []) {
    const entry = markdown.get(file);
    if (entry) bodies.set(file, bodyOf(entry));
    else bodies.delete(file);
  }
  const absent = content.articles.map((a) => a.file).filter((file) => !bodies.has(file));
  const share: PageShare = { images: { resolved: images.resolved, ready: images.ready, sizes: images.sizes }, cards: cards.byRoute, assets: assets.manifest, csp, absent };
  /** The bodies of `files` with their HTML, read from the store for those held without it (the cache kept it, or it was written there as it was made): each must be the HTML its hash says. */
  const withHtml = async (files: Iterable<string>): Promise<Map<string, PageBody>> => {
    const given = new Map<string, PageBody>();
    const wanted: string[] = [];
    for (const file of new Set(files)) {
      const body = bodies.get(file);
      if (body?.html !== undefined) given.set(file, body);
      else if (body) wanted.push(file);
    }
    if (wanted.length === 0) return given;
    const texts = (await input.storedBodies?.(wanted)) ?? new Map<string, string>();
    for (const file of wanted) {
      const body = bodies.get(file)!;
      const html = texts.get(file);
      if (html === undefined || hashOf(html) !== body.htmlHash) throw new Error(`the build cache's copy of the body of ${file} is missing or damaged: run the build again with --force`);
      given.set(file, { ...body, html });
    }
    return given;
  };
  /** Reads into the run's bodies the HTML of those of `files` held without it (for the rest of the run). */
  const read = async (files: Iterable<string>) => {
    for (const [file, body] of await withHtml(files)) bodies.set(file, body);
  };
  /** Every body, for the build's thread: `files`' read at once, any other read from the store when a page asks for it. */
  const every = async (files: Iterable<string>) => new EveryBody(await withHtml(files), bodies, input.storedBody);
  return { content, table, values, code, share, bodies: (file: string) => bodies.get(file), all: bodies, read, withHtml, every };
}

/**
 * The bodies of a task on the build's thread: those its pages show, read before it, and any
 * other a page asks for (a tag's page that shows its articles' bodies), read from the store
 * then, one at a time (a template's `bodyOf` is synchronous), and let go once the page has it.
 * A body the store cannot give is given without its HTML: the page comes back for it (`needs`).
 */
class EveryBody extends Map<string, PageBody> {
  constructor(
    given: ReadonlyMap<string, PageBody>,
    private readonly all: ReadonlyMap<string, PageBody>,
    private readonly storedBody?: (file: string) => string | undefined,
  ) {
    super(given);
  }

  override get(file: string): PageBody | undefined {
    const body = super.get(file) ?? this.all.get(file);
    if (body === undefined || body.html !== undefined) return body;
    const html = this.storedBody?.(file);
    return html !== undefined && hashOf(html) === body.htmlHash ? { ...body, html } : body;
  }
}

/**
 * What the last successful run's check of the pages vouches for: every entry of its record
 * (`pages`, the very object the next run checks) was made or checked against the values of its
 * `snapshot`.
 */
export interface PagesChecked {
  pages: Readonly<Record<string, PageEntry>>;
  snapshot: PageSnapshot;
  /** The routes of `pages` by each value they read (made by the first run that checks this record, if the last did not hand it on). */
  readers?: PageReaders;
}

/**
 * The pages of a record by each value they read, with the hash each recorded: a run checks
 * each value once for all its readers, and only the pages' own values that changed
 * (`changedSince`), not every page's every value. `shared`: its ids that are not a page's own.
 */
export interface PageReaders {
  byId: Map<string, Map<string, Set<string>>>;
  shared: Set<string>;
  /** The routes whose reads their run's table could not name (`idsOf`): each reads as changed. */
  unnamed: Set<string>;
}

/** The routes that read a value now other than what they recorded, of the values that may have changed: `own` (`changedSince`) and every shared one. */
function changedReaders(readers: PageReaders, own: Iterable<string>, values: ReturnType<typeof pageValues>): Set<string> {
  const changed = new Set<string>();
  const check = (id: string) => {
    for (const [hash, routes] of readers.byId.get(id) ?? []) if (!values.is(id, hash)) for (const route of routes) changed.add(route);
  };
  for (const id of own) check(id);
  for (const id of readers.shared) check(id);
  for (const route of readers.unnamed) changed.add(route);
  return changed;
}

/** The readers of every value of `pages`, made by the run of `table` (which names each page's own ids: `idsOf`). */
export function readersOf(pages: Readonly<Record<string, PageEntry>>, table: RouteTable): PageReaders {
  const readers: PageReaders = { byId: new Map(), shared: new Set(), unnamed: new Set() };
  for (const route in pages) addReader(readers, table, route, pages[route]!.deps);
  return readers;
}

/**
 * `readers`, made from `last`, changed in place to be those of `next`: only the pages whose
 * entry is not the very same are gone over. `made`: when `next` has a page at each of `last`'s
 * routes and no other (`KeptPages.sameRoutes`), the routes whose page was made again, the only
 * ones whose entry can differ: neither record is gone over whole (two `for in` over dictionaries
 * of thousands of keys on every save). Returns how many routes it went over.
 */
export function nextReaders(readers: PageReaders, last: Readonly<Record<string, PageEntry>>, next: Readonly<Record<string, PageEntry>>, tables: { last: RouteTable; next: RouteTable }, made?: readonly string[]): number {
  let walked = 0;
  const move = (route: string) => {
    walked++;
    const before = Object.hasOwn(last, route) ? last[route] : undefined;
    const now = Object.hasOwn(next, route) ? next[route] : undefined;
    if (before === now) return;
    if (before) removeReader(readers, tables.last, route, before.deps);
    if (now) addReader(readers, tables.next, route, now.deps);
  };
  if (made) for (const route of made) move(route);
  else {
    for (const route in last) if (!Object.hasOwn(next, route)) move(route);
    for (const route in next) move(route);
  }
  return walked;
}

/**
 * A page's `recorded` deps with each id as the route names it in `table`, for its readers. A page
 * it cannot name (its route not in it, or without an article's body) joins (`adding`) or leaves
 * `unnamed`, and is undefined, as is a page whose deps were not read.
 */
function namedDeps(unnamed: Set<string>, table: RouteTable, path: string, recorded: Deps | undefined, adding: boolean): Deps | undefined {
  if (recorded === undefined) return undefined;
  const route = table.byPath.get(path);
  const deps = route && absoluteDeps(route, recorded);
  if (!deps) void (adding ? unnamed.add(path) : unnamed.delete(path));
  return deps;
}

function addReader({ byId, shared, unnamed }: PageReaders, table: RouteTable, route: string, recorded: PageEntry["deps"] | undefined): void {
  const deps = namedDeps(unnamed, table, route, recorded, true);
  for (const id in deps) {
    const byHash = byId.get(id) ?? byId.set(id, new Map()).get(id)!;
    const routes = byHash.get(deps[id]!) ?? byHash.set(deps[id]!, new Set()).get(deps[id]!)!;
    routes.add(route);
    if (!ownId(id)) shared.add(id);
  }
}

function removeReader({ byId, shared, unnamed }: PageReaders, table: RouteTable, route: string, recorded: PageEntry["deps"] | undefined): void {
  const deps = namedDeps(unnamed, table, route, recorded, false);
  for (const id in deps) {
    const byHash = byId.get(id);
    const routes = byHash?.get(deps[id]!);
    if (!byHash || !routes) continue;
    routes.delete(route);
    if (routes.size === 0) byHash.delete(deps[id]!);
    if (byHash.size > 0) continue;
    byId.delete(id);
    shared.delete(id);
  }
}

/**
 * What a page's record keeps beside its `deps` for a rebuild to take it without them: the ids
 * in their order, its own written relative to its route as `deps` writes them (every article's
 * page reads the same list, one value in the store's shard: `encodeShard`), and the hash of
 * every id, as the route names it, with the hash it recorded. The store keeps `deps` apart,
 * read only for the pages a run renders again.
 */
function readsOf(route: Route, deps: Deps, alike: AlikeParts): { reads: readonly string[]; sum?: string } {
  const reads = Object.keys(deps);
  const ids = idsOf(route, reads);
  // One list for the pages of a run that read alike (`alike`), as the store gives them back.
  return { reads: alike.list("reads", reads), sum: ids && sumOf(ids, (_, i) => deps[reads[i]!]) };
}

/**
 * One value for what the pages of a run hold alike. A page's record comes from the thread that
 * rendered it as a copy of its own: its lists of links, ids, files and scripts (the same on
 * most pages: the site's menu, its stylesheet, its inline script) and the hashes of the values
 * every page reads. At 20,000 pages that was ~35 short strings a page held to the end of the
 * build (bench/README.md, "Session 29"). The lists are frozen: no page changes another's.
 */
export class AlikeParts {
  private readonly lists = new Map<string, readonly unknown[]>();
  /** The last hash of each id read by pages as written in `reads` (none of a route's own: those are the route's), to give the next page that reads the same the same string. */
  private readonly hashes = new Map<string, string>();

  /**
   * `list`, or the frozen one of an earlier page with the same items (`kind`: which of a page's
   * lists). A long one is known by the hash of its JSON, not by the JSON: a list no other page
   * has (a page's own links and heading ids) would be held twice, once as its key.
   */
  list<T>(kind: string, list: readonly T[]): readonly T[] {
    const text = `${kind}\0${JSON.stringify(list)}`;
    const key = text.length <= 64 ? text : hash("sha1", text, "base64url");
    const same = this.lists.get(key) as readonly T[] | undefined;
    if (same) return same;
    Object.freeze(list);
    this.lists.set(key, list);
    return list;
  }

  /** The record of a page rendered now, with what it holds alike with other pages made one value. */
  entry(route: Route, entry: PageEntry): PageEntry {
    const { links, ids, files, scripts, handlers, deps } = entry;
    for (const read in deps) {
      // The page's own values, and another route's (a listing reads every article's), are those routes': not held here.
      if (OWN.has(read) || read.includes("/")) continue;
      const last = this.hashes.get(read);
      if (last !== undefined && last === deps[read]) deps[read] = last;
      else this.hashes.set(read, deps[read]!);
    }
    // A literal and its fields added in the page's order, not `{ ...entry, … }`: an object that
    // begins with a spread and gains fields after it gets a hidden class of its own in V8 (every
    // page's record had one: ~340 bytes a page).
    const record = { outFile: entry.outFile, deps, ...readsOf(route, deps, this), size: entry.size } as PageEntry;
    for (const field in entry) if (!Object.hasOwn(record, field)) (record as unknown as Record<string, unknown>)[field] = entry[field as keyof PageEntry];
    if (links) record.links = this.list("links", links) as string[];
    if (ids) record.ids = this.list("ids", ids) as string[];
    if (files) record.files = this.list("files", files) as string[];
    if (scripts) record.scripts = this.list("scripts", scripts) as [string, string][];
    if (handlers) record.handlers = this.list("handlers", handlers) as string[];
    return record;
  }
}

/**
 * `hashOfAll` of each id followed by its hash (lib/hash.ts: the same bytes, each part after its
 * length), in one call of the hash over one text: a hash object a page, and a list of its parts,
 * were most of the cost of a page's sum. Undefined when an id has no hash.
 */
function sumOf(ids: readonly string[], hashOfId: (id: string, at: number) => string | undefined): string | undefined {
  let text = "";
  for (let i = 0; i < ids.length; i++) {
    const id = ids[i]!;
    const value = hashOfId(id, i);
    if (value === undefined) return undefined;
    text += `${Buffer.byteLength(id)}:${id}${Buffer.byteLength(value)}:${value}`;
  }
  return hash("sha1", text, "base64url");
}

/**
 * Whether a page of the last build read nothing that changed, from its `reads` and `sum` alone
 * (its `deps` not read from the store): every id it read, as this route names it now, with its
 * hash now, hashes to its sum. Fails closed: an id without a value, a route whose own ids are
 * not those it recorded (another article: the ids differ, so does the sum), an entry without
 * them, is rendered again.
 */
function sumHolds(route: Route, entry: PageEntry, values: DepValues): boolean {
  if (entry.reads === undefined || entry.sum === undefined) return false;
  const ids = idsOf(route, entry.reads);
  if (!ids) return false;
  // A page's own ids (its route, card and body) are asked once in this pass: hashed, not kept
  // (`DepValues.once`); the values pages share are hashed once and kept.
  const { reads } = entry;
  const sum = sumOf(ids, (id, i) => (OWN.has(reads[i]!) ? values.once(id) : values.current(id)));
  return sum !== undefined && sum === entry.sum;
}

/**
 * Whether a page of the recorded build read nothing that changed, from what `since` says may
 * differ (no hash of its own values made), or undefined where it cannot say (the page is then
 * taken on its sum, `sumHolds`). It speaks for an article's page whose own route, card and body
 * `since` does not name (a body with images is its HTML with them in place: never vouched for),
 * and for the other ids the page read: a body, an article's route or a card, the same way; any
 * other value (the site, a listing, the theme's code...) is one every page that read it
 * recorded with the hash it had in that build, so the first page of each list of reads
 * (`reads`: one list for the pages that read alike) whose own values are vouched for is taken
 * on its sum, and what that says holds for every page of the list.
 */
function vouched(since: SinceRecord, table: RouteTable, bodies: ReadonlyMap<string, PageBody>, values: DepValues): (route: Route, entry: PageEntry) => boolean | undefined {
  const bodySame = (file: string | undefined) => {
    const body = file === undefined ? undefined : bodies.get(file);
    return body !== undefined && body.images.length === 0 && !since.bodies.has(file!);
  };
  const idSame = (id: string): boolean | undefined => {
    if (id.startsWith("body:")) return bodySame(id.slice("body:".length));
    if (id.startsWith("route:")) {
      const path = id.slice("route:".length);
      return table.byPath.get(path)?.kind === "article" && !since.routes.has(path);
    }
    if (id.startsWith("card:")) return !since.cards.has(id.slice("card:".length));
    return undefined;
  };
  /** Each list of reads, once: which of the page's own values it reads, and what the other ids' values are: ask (a page's sum), the same, or changed (each page's sum). */
  const lists = new Map<readonly string[], { route: boolean; card: boolean; body: boolean; rest: "ask" | "same" | "changed" }>();
  const listOf = (reads: readonly string[]) => {
    let list = lists.get(reads);
    if (list) return list;
    list = { route: false, card: false, body: false, rest: "same" };
    for (const read of reads) {
      if (read === OWN_ROUTE) list.route = true;
      else if (read === OWN_CARD) list.card = true;
      else if (read === OWN_BODY) list.body = true;
      else {
        const same = idSame(read);
        if (same === false) list.rest = "changed";
        else if (same === undefined && list.rest === "same") list.rest = "ask";
      }
    }
    lists.set(reads, list);
    return list;
  };
  return (route, entry) => {
    if (route.kind !== "article" || entry.reads === undefined) return undefined;
    const list = listOf(entry.reads);
    if (list.rest === "changed") return undefined;
    if ((list.route && since.routes.has(route.path)) || (list.card && since.cards.has(route.path)) || (list.body && !bodySame(route.article.main.file))) return undefined;
    if (list.rest === "same") return true;
    const holds = sumHolds(route, entry, values);
    list.rest = holds ? "same" : "changed";
    return holds;
  };
}

/** The pages of the last build a run takes as they were, by route, and what they were checked against (the next run's `PagesChecked`, once the run succeeds). */
export interface KeptPages {
  kept: ReadonlyMap<string, PageEntry>;
  snapshot: PageSnapshot;
  /** What the pages are rendered from (made once a run, here). */
  sources: ReturnType<typeof pageSources>;
  /** How many of the values the last build's pages read were hashed to check them. */
  hashed: number;
  /** How many of the pages' own values (routes, bodies, cards) were compared with what the last run checked, when it was compared (watch mode). */
  compared?: number;
  /** The readers of `since`'s record when it was the very record checked (for the next run: `nextReaders`). */
  readers?: PageReaders;
  /**
   * The last build's record has a page at each of this run's routes and at no other, at the
   * same file: it is the very record the last run checked, over that run's routes in the same
   * order (`sameOrder`: not gone over), or a record gone over whose routes are this run's. A
   * page of it not kept is then made again, and none went.
   */
  sameRoutes: boolean;
  /** How many routes of the last build's record were gone over whole to list them (none when `sameRoutes` lists them from the table). */
  walked: number;
}

/**
 * The pages of the last build none of whose values changed, and that the writer still holds
 * (`reuse`): the core's word on each (its hashes are made here, where every value is), then
 * the writer's. `since`: what the last run checked (watch mode): when it checked this very
 * record, a page's own values (its route, body and card) are compared with that run's, part
 * by part, and only those that differ are hashed; anything else, it hashes.
 */
export async function keptPages(input: RenderInput, theme: Theme, reuse: (files: ReadonlyMap<string, number>) => Promise<ReadonlySet<string>>, since?: PagesChecked, delta?: SaveDelta): Promise<KeptPages> {
  const { table, previous, checkOnly = false } = input;
  const checked = since && since.pages === previous && !checkOnly ? since : undefined;
  // A save the delta describes, over the very run the last check was made in: its bodies and its routes' order are that run's but for what the delta names.
  const last = checked?.snapshot;
  const saved = delta && last && delta.from === last.articles && delta.bodiesFrom === last.markdown && [...delta.files.values()].every((a) => a !== undefined) ? delta : undefined;
  const sources = pageSources(input, theme, saved && { bodies: last!.bodies, fresh: saved.fresh });
  const snapshot: PageSnapshot = { table, bodies: sources.all, cards: input.cards.byRoute, articles: input.content.articles, markdown: input.markdown, sitemap: since?.snapshot.sitemap };
  const kept = new Map<string, PageEntry>();
  // The very record the last run checked, over the same routes in the same order: its routes are this table's (no `for in` over it).
  const sameRoutes = checked !== undefined && sameOrder(checked.snapshot.table, table);
  const routes = sameRoutes ? undefined : Object.keys(previous);
  const walked = routes?.length ?? 0;
  if (routes?.length === 0) return { kept, snapshot, sources, hashed: 0, sameRoutes, walked };
  // Every page's `deps` read from the store where they are compared one by one (a check-only
  // run reads some of them) or made into the pages' readers; else a page is taken on its sum.
  if (checkOnly || (checked && !checked.readers)) await input.fill(routes ?? table.routes.map((route) => route.path));
  // A body with images is hashed with its images in place: its HTML is read for that.
  const withImages: string[] = [];
  for (const [file, body] of sources.all) if (body.images.length > 0) withImages.push(file);
  await sources.read(withImages);
  // The `routes` value (every route's kind, path and template, in order) as the last run hashed it, when no route moved.
  const routesKept = saved && last!.routesHash !== undefined && sameRoutes ? last!.routesHash : undefined;
  const values = pageValues(sources, theme, routesKept === undefined ? undefined : { [dep.routes()]: routesKept });
  // The core's word on every page, then the writer's, asked once for all of them. After the
  // very record the last run checked, each value that may have changed is checked once for the
  // pages that read it: the shared ones, and the pages' own ones that differ from that run's
  // (after a save the delta describes, only its own and the few routes that are not an article's are compared).
  const narrowed = saved && changedAfter(last!, snapshot, saved);
  const own = narrowed ? narrowed.changed : checked && changedSince(checked.snapshot, snapshot);
  const changed = checked && changedReaders(checked.readers ??= readersOf(previous, checked.snapshot.table), own!, values);
  snapshot.routesHash = values.known(dep.routes());
  // A run told what may differ since the recorded build (no earlier run of its own): a page none of whose own values may is not hashed.
  const vouch = input.since && !checked && !checkOnly ? vouched(input.since, table, sources.all, values) : undefined;
  // One pass over the routes, each page's entry looked up once (a record of thousands of routes is a dictionary).
  const files = new Map<string, number>();
  // How many of the routes the record has a page for at the same file: all of them, and no other, and no page went.
  let atSameFile = 0;
  for (const route of table.routes) {
    const entry = previous[route.path];
    if (entry?.outFile === route.outFile) atSameFile++;
    // An entry whose `deps` the store has not read is taken on its sum (after a check-only run's or the readers' reading of them all, none is left).
    const onSum = entry !== undefined && entry.deps === undefined && !changed && !checkOnly;
    if (!entry || !(onSum ? entry.outFile === route.outFile && (vouch?.(route, entry) ?? sumHolds(route, entry, values)) : wouldKeep(route, entry, values, checkOnly, changed))) continue;
    kept.set(route.path, entry);
    files.set(route.outFile, entry.size);
  }
  const taken = await reuse(files);
  // The writer takes them all but when the output lost some (rare): those are made again.
  if (taken.size < kept.size) for (const [path, entry] of kept) if (!taken.has(entry.outFile)) kept.delete(path);
  const compared = narrowed ? narrowed.compared : checked ? table.routes.length + sources.all.size + input.cards.byRoute.size : undefined;
  // The record listed (`routes`), its pages at this run's routes and at no other: this run's routes are its, in any order.
  const sameSet = routes !== undefined && atSameFile === table.routes.length && routes.length === atSameFile;
  return { kept, snapshot, sources, hashed: values.hashed, compared, readers: checked?.readers, sameRoutes: sameRoutes || sameSet, walked };
}

/**
 * Every page but the `kept` ones (`keptPages`) is rendered; every page is yielded in route
 * order (the kept ones as they were), then the site's other files.
 */
export async function* renderStage(input: RenderInput, theme: Theme, pageThreads: PageThreads, { kept, sources, snapshot }: KeptPages): AsyncGenerator<RenderedFile> {
  const { content, table, redirects, checkOnly = false } = input;
  const { share } = sources;
  // The pages asked for first, then the others in route order.
  const first = new Set(input.first?.filter((p) => table.byPath.has(p) && !kept.has(p)));
  const paths: string[] = [...first];
  for (const route of table.routes) if (!kept.has(route.path) && !first.has(route.path)) paths.push(route.path);
  const { threads, site } = await pageThreads(paths.length);
  const pagesShared = paths.length > 0 ? threads.share(share) : undefined;
  // Each slice is handed the bodies its pages show (and `also`), read from the store when it is
  // taken, where they are kept: the run holds a slice's bodies' HTML at a time, not every one.
  // On the build's thread a page may read any other body too (`EveryBody`).
  const task = async (routes: string[], here: boolean, also: Iterable<string> = []) => {
    const files = [...routes.flatMap((p) => pageBodies(table.byPath.get(p)!).map((a) => a.file)), ...also];
    const bodies = here ? await sources.every(files) : await sources.withHtml(files);
    return { kind: "pages", site: site(), pages: pagesShared!, bodies, every: here, routes, checkOnly } as const;
  };
  const made = streamSlices(threads, paths, task);
  // What pages hold alike, one value for them all.
  const alike = new AlikeParts();
  /** The next page made (in the order of `paths`), which is `route`'s; undefined when it is left out. */
  const next = async (route: Route): Promise<RenderedFile | undefined> => {
    let page = (await made.next()).value!;
    // It reads the body of another article than its own: rendered again here, where a page may
    // read any body (a body the store could not give at once is read, or made again, first).
    const also = new Set<string>();
    while ("needs" in page) {
      const missing = page.needs;
      if (also.has(missing)) throw new Error(`${route.path} reads the body of ${missing}, which it was handed`);
      also.add(missing);
      // With the bodies its last render read (a tag's page shows many): read at once, not one by one.
      const last = input.previous[route.path];
      const read = idsOf(route, last?.reads ?? Object.keys(last?.deps ?? {})) ?? [];
      for (const id of read) if (id.startsWith("body:")) also.add(id.slice("body:".length));
      page = (await threads.lanes[0]!(await task([route.path], true, also)))[0]!;
    }
    if ("failed" in page) throw new ContentError(page.failed as ContentIssue);
    if ("left" in page) return undefined;
    return { kind: "page", route: page.route, file: route.outFile, html: page.html, entry: alike.entry(route, page.entry) };
  };
  for (const path of first) {
    const page = await next(table.byPath.get(path)!);
    if (page) yield page;
  }
  // The kept pages go to the write stage a run at a time, not one each: a save of one page in thousands hands over a few runs.
  let run: [string, PageEntry][] = [];
  for (const route of table.routes) {
    const entry = kept.get(route.path);
    if (entry) {
      run.push([route.path, entry]);
      continue;
    }
    if (first.has(route.path)) continue;
    if (run.length > 0) yield { kind: "kept", pages: run };
    run = [];
    const page = await next(route);
    if (page) yield page;
  }
  if (run.length > 0) yield { kind: "kept", pages: run };
  if (checkOnly) return;
  // The sitemap made again only when a page's path or date changed since the last run's (kept with the run's snapshot).
  for (const [file, html, redirect] of otherFiles(content, table, share, redirects, theme, snapshot)) yield { kind: "file", file, html, redirect };
}

export interface UnwrittenInput extends CheckInput {
  values: SiteValues;
  code?: Readonly<Record<string, string>>;
  images: SiteImages;
  /** What the build's assets stage gave (started beside the others: its errors are reported here, with the links'). */
  assets: Staged<AssetStageOutput | undefined>;
  /** The last build: its pages' links and ids (a page nothing changed is checked as recorded). */
  previous: { pages: Readonly<Record<string, PageEntry>> };
  themeCode?: ThemeSources;
  /** What the stages before found: a place already reported (a link with a malformed address) is not reported again. */
  reported: readonly ContentIssue[];
  storedBodies?: RenderInput["storedBodies"];
  storedBody?: RenderInput["storedBody"];
  /** Reads into the last build's pages what the check reads of them (`RenderedLinkInput.fill`): every page is checked here. */
  fill: (routes: readonly string[]) => Promise<void>;
}

/** The assets of a build whose assets could not be bundled: pages still render, with no asset to link to. */
const NO_ASSETS: AssetRecord = { key: "", manifest: { entries: {}, fonts: {}, inlineScript: "" }, files: [] };

/**
 * For a build that has errors already and writes nothing: every page is rendered all the
 * same, in memory, and its links and #anchors checked, so that one run reports every error.
 * Nothing is written and no social card is drawn; the assets are those the build's assets
 * stage gave (the last build's when the code is the same, else from the cache or bundled in
 * memory; their own errors reported here: never asked for a second time); a page of the
 * last build that nothing changed is checked as recorded; a page that cannot render while
 * there are errors is left out (what it needs is among them), and so is every page when the
 * site settings did not load.
 */
export async function unwrittenLinkStage(input: UnwrittenInput, theme: Theme, pageThreads: PageThreads): Promise<Staged<null>> {
  const { content, table, values, code, markdown, addresses, images, previous, themeCode, reported, assets: bundled } = input;
  if (content.unavailable.includes(content.site.file)) return staged(null);
  const assets = bundled.value?.record ?? NO_ASSETS;
  const cards = { byRoute: new Map() };
  const renderInput = { content, table, values, code, markdown, images, cards, assets, redirects: addresses.redirects.redirects, previous: previous.pages, checkOnly: true, storedBodies: input.storedBodies, storedBody: input.storedBody, fill: input.fill };
  const pages: Record<string, PageEntry> = {};
  const kept = await keptPages(renderInput, theme, async (files) => new Set(files.keys()));
  for await (const page of renderStage(renderInput, theme, pageThreads, kept)) {
    if (page.kind === "kept") for (const [route, entry] of page.pages) pages[route] = entry;
    else if (page.kind === "page") pages[page.route] = page.entry;
  }
  const places = new Set(reported.filter((e) => e.line !== undefined).map((e) => e.location));
  const found = await renderedLinkStage({ ...input, pages, files: assets.files, themeCode });
  return staged(null, [...bundled.errors, ...found.errors.filter((e) => !places.has(e.location))], bundled.warnings);
}
