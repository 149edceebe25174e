/**
 * What a site hands to the engine: its design and its content model beyond the generic one.
 *
 * The engine knows articles (front matter + Markdown), data files, site settings and routes;
 * everything a particular site adds (its page templates, its blocks, its extra front-matter
 * keys and YAML collections, its client scripts, stylesheet and fonts) comes from a theme.
 * A site's config (cafe.config.ts) hands its theme to the `cafe` command, which passes it to `SiteBuilder`.
 */
import type { ComponentType, ReactElement, ReactNode } from "react";
import type { z } from "zod";
import type { Components } from "hast-util-to-jsx-runtime";
import type { ContentError } from "./lib/errors.js";
import type { Article, ContentModel, ContentOf, FrontMatterOf, SiteContent } from "./stages/load/content.js";
import type { PageSpec, Route, RouteModel, RouteTable } from "./stages/routes/routes.js";
import type { ProcessedImage } from "./stages/images/images.js";
import { siteCodePlace, type CodePlace } from "./lib/code-location.js";
import type { Island } from "./islands.js";

/** Hashed asset URLs and the inline script, produced by the assets stage. */
export interface AssetManifest {
  /** URL of each entry point by its name in `ThemeAssets.entries` (`/assets/main-XXXX.js`). */
  entries: Record<string, string>;
  /** URL of each cut font by its name in `ThemeAssets.fonts`. */
  fonts: Record<string, string>;
  /** The inline script's code (runs in `<head>` before first paint). */
  inlineScript: string;
  /** URL of the islands' runtime, which the render stage adds to a page that has an island. */
  islandRuntime?: string;
}

/** A font cut to the letters a site shows in it; imported by the stylesheet as `font:<name>`. */
export interface ThemeFont<Site = any> {
  /** The name the stylesheet imports it by: `url("font:brand")`. */
  name: string;
  /** The font to cut, as a package path (`@fontsource/x/files/x-latin-700-normal.woff`). */
  source: string;
  /** The letters to keep, from the site settings; undefined keeps the whole font. */
  text(site: Site): string | undefined;
}

export interface ThemeAssets<Site = any> {
  /** esbuild entry points, relative to the project root: name → file (scripts and stylesheets). */
  entries: Record<string, string>;
  /** A tiny script inlined in every page's head (allowed by its hash in the CSP). */
  inline?: string;
  fonts?: ThemeFont<Site>[];
  /** The islands its templates render (`defineIsland`): one chunk each, loaded when one wakes. */
  islands?: Island[];
}

/** Where a structured block's data comes from; `Content` is the site's content as its theme types it. */
export type BlockSource<Content = SiteContent> =
  /** Front matter (key = the block's name in camelCase, or `{data="key"}`), or `{src="file"}` from content/data. */
  | { from: "data"; schema: z.ZodType }
  /** The site's content (a collection, say), computed once per build. */
  | { from: "site"; data(content: Content): unknown }
  /** The Markdown written inside `:::name` … `:::`. */
  | { from: "children" };

/** Props every block component receives. */
export interface BlockProps<Data = unknown> {
  data: Data;
  attributes: Record<string, string>;
  /** Level for the block's own headings: one below the section it stands in (2 to 6). */
  level: HeadingLevel;
  /** The page's language (`lang` of the article). */
  lang: string;
  children?: ReactNode;
}
export type HeadingLevel = 2 | 3 | 4 | 5 | 6;

/** A directive an author can place in Markdown (`::name` or `:::name … :::`). */
export interface BlockDefinition<Content = any> {
  name: string;
  source: BlockSource<Content>;
  /** Attributes the block needs, each with the hint an author reads when it is missing. */
  required?: Record<string, string>;
  component: ComponentType<BlockProps<never>>;
}

/**
 * What every template receives, typed by the theme's schemas and listings (`defineTheme`):
 * `Listings` is the value of each listing by name.
 */
export interface PageContext<
  Site = unknown,
  Meta extends object = Record<string, unknown>,
  Collections extends object = Record<string, unknown>,
  Listings extends object = Record<string, unknown>,
> {
  site: Site;
  content: SiteContent<Site, Meta, Collections>;
  routes: RouteTable<Meta>;
  route: Route<Meta>;
  /** The Content-Security-Policy every page carries (scripts by hash only). */
  csp: string;
  assets: AssetManifest;
  /** An article's body, rendered to HTML by the Markdown stage. */
  bodyOf(article: Article<Meta>): string;
  /** A listing the theme declares (`Theme.listings`), computed once per build: a name the theme does not declare does not typecheck. */
  listing<Name extends keyof Listings & string>(name: Name): Listings[Name];
  /** The processed image an address of an article stands for (its cover's `src`). */
  imageOf(article: Article<Meta>, url: string): ProcessedImage | undefined;
  /** This page's social card (`og:image`), unless the site has them off. */
  socialCard?: SocialCard;
}

