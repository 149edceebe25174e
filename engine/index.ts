/**
 * What a theme imports: the engine's public face for templates, blocks and schemas. What is
 * not exported here (or in node.ts, for build scripts) is the engine's own and may change.
 * Importing it changes nothing: no environment variable, no global.
 *
 * - A site's config file (cafe.config.ts): `defineConfig`.
 * - Declaring a theme: `defineTheme` and the types it is made of.
 * - In templates: `Picture`, `Cached`, `useMarkdownLanguage`, `absoluteUrl`, `articleOf`, `byCodePoint`, `formatDate`.
 * - In schemas and checks: the engine's field schemas, `errorAt`, `routeErrors`, `ContentError`.
 */

// A site's config file.
export { defineConfig, type SiteConfig } from "./config.js";

// Declaring a theme.
export { defineTheme } from "./theme.js";
export type {
  AssetManifest,
  BlockDefinition,
  BlockProps,
  BlockSource,
  CheckHelpers,
  HeadingLevel,
  ListingsOf,
  PageContext,
  SiteMeta,
  SocialCard,
  SocialCardFont,
  Theme,
  ThemeAssets,
  ThemeFont,
  ThemeImages,
  ThemeModules,
  ThemeSocialCard,
} from "./theme.js";
export type { Article, ArticleMeta, ContentOf, FrontMatterOf, LocatedFile, SiteContent } from "./stages/load/content.js";
export type { ArticleVariants, PageSpec, Route, RouteTable } from "./stages/routes/routes.js";
export type { BaseMeta, SiteDate } from "./stages/load/content-model.js";

// In templates.
export { Picture, type PictureProps, type ProcessedImage } from "./stages/images/images.js";
export { Cached, type CachedProps } from "./stages/render/cached-parts.js";
export { useMarkdownLanguage } from "./stages/markdown/markdown-context.js";
export { absoluteUrl } from "./lib/site-paths.js";
export { articleOf, byCodePoint } from "./stages/routes/routes.js";
export { formatDate } from "./stages/load/content-model.js";

// In schemas and checks.
export { externalUrl, httpsUrl, nonEmpty, readTime, routePath, routePathIn, siteDate, siteDateIn } from "./stages/load/content-model.js";
export { ContentError, formatError, type ContentWarning } from "./lib/errors.js";
export { errorAt, formatKey, type LocatableSource } from "./lib/yaml-source.js";
export { routeErrors } from "./stages/routes/routes.js";

// Islands: the interactive parts of a page, hydrated in the browser when they wake.
export { defineIsland, type Island, type IslandDefinition, type IslandProps, type Wake } from "./islands.js";
