/**
 * Stage 4 — render: one route → one HTML string, through React's renderToString. Each route
 * renders on its own. The parts templates mark as shared (`Shared` and `SharedIcon` in
 * client/shared-part.tsx: header, newsletter, footer, notices, icons) are rendered once per
 * build and spliced in: the same bytes as rendering them in place.
 */
import { createElement, type ReactElement } from "react";
import { renderToString } from "react-dom/server";
import type { Route } from "./routes.js";
import type { PageContext } from "../templates/page-context.js";
import { SharedParts, type SharePart } from "../client/shared-part.js";
import { HomePage } from "../templates/pages/home-page.js";
import { ArticlePage } from "../templates/pages/article-page.js";
import { NotFoundPage } from "../templates/pages/not-found-page.js";

type Base = Omit<PageContext, "route">;

/** Parts rendered once per build context: how a template shares one, and their HTML by slot. */
interface Parts {
  share: SharePart;
  html: string[];
}
const sharedParts = new WeakMap<Base, Parts>();
const SLOT = /<cafe-shared data-part="(\d+)"><\/cafe-shared>/g;

function partsFor(base: Base): Parts {
  let parts = sharedParts.get(base);
  if (parts) return parts;
  const slots = new Map<string, ReactElement>();
  const html: string[] = [];
  const share: SharePart = (key, element) => {
    let slot = slots.get(key);
    if (!slot) {
      html.push(renderToString(element));
      slot = createElement("cafe-shared", { "data-part": html.length - 1 });
      slots.set(key, slot);
    }
    return slot;
  };
  sharedParts.set(base, (parts = { share, html }));
  return parts;
}

/** Renders a route to a complete HTML document; `shareParts: false` renders it whole. */
export function renderPage(route: Route, base: Base, options: { shareParts?: boolean } = {}): string {
  const ctx: PageContext = { ...base, route };
  const page =
    route.kind === "home"
      ? createElement(HomePage, { ctx, featured: route.featured })
      : route.kind === "article"
        ? createElement(ArticlePage, { ctx, article: route.article })
        : createElement(NotFoundPage, { ctx });
  if (options.shareParts === false) return `<!DOCTYPE html>${renderToString(page)}`;
  const { share, html: partHtml } = partsFor(base);
  // One pass over the page: each slot becomes its part (a replace per part would copy it each time).
  const html = renderToString(createElement(SharedParts.Provider, { value: share }, page));
  return `<!DOCTYPE html>${html.replace(SLOT, (_, slot: string) => partHtml[Number(slot)] ?? "")}`;
}
