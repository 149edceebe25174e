/** What every template may need to know about the site being built. */
import type { SiteSettings, Card } from "../engine/schema.js";
import type { Route, ArticleVariants } from "../engine/routes.js";
import type { Article } from "../engine/content.js";
import type { ResolvedBlock } from "../engine/markdown.js";
import type { ReactElement } from "react";

/** Hashed asset URLs and the inline boot script, produced by the assets stage. */
export interface AssetManifest {
  css: string;
  js: string;
  /** Script-font file to preload for the brand name. */
  brandFont: string;
  /** Runs in <head> before first paint: applies the reader's language choice. */
  bootScript: string;
}

export interface RenderedArticle {
  body: ReactElement;
  blocks: readonly ResolvedBlock[];
}

export interface PageContext {
  site: SiteSettings;
  /** The Content-Security-Policy every page carries (scripts by hash only). */
  csp: string;
  cards: Card[];
  assets: AssetManifest;
  /** An article's Markdown body, rendered once per version of its file. */
  rendered: (article: Article) => RenderedArticle;
  /** Other articles of a series, in route order. */
  seriesOf: (series: string) => { route: string; title: string }[];
  route: Route;
}


export type { ArticleVariants };
