/**
 * Dependencies recorded while rendering, not guessed.
 *
 * A page's template sees the site through a context that notes every value it reads: the
 * settings, a collection, the route table, an article's body, a listing (the cards, a
 * series), the assets. Each value has an id and, in a given build, a hash. A page records
 * the ids it read with their hashes; in a later build (or after an edit in watch mode) the
 * page is rendered again only if one of those hashes changed. The Markdown stage records the
 * data files and site data its blocks read the same way.
 *
 * Ids come from the constructors of `dep` only, and `KINDS` is the one table that says how
 * each kind is hashed. It fails closed: recording an id of a kind the table does not know
 * throws where it is recorded, and an id in an old record that no longer has a hash reads as
 * changed, never as unchanged. A set of values is made whole, from the results of the stages
 * before it, and never changes afterwards.
 */
import { hashOf, hashOfAll } from "../lib/hash.js";
import { outcomeHash, outcomeIn, type SiteValues } from "../lib/site-values.js";
import { type Article, type SiteContent } from "../stages/load/content.js";
import type { RouteTable } from "../stages/routes/routes.js";
import { articleOf } from "../stages/routes/routes.js";
import { ALL } from "./code-keys.js";

/** An id of a value a page or a body may read: made by `dep`, never by hand. */
export type DepId = string & { readonly __depId: true };

/** What a page or a body read: each id with the hash of its value at the time. */
export type Deps = Record<string, string>;

const id = (kind: Kind, name?: string) => (name === undefined ? kind : `${kind}:${name}`) as DepId;

/** The constructors of every id. */
export const dep = {
  /** content/site.yaml. */
  site: () => id("site"),
  /** One of the theme's YAML collections (cards.yaml…). */
  collection: (name: string) => id("collection", name),
  /** One data file, or all of them. */
  data: (name?: string) => id("data", name),
  /** Every article (the list and their texts). */
  articles: () => id("articles"),
  /** The routes of the drafts left out. */
  drafts: () => id("drafts"),
  /** The route table (paths, kinds, templates). */
  routes: () => id("routes"),
  /** One route and the text of its articles. */
  route: (path: string) => id("route", path),
  /** An article's rendered body, its images in place. */
  body: (article: Article) => id("body", article.file),
  /** The assets' manifest and the policy. */
  assets: () => id("assets"),
  /** A theme listing (the cards, the series). */
  listing: (name: string) => id("listing", name),
  /** A block's site data. */
  block: (name: string) => id("block", name),
  /** A page's social card. */
  card: (routePath: string) => id("card", routePath),
  /** A part of the theme's code (`markdown`, `template:article`, `block:faq`): code-keys.ts. */
  code: (part: string) => id("code", part),
  /** An image an article shows by an address (its cover). */
  cover: (article: Article, url: string) => id("cover", `${article.file}\0${url}`),
};

type Kind = keyof typeof KINDS;

/** Everything a value's hash may come from in one build: the stages' results. */
export interface DepSources {
  content: SiteContent;
  table: RouteTable;
  /** The hash of an article's rendered body, images in place, by file. */
  bodyHash?: (file: string) => string;
  /** A listing's value (computed once per build by the theme's function); pages only. */
  listing?: (name: string) => unknown;
  /** A block's site data (computed once per build). */
  block: (name: string) => unknown;
  /** The listings and site blocks' data as computed once per run, with their hashes (not hashed again here). */
  values?: SiteValues;
  /** The hash of the assets' manifest and policy. */
  assets?: string;
  /** The social card of a route. */
  card?: (routePath: string) => unknown;
  /** The processed image an address of an article stands for. */
  cover?: (file: string, url: string) => unknown;
  /** The keys of the theme's parts (code-keys.ts); a part without one is in the cache's version. */
  code?: Readonly<Record<string, string>>;
}

const json = (value: unknown) => hashOf(JSON.stringify(value ?? null));
/** `json` of no value: a route without a social card (every route of a site that draws none). */
const NO_VALUE = json(undefined);
const articleTexts = (articles: readonly Article[]) => articles.flatMap((a) => [a.file, a.sourceHash]);
/** Each route's kind, path and template, in order: hashed as they come (a site of thousands of routes made an array for each, then one of them all, on every save). */
function* routeParts(routes: RouteTable["routes"]): Generator<string> {
  for (const route of routes) {
    yield route.kind;
    yield route.path;
    yield route.template;
  }
}

