/**
 * Stage 4 — render: one route → one HTML string, through React's renderToString. Each route
 * renders on its own. The parts every page shares (header, newsletter, footer, notices) are
 * rendered once per build and spliced in: the same bytes as rendering them in place.
 */
import { createElement, type ReactElement } from "react";
import { renderToString } from "react-dom/server";
import type { Route } from "./routes.js";
import type { PageContext, SharedPart } from "../templates/page-context.js";
import { HomePage } from "../templates/pages/home-page.js";
import { ArticlePage } from "../templates/pages/article-page.js";
import { NotFoundPage } from "../templates/pages/not-found-page.js";

type Base = Omit<PageContext, "route" | "shared">;

/** Rendered shared parts, per build context. */
const sharedParts = new WeakMap<Base, Map<SharedPart, string>>();
const SLOT = /<cafe-shared data-part="([a-z]+)"><\/cafe-shared>/g;

/** Renders a route to a complete HTML document; `shareParts: false` renders it whole. */
export function renderPage(route: Route, base: Base, options: { shareParts?: boolean } = {}): string {
  let parts = sharedParts.get(base);
  if (!parts) sharedParts.set(base, (parts = new Map()));
  const cache = parts;
  const shared = (part: SharedPart, element: ReactElement) => {
    if (!cache.has(part)) cache.set(part, renderToString(element));
    return createElement("cafe-shared", { "data-part": part });
  };
  const ctx: PageContext = { ...base, route, shared: options.shareParts === false ? undefined : shared };
  const page =
    route.kind === "home"
      ? createElement(HomePage, { ctx, featured: route.featured })
      : route.kind === "article"
        ? createElement(ArticlePage, { ctx, article: route.article })
        : createElement(NotFoundPage, { ctx });
  // One pass over the page: each slot becomes its part (four replaces would copy it four times).
  const html = renderToString(page).replace(SLOT, (_, part: SharedPart) => cache.get(part) ?? "");
  return `<!DOCTYPE html>${html}`;
}
