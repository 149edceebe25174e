/**
 * Stage 4 — render: one route → one HTML string, through React's renderToString. Each route
 * renders on its own. The parts every page shares (header, newsletter, footer, notices) are
 * rendered once per build and spliced in: the same bytes as rendering them in place. So are
 * the icons templates show through `SharedIcon` (client/shared-part.tsx).
 */
import { createElement, type ReactElement } from "react";
import { renderToString } from "react-dom/server";
import type { Route } from "./routes.js";
import type { PageContext } from "../templates/page-context.js";
import { SharedParts, type SharePart } from "../client/shared-part.js";
import { HomePage } from "../templates/pages/home-page.js";
import { ArticlePage } from "../templates/pages/article-page.js";
import { NotFoundPage } from "../templates/pages/not-found-page.js";

type Base = Omit<PageContext, "route" | "shared">;

/** Parts rendered once per build context: by key, and their HTML by slot number. */
interface Parts {
  slots: Map<string, ReactElement>;
  html: string[];
}
const sharedParts = new WeakMap<Base, Parts>();
const SLOT = /<cafe-shared data-part="(\d+)"><\/cafe-shared>/g;

/** Renders a route to a complete HTML document; `shareParts: false` renders it whole. */
export function renderPage(route: Route, base: Base, options: { shareParts?: boolean } = {}): string {
  let parts = sharedParts.get(base);
  if (!parts) sharedParts.set(base, (parts = { slots: new Map(), html: [] }));
  const { slots, html: partHtml } = parts;
  const share: SharePart = (key, element) => {
    let slot = slots.get(key);
    if (!slot) {
      partHtml.push(renderToString(element));
      slot = createElement("cafe-shared", { "data-part": partHtml.length - 1 });
      slots.set(key, slot);
    }
    return slot;
  };
  const whole = options.shareParts === false;
  const ctx: PageContext = { ...base, route, shared: whole ? undefined : share };
  const page =
    route.kind === "home"
      ? createElement(HomePage, { ctx, featured: route.featured })
      : route.kind === "article"
        ? createElement(ArticlePage, { ctx, article: route.article })
        : createElement(NotFoundPage, { ctx });
  if (whole) return `<!DOCTYPE html>${renderToString(page)}`;
  // One pass over the page: each slot becomes its part (a replace per part would copy it each time).
  const html = renderToString(createElement(SharedParts.Provider, { value: share }, page));
  return `<!DOCTYPE html>${html.replace(SLOT, (_, slot: string) => partHtml[Number(slot)] ?? "")}`;
}
