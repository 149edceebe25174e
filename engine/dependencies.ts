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
 * Ids: `site`, `collection:<name>`, `data:<name>`, `data` (all data files), `articles` (every
 * article), `drafts`, `routes`, `route:<path>` (the route and the text of its articles),
 * `body:<file>` (an article's rendered body, its images in place), `assets`, `listing:<name>`,
 * `block:<name>`, `card:<route>` (a page's social card), `cover:<file>\0<url>` (a processed image).
 */
import { hashOf, hashOfAll } from "./hash.js";
import type { SiteContent } from "./content.js";
import type { RouteTable } from "./routes.js";

/** What a page or a body read: each id with the hash of its value at the time. */
export type Deps = Record<string, string>;

/** Where the hash of each id comes from in one build. */
export interface DepSources {
  content: SiteContent;
  table?: RouteTable;
  /** Hash of each article's text, by file. */
  sourceHashes: Map<string, string>;
  /** Hash of each article's rendered body, by file. */
  bodyHash?: (file: string) => string | undefined;
  /** Hash of the assets manifest and policy. */
  assetsHash?: string;
  /** A listing's value (computed once per build by the theme's function). */
  listing?: (name: string) => unknown;
  /** A block's site data (computed once per build). */
  block?: (name: string) => unknown;
  /** Other kinds of values (`card:<route>`, `cover:<file>\0<url>`…): the value, hashed as JSON. */
  other?: Record<string, (name: string) => unknown>;
}

/** The current hash of every id, computed once per build when first asked for. */
export class DepValues {
  private readonly memo = new Map<string, string>();

  constructor(private readonly sources: DepSources) {}

  hash(id: string): string {
    let value = this.memo.get(id);
    if (value === undefined) {
      value = this.compute(id);
      this.memo.set(id, value);
    }
    return value;
  }

  /** The assets are known once their stage has run. */
  setAssets(hash: string): void {
    this.sources.assetsHash = hash;
    this.memo.delete("assets");
  }

  /** True when every recorded value still has its recorded hash. */
  unchanged(deps: Deps | undefined): boolean {
    if (!deps) return false;
    for (const [id, hash] of Object.entries(deps)) if (this.hash(id) !== hash) return false;
    return true;
  }

  private compute(id: string): string {
    const { content, table, sourceHashes } = this.sources;
    const colon = id.indexOf(":");
    const kind = colon < 0 ? id : id.slice(0, colon);
    const name = colon < 0 ? "" : id.slice(colon + 1);
    switch (kind) {
      case "site":
        return hashOf(content.site.source);
      case "collection":
        return hashOf(content.collections[name]?.source ?? "");
      case "data":
        return name ? hashOf(content.data.get(name)?.source ?? "") : hashOfAll([...content.data].flatMap(([n, f]) => [n, f.source]));
      case "articles":
        return hashOfAll(content.articles.flatMap((a) => [a.file, sourceHashes.get(a.file) ?? a.source]));
      case "drafts":
        return hashOfAll([...content.draftRoutes].sort());
      case "routes":
        return hashOfAll((table?.routes ?? []).flatMap((r) => [r.kind, r.path, r.template]));
      case "route": {
        const route = table?.byPath.get(name);
        if (!route) return "";
        const variants = route.kind === "article" ? route.article : route.kind === "page" ? route.featured : undefined;
        const articles = variants ? [variants.main, ...variants.translations] : [];
        return hashOf(route.kind, route.template, ...articles.flatMap((a) => [a.file, sourceHashes.get(a.file) ?? a.source]));
      }
      case "body":
        return this.sources.bodyHash?.(name) ?? "";
      case "assets":
        return this.sources.assetsHash ?? "";
      case "listing":
        return hashOf(JSON.stringify(this.sources.listing?.(name) ?? null));
      case "block":
        return hashOf(JSON.stringify(this.sources.block?.(name) ?? null));
      default: {
        const value = this.sources.other?.[kind];
        return value ? hashOf(JSON.stringify(value(name) ?? null)) : `unknown:${id}`;
      }
    }
  }
}

/** Notes the ids read, with their hashes at the time. */
export class Recorder {
  readonly deps: Deps = {};
  constructor(private readonly values: DepValues) {}
  read = (id: string): void => {
    this.deps[id] ??= this.values.hash(id);
  };
}

/** The content as a template sees it: every property it reads is recorded. */
export function recordedContent(content: SiteContent, read: (id: string) => void): SiteContent {
  const collections = new Proxy(content.collections, {
    get(target, name) {
      if (typeof name === "string") read(`collection:${name}`);
      return target[name as string];
    },
  });
  return {
    get root() {
      return content.root;
    },
    get draftRoutes() {
      read("drafts");
      return content.draftRoutes;
    },
    get site() {
      read("site");
      return content.site;
    },
    get settings() {
      read("site");
      return content.settings;
    },
    collections,
    get articles() {
      read("articles");
      return content.articles;
    },
    get data() {
      read("data");
      return content.data;
    },
  };
}
