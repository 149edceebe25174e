/**
 * The engine's public face: everything a theme, a site's build script or a second site may
 * use. What is not exported here is the engine's own and may change.
 *
 * - Declaring a theme: `defineTheme` and the types it is made of.
 * - Building: `buildProject` (what `npm run build` does), or `SiteBuilder` / `buildSite`
 *   with a writer of your own.
 * - In templates: `Picture`, `useMarkdownLanguage`, `absoluteUrl`, `articleOf`, `byCodePoint`.
 * - In schemas and checks: the engine's field schemas, `errorAt`, `routeErrors`, `ContentError`.
 */
import "./production.js";

// Declaring a theme.
export { defineTheme } from "./theme.js";
export type {
  AssetManifest,
  BlockDefinition,
  BlockProps,
  BlockSource,
  HeadingLevel,
  PageContext,
  SiteMeta,
  SocialCard,
  SocialCardFont,
  Theme,
  ThemeAssets,
  ThemeFont,
  ThemeImages,
  ThemeSocialCard,
} from "./theme.js";
export type { Article, ArticleMeta, ContentOf, FrontMatterOf, LocatedFile, SiteContent } from "./content.js";
export type { ArticleVariants, PageSpec, Route, RouteTable } from "./routes.js";
export type { BaseMeta, SiteDate } from "./schema.js";

// Building a site.
export { buildProject, type ProjectBuildOptions } from "./project.js";
export { SiteBuilder, buildSite, type BuildOptions, type BuildResult } from "./build.js";
export { FolderWriter, LiveWriter, MemoryWriter, type SiteWriter } from "./output.js";
export { printErrors, printWarnings } from "./report.js";

// In templates.
export { Picture, type PictureProps, type ProcessedImage } from "./images.js";
export { useMarkdownLanguage } from "./markdown.js";
export { absoluteUrl } from "./site-files.js";
export { articleOf, byCodePoint } from "./routes.js";

// In schemas and checks.
export { externalUrl, httpsUrl, nonEmpty, readTime, routePath, siteDate } from "./schema.js";
export { ContentError, formatError, type ContentWarning } from "./errors.js";
export { errorAt, formatKey, type LocatableSource } from "./yaml-source.js";
export { routeErrors } from "./routes.js";