/**
 * What each listing gives, by name, from the functions that compute them: a theme whose
 * templates are typed apart writes `PageContext<Site, Meta, Collections, ListingsOf<typeof listings>>`.
 */
export type ListingsOf<Functions> = { [Name in keyof Functions]: Functions[Name] extends (...args: never[]) => infer Value ? Value : never };

/** What the engine knows that a theme's check may use in its messages. */
export interface CheckHelpers {
  /** Where the page of a route that no article has now went, when earlier builds tell (a renamed file): pass it to `routeErrors`. */
  movedTo(route: string): { to: string; file: string } | undefined;
}

/** How a theme shows the images of articles. */
export interface ThemeImages {
  /** `sizes` of every picture: the width of the column images stand in, per viewport width. */
  sizes: string;
  /** The widths each image is made at, up to its own (default 480, 800, 1200, 1600). */
  widths?: number[];
}

/** A font a social card is drawn with: TTF, OTF or WOFF (satori reads no WOFF2). */
export interface SocialCardFont {
  name: string;
  /** A package path, like `@fontsource/inter/files/inter-latin-700-normal.woff`. */
  source: string;
  weight?: 100 | 200 | 300 | 400 | 500 | 600 | 700 | 800 | 900;
  style?: "normal" | "italic";
}

/**
 * The picture a link to a page shows when shared (Open Graph): a React component drawn at
 * build time by satori (to SVG), resvg (to pixels) and sharp (to PNG), one per page.
 */
export interface ThemeSocialCard<Site = any, Props = any, Meta extends object = any, Collections extends object = any> {
  width: number;
  height: number;
  fonts: SocialCardFont[];
  /** What a page's card shows, as plain JSON (its cache key with the fonts); undefined for none. */
  props(page: { route: Route<Meta>; site: Site; content: SiteContent<Site, Meta, Collections> }): Props | undefined;
  /** Draws the card: flex layout and inline styles, as satori understands them. */
  component(props: Props): ReactElement;
  /** The card's text alternative (`og:image:alt`). */
  alt(props: Props): string;
  /** False turns the cards off (a site setting). */
  enabled?(site: Site): boolean;
}

/**
 * A page's social card as its meta gives it. Its address is made from what the card is drawn
 * from, so a page names its card before it is drawn (the site is served while the cards are
 * drawn): its length in bytes is not known then, and only the feed's enclosure, written
 * after the cards, states it.
 */
export interface SocialCard {
  /** Absolute, from the site's URL. */
  url: string;
  width: number;
  height: number;
  alt: string;
  type: "image/png";
}

/** The site-wide facts the feed, the sitemap and the policy need. */
export interface SiteMeta {
  name: string;
  url: string;
  description: string;
  /** BCP 47, e.g. `pt-BR`. */
  language: string;
  author: string;
  copyright: string;
  favicon: string;
  /** Origins scripts and forms may reach besides the site itself (a newsletter endpoint). */
  connect: string[];
  /** The sentence before the link on the page left at an old address (GitHub Pages cannot redirect). */
  moved?: string;
}

/**
 * A theme: its content model (settings, front matter, collections, languages), its routes
 * (pages and templates), its blocks and its assets. Write one with `defineTheme`, which types
 * every function below by the theme's own schemas: `Site` is what `site` validates, `Shape`
 * the keys `frontMatter` adds to an article, `Collections` what each collection's schema
 * gives, `Listings` what each listing computes.
 */
