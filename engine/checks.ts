/**
 * Stage 4 — checks: what needs the whole site. Every internal link and #anchor written in
 * Markdown must exist (a route, a heading's id, a file of public/), no file of public/ may
 * sit at the address of a page or a generated file, and the theme's own checks (a card
 * pointing nowhere). Returns the errors; changes nothing.
 */
import { ContentError } from "./errors.js";
import type { SiteContent } from "./content.js";
import type { MarkdownBodies } from "./markdown-stage.js";
import { isPublicFile, listPublicFiles, publicFileErrors } from "./public-files.js";
import { articleOf, type Route, type RouteTable } from "./routes.js";
import { SITE_FILES } from "./site-files.js";
import type { Theme } from "./theme.js";

export interface CheckInput {
  content: SiteContent;
  table: RouteTable;
  markdown: MarkdownBodies;
  theme: Theme;
  /** The folder copied into the site as it is. */
  publicDir: string;
}

/** The errors of the whole-site checks. */
export async function checkStage({ content, table, markdown, theme, publicDir }: CheckInput): Promise<ContentError[]> {
  const publicFiles = listPublicFiles(publicDir);
  return [
    ...checkInternalLinks(content, table, markdown, theme.pageAnchors ?? [], publicFiles),
    ...((await theme.check?.(content, table)) ?? []),
    ...publicFileErrors(publicFiles, table, SITE_FILES),
  ];
}

/** Every /route and #anchor in Markdown must exist on the built site. */
function checkInternalLinks(
  content: SiteContent,
  table: RouteTable,
  markdown: MarkdownBodies,
  pageAnchors: readonly string[],
  publicFiles: ReadonlySet<string>,
): ContentError[] {
  // Anchors of a route, gathered only for the routes a link points into with a #fragment.
  const idsOf = new Map<string, Set<string>>();
  const anchorsOf = (route: Route): Set<string> => {
    let ids = idsOf.get(route.path);
    if (!ids) {
      const variants = articleOf(route);
      const articles = variants ? [variants.main, ...variants.translations] : [];
      ids = new Set([...pageAnchors, ...articles.flatMap((a) => markdown.get(a.file)?.result.headings.map((h) => h.id) ?? [])]);
      idsOf.set(route.path, ids);
    }
    return ids;
  };
  const sourceOf = new Map(content.articles.map((a) => [a.file, a.source]));
  const errors: ContentError[] = [];
  for (const { result } of markdown.values()) {
    for (const link of result.links) {
      const hashAt = link.url.indexOf("#");
      const pathPart = (hashAt < 0 ? link.url : link.url.slice(0, hashAt)).replace(/\?.*$/, "");
      const anchor = hashAt < 0 ? undefined : link.url.slice(hashAt + 1);
      const where = { file: link.file, line: link.line, column: link.column, source: sourceOf.get(link.file) };
      const decodedPath = decode(pathPart);
      const decodedAnchor = anchor === undefined ? "" : decode(anchor);
      if (decodedPath === undefined || decodedAnchor === undefined) {
        errors.push(
          new ContentError({
            ...where,
            message: `link \`${link.url}\` has a malformed percent-encoding`,
            hint: "write % as %25, or use the characters themselves (a route is lowercase letters, digits and hyphens)",
          }),
        );
        continue;
      }
      // Servers answer a route at its exact path only: /x/ is a 404 everywhere.
      if (decodedPath.length > 1 && decodedPath.endsWith("/")) {
        const exact = decodedPath.replace(/\/+$/, "");
        errors.push(
          new ContentError({
            ...where,
            message: `link to ${decodedPath} ends with a slash, and no page is served there`,
            hint: `write ${exact}${anchor === undefined ? "" : `#${anchor}`}`,
          }),
        );
        continue;
      }
      const routePath = decodedPath;
      const route = table.byPath.get(routePath);
      // A file of public/ (a PDF, the favicon) is a link target too; its #fragment is not ours to check.
      if (!route && isPublicFile(publicFiles, pathPart)) continue;
      if (!route || route.kind === "not-found") {
        // The article at that route did not load: its own error is reported, not this one.
        if (table.unreadable.has(routePath)) continue;
        errors.push(
          new ContentError({
            ...where,
            message: `broken link: no page has the route ${routePath}`,
            hint: content.draftRoutes.has(routePath)
              ? `${routePath} is a draft: publish it (remove \`draft: true\`) or remove the link`
              : "link to an existing route (the file path under content/articles without .md), or fix the typo",
          }),
        );
      } else if (decodedAnchor) {
        if (!anchorsOf(route).has(decodedAnchor)) {
          errors.push(
            new ContentError({
              ...where,
              message: `broken link: ${routePath} has no heading with the anchor #${decodedAnchor}`,
              hint: `anchors are the headings' ids: ${[...anchorsOf(route)].slice(0, 6).map((id) => `#${id}`).join(", ")}…`,
            }),
          );
        }
      }
    }
  }
  return errors;
}

/** A URL part with its percent-escapes decoded; undefined when one is malformed (`%zz`, a lone `%`). */
function decode(part: string): string | undefined {
  try {
    return decodeURIComponent(part);
  } catch {
    return undefined;
  }
}
