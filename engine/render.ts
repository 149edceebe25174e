/**
 * Stage 4 — render: one route → one HTML string, through React's renderToString. Each route
 * renders on its own; nothing is shared between pages but the read-only context.
 */
import { createElement } from "react";
import { renderToString } from "react-dom/server";
import type { Route } from "./routes.js";
import type { PageContext } from "../templates/page-context.js";
import { HomePage } from "../templates/pages/home-page.js";
import { ArticlePage } from "../templates/pages/article-page.js";
import { NotFoundPage } from "../templates/pages/not-found-page.js";

/** Renders a route to a complete HTML document. */
export function renderPage(route: Route, base: Omit<PageContext, "route">): string {
  const ctx: PageContext = { ...base, route };
  const page =
    route.kind === "home"
      ? createElement(HomePage, { ctx, featured: route.featured })
      : route.kind === "article"
        ? createElement(ArticlePage, { ctx, article: route.article })
        : createElement(NotFoundPage, { ctx });
  return `<!DOCTYPE html>${renderToString(page)}`;
}