export interface Theme<Site = any, Shape extends z.core.$ZodLooseShape = any, Collections extends object = any, Listings extends object = any>
  extends ContentModel<Site, Shape, Collections>,
    RouteModel<ContentOf<Site, Shape, Collections>> {
  /** Name and version: a build of one theme is never mistaken for another's. */
  name: string;
  version: string;
  siteMeta(site: Site): SiteMeta;
  /** The pages that are not articles (the home page), from the content. */
  pages(content: ContentOf<Site, Shape, Collections>): PageSpec[];
  /** Page templates by name; `article` and `not-found` are required (pages declared in `pages`). */
  templates: Record<string, (ctx: PageContext<Site, FrontMatterOf<Shape>, Collections, Listings>) => ReactElement>;
  blocks: BlockDefinition<ContentOf<Site, Shape, Collections>>[];
  /** Markdown element overrides (links, tables…). */
  markdownComponents: Partial<Components>;
  /**
   * Values computed from the whole content that pages show (the cards, a series): a page
   * reads one through `ctx.listing(name)`, and is rendered again only when its value changes.
   */
  listings?: { [Name in keyof Listings]: (content: ContentOf<Site, Shape, Collections>) => Listings[Name] };
  /**
   * Work every thread that renders does once per build, before its first body or page
   * (load the icons the content names, say): the templates are synchronous, and a worker
   * thread shares nothing with the build's thread but what it is handed. Run it again for the
   * same content and it should do nothing new.
   */
  prepare?(content: ContentOf<Site, Shape, Collections>): Promise<void> | void;
  /** Checks that need the whole site (a card pointing nowhere); async work allowed (loading icons). */
  check?(content: ContentOf<Site, Shape, Collections>, routes: RouteTable<FrontMatterOf<Shape>>, found?: CheckHelpers): Promise<ContentError[]> | ContentError[];
  /** An article's summary for the feed; its `description` when the theme gives none. */
  summary?(article: Article<FrontMatterOf<Shape>>): string | undefined;
  /** Labels the Markdown toolchain prints (footnotes), per language. */
  markdownLabels?(lang: string): { footnoteLabel: string; footnoteBackLabel: string } | undefined;
  /**
   * How large and how deeply nested an article's body may be (beyond, it is an error at its
   * file, never minutes of parsing or a crash): `maxBytes` (default 1,000,000) and `maxDepth`,
   * quotes, list items or brackets nested on one line (default 100).
   */
  markdownLimits?: { maxBytes?: number; maxDepth?: number };
  /** The column images are shown in; without it, pictures are sized to the viewport. */
  images?: ThemeImages;
  /** One picture per page for links shared on social networks; without it, pages have none. */
  socialCard?: ThemeSocialCard<Site, any, FrontMatterOf<Shape>, Collections>;
  assets: ThemeAssets<Site>;
  /**
   * The module each part of the theme is written in, relative to the site's folder: a page
   * is rendered again only when a module its template's module reaches changed, a body
   * only when one its Markdown overrides or its blocks' modules reach did (engine/README.md,
   * "Keys of the code"). Without it, every page and body is keyed by all of the theme's code.
   */
  modules?: ThemeModules;
  /**
   * The text `cafe new "Title"` writes for a new article: its front matter (a draft) and a
   * first line. Default: `title`, `date` and `draft: true`.
   */
  newArticle?(article: { title: string; date: string }): string;
}

/**
 * Where the theme's parts are written, each a module of its own (paths relative to the
 * site's folder): what a module named here exports is used by the theme as that part only
 * (the theme's file may import a template's component to hand it to `templates`, and nothing
 * else from it). The engine follows the imports of each module (esbuild's graph) and keys
 * the part by what it reaches.
 */
export interface ThemeModules {
  /** Template name → the module of its component. */
  templates?: Record<string, string>;
  /** Block name → the module of its component (and schema). */
  blocks?: Record<string, string>;
  /** The modules of the Markdown element overrides (`markdownComponents`). */
  markdown?: string[];
}

const DEFINED_AT = Symbol.for("cafe-engine.theme.defined-at");

/**
 * Declares a theme, typing it by its own schemas: templates, listings, checks and cards get
 * the site settings, the front matter and the collections as the schemas validated them, and
 * `ctx.listing(name)` only the names of its listings. It notes where it is called: the
 * engine's messages about the theme name that file.
 */
export function defineTheme<Site, Shape extends z.core.$ZodLooseShape, Collections extends object, Listings extends object = {}>(
  theme: Theme<Site, Shape, Collections, Listings>,
): Theme<Site, Shape, Collections, Listings> {
  // The call's stack is captured now and read only when a message needs the place: reading it
  // formats every frame through the source maps, a cost every command paid while loading the
  // config (bench/README.md, session 7).
  const call = new Error();
  let place: CodePlace | undefined | null = null;
  Object.defineProperty(theme, DEFINED_AT, { get: () => (place === null ? (place = siteCodePlace(call.stack)) : place), enumerable: false, configurable: true });
  return theme;
}

/** Where the theme was declared (its `defineTheme` call), when known. */
export function themePlace(theme: Theme): CodePlace | undefined {
  return (theme as { [DEFINED_AT]?: CodePlace })[DEFINED_AT];
}
