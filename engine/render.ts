/**
 * Stage 6 — render: one route → one HTML document, through React's renderToString of the
 * theme's template for it. Each route renders on its own.
 */
import { renderToString } from "react-dom/server";
import type { Route } from "./routes.js";
import type { PageContext, Theme } from "./theme.js";

/** Renders a route to a complete HTML document with the theme's template. */
export function renderPage(route: Route, base: Omit<PageContext, "route">, theme: Theme): string {
  const template = theme.templates[route.template];
  if (!template) throw new Error(`the theme has no template '${route.template}'`);
  return `<!DOCTYPE html>${renderToString(template({ ...base, route }))}`;
}