/** How each kind is hashed; undefined when the sources of this set of values do not have it. */
const KINDS = {
  site: (s: DepSources) => hashOf(s.content.site.source),
  collection: (s: DepSources, name: string) => hashOf(s.content.collections[name]?.source ?? ""),
  data: (s: DepSources, name: string) =>
    name ? hashOf(s.content.data.get(name)?.source ?? "") : hashOfAll([...s.content.data].flatMap(([n, f]) => [n, f.source])),
  articles: (s: DepSources) => hashOfAll(articleTexts(s.content.articles)),
  drafts: (s: DepSources) => hashOfAll([...s.content.draftRoutes].sort()),
  routes: (s: DepSources) => hashOfAll(routeParts(s.table.routes)),
  route: (s: DepSources, name: string) => {
    const route = s.table.byPath.get(name);
    if (!route) return "";
    const variants = articleOf(route);
    return hashOfAll([route.kind, route.template, ...articleTexts(variants ? [variants.main, ...variants.translations] : [])]);
  },
  body: (s: DepSources, file: string) => s.bodyHash?.(file),
  assets: (s: DepSources) => s.assets,
  listing: (s: DepSources, name: string) => outcomeHash(outcomeIn(s.values?.listings, name)) ?? (s.listing ? json(s.listing(name)) : undefined),
  block: (s: DepSources, name: string) => outcomeHash(outcomeIn(s.values?.blocks, name)) ?? json(s.block(name)),
  code: (s: DepSources, part: string) => s.code?.[part] ?? ALL,
  card: (s: DepSources, routePath: string) => {
    if (!s.card) return undefined;
    const card = s.card(routePath);
    return card === undefined ? NO_VALUE : json(card);
  },
  cover: (s: DepSources, key: string) => {
    if (!s.cover) return undefined;
    const [file, url] = key.split("\0") as [string, string];
    return json(s.cover(file, url));
  },
} satisfies Record<string, (sources: DepSources, name: string) => string | undefined>;

/** The hash of every id in one build, computed when first asked for. */
export class DepValues {
  private readonly memo = new Map<string, string | undefined>();

  /** `known`: hashes a caller vouches for (the last run's, of a value it knows is the same), taken as they are. */
  constructor(
    private readonly sources: Readonly<DepSources>,
    known?: Readonly<Record<string, string>>,
  ) {
    for (const id in known) this.memo.set(id, known[id]);
  }

  /** The hash of an id when this set has made it (or was given it), without making it. */
  known(id: string): string | undefined {
    return this.memo.get(id);
  }

  /** How many ids this set has hashed (or found it has no value for). */
  get hashed(): number {
    return this.memo.size + this.madeOnce;
  }

  /** How many ids `once` hashed without keeping them. */
  private madeOnce = 0;

  /** The hash of an id; throws for an id this set of values cannot hash (a misspelt kind, a stage not run yet). */
  hash(id: DepId, { keep = true }: { keep?: boolean } = {}): string {
    const value = keep ? this.lookup(id) : this.once(id);
    if (value === undefined) throw new Error(`dependency '${id.replace("\0", " ")}' has no value here: its kind is unknown, or its stage has not run`);
    return value;
  }

  /** True when every recorded value still has its recorded hash; an id without a value reads as changed. */
  unchanged(deps: Deps | undefined): boolean {
    if (!deps) return false;
    for (const id in deps) if (this.lookup(id) !== deps[id]) return false;
    return true;
  }

  /** The hash of an id; undefined for an id without a value here (`hash` throws for it). */
  current(id: string): string | undefined {
    return this.lookup(id);
  }

  /**
   * The hash of an id read once (a page's own route, body or card, when every page is checked
   * on its sum): made, not kept, unless this set has it already. A set that kept one for each
   * page of 100,000 grew a dictionary of 300,000 hashes for a pass that asks each once.
   */
  once(id: string): string | undefined {
    if (this.memo.has(id)) return this.memo.get(id);
    this.madeOnce++;
    return this.make(id);
  }

  /** Whether an id's value is `hash` (an id without a value: never). */
  is(id: string, hash: string): boolean {
    return this.lookup(id) === hash;
  }

  private lookup(id: string): string | undefined {
    if (this.memo.has(id)) return this.memo.get(id);
    const value = this.make(id);
    this.memo.set(id, value);
    return value;
  }

  /** Hashes an id's value from the sources, by its kind. */
  private make(id: string): string | undefined {
    const colon = id.indexOf(":");
    const kind = colon < 0 ? id : id.slice(0, colon);
    const hashKind = Object.hasOwn(KINDS, kind) ? KINDS[kind as Kind] : undefined;
    return hashKind?.(this.sources, colon < 0 ? "" : id.slice(colon + 1));
  }
}

/**
 * Notes the ids read, with their hashes at the time. `own`: the ids only this reader reads (a
 * page's route, card and body), hashed without `values` keeping them (`DepValues.once`): a
 * thread's values are made once a run, and kept a hash, its id and a slot of a map for each
 * page it rendered (at 100,000 articles ~300,000 of them, one thread's ~20 MB to the run's end).
 */
export class Recorder {
  readonly deps: Deps = {};
  constructor(
    private readonly values: DepValues,
    private readonly own?: (id: string) => boolean,
  ) {}
  read = (id: DepId): void => {
    this.deps[id] ??= this.values.hash(id, { keep: !this.own?.(id) });
  };
}

/** The content as a template sees it: every property it reads is recorded. */
export function recordedContent(content: SiteContent, read: (id: DepId) => void): SiteContent {
  const collections = new Proxy(content.collections, {
    get(target, name) {
      if (typeof name === "string") read(dep.collection(name));
      return target[name as string];
    },
  });
  return {
    get root() {
      return content.root;
    },
    get draftRoutes() {
      read(dep.drafts());
      return content.draftRoutes;
    },
    get site() {
      read(dep.site());
      return content.site;
    },
    get settings() {
      read(dep.site());
      return content.settings;
    },
    collections,
    get articles() {
      read(dep.articles());
      return content.articles;
    },
    get data() {
      read(dep.data());
      return content.data;
    },
    // Empty in any build that renders pages to publish.
    get unavailable() {
      return content.unavailable;
    },
  };
}
