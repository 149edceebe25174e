/**
 * Old addresses: an article's `aliases` (where it was before) and the site's `redirects`
 * (content/site.yaml: pages gone for good, sent to `/` or another route). Each becomes one
 * permanent redirect to the route that answers now; redirect-files.ts writes it out for each
 * host, serve.ts answers it locally.
 *
 * An old address must be free: not a route (a page would hide it, or it would hide the
 * page), not a draft's route (the draft would collide once published), not another old
 * address, not a file of `public/` or one the build writes. A redirect goes to a page,
 * never to another old address (no chains). Each mistake is an error at its line.
 */
import { cannotTell, isReservedRoute } from "./routes.js";
import type { Article, SiteContent } from "../load/content.js";
import type { ContentError } from "../../lib/errors.js";
import { tooLong, type RouteTable } from "./routes.js";
import { errorAt, type LocatableSource } from "../../lib/yaml-source.js";
import { nearest } from "../../lib/nearest.js";

export interface Redirect {
  /** The old address, a route path (`/artigo/x`). */
  from: string;
  /** The route that answers it now. */
  to: string;
  kind: "alias" | "redirect";
  /** Where it is written: an article's front matter or site.yaml, and the key. */
  declaredIn: LocatableSource;
  key: (string | number)[];
  /** The article whose alias it is. */
  article?: Article;
}

export interface RedirectTable {
  /** Sorted by old address. */
  redirects: Redirect[];
  byFrom: Map<string, Redirect>;
  errors: ContentError[];
}


export interface RedirectInput {
  content: SiteContent;
  table: RouteTable;
  /** Files of `public/` (`favicon.svg`, `docs/a.pdf`). */
  publicFiles: ReadonlySet<string>;
  /** Files the build writes at the root (`feed.xml`, `_headers`…). */
  generated: readonly string[];
}

/** Every alias and redirect of the site, checked. */
export function buildRedirects({ content, table, publicFiles, generated }: RedirectInput): RedirectTable {
  const errors: ContentError[] = [];
  const byFrom = new Map<string, Redirect>();
  const described = (r: Pick<Redirect, "kind" | "to" | "declaredIn">) => (r.kind === "alias" ? `an alias of ${r.to} (${r.declaredIn.file})` : `a redirect in ${r.declaredIn.file}`);

  /** Why `from` cannot be an old address, if it cannot. */
  const taken = (from: string): { message: string; hint: string } | undefined => {
    const route = table.byPath.get(from);
    if (route) {
      const what = route.kind === "article" ? `the route of ${route.article.main.file}` : route.kind === "page" ? "the route of a page" : "the 404 page's";
      return { message: `${from} is ${what}: a page answers there already`, hint: "an old address must be one no page has now; remove it here" };
    }
    if (isReservedRoute(from)) return { message: `${from} is reserved by the site`, hint: "remove it: no page was ever published there" };
    if (content.draftRoutes.has(from)) {
      return { message: `${from} is the route of a draft`, hint: "once the draft is published the two would collide: remove the old address, or give the draft another `route:`" };
    }
    const file = from.slice(1);
    for (const name of [file, `${file}.html`]) {
      if (publicFiles.has(name)) return { message: `${from} is the address of public/${name}`, hint: "rename or move that file, or remove the old address" };
      if (generated.includes(name)) return { message: `${from} is the address of the ${name} the build writes`, hint: "remove the old address" };
    }
    return undefined;
  };

  const add = (redirect: Redirect) => {
    const { from, declaredIn, key } = redirect;
    const other = byFrom.get(from);
    if (other) {
      // The same alias in an article and its translation: one redirect.
      if (other.kind === "alias" && redirect.kind === "alias" && other.to === redirect.to && other.article !== redirect.article) return;
      errors.push(
        errorAt(declaredIn, key, {
          message: `${from} is already ${described(other)}`,
          hint: "an old address leads to one page: keep it in one place",
        }),
      );
      return;
    }
    if (from === redirect.to) {
      errors.push(errorAt(declaredIn, key, { message: `${from} redirects to itself`, hint: "remove it" }));
      return;
    }
    const long = tooLong(from, redirect.kind === "alias" ? "the alias" : "the redirected address");
    const reason = long ? { message: long, hint: "remove it: deploy/nginx.conf's map of old addresses holds none longer" } : taken(from);
    if (reason) {
      errors.push(errorAt(declaredIn, key, reason));
      return;
    }
    byFrom.set(from, redirect);
  };

  for (const article of content.articles) {
    const aliases = article.meta.aliases ?? [];
    const route = table.byPath.get(article.route);
    // An article whose route is in error (reported elsewhere) answers nothing yet.
    if (!route || route.kind !== "article") continue;
    aliases.forEach((from, i) => {
      const key = Array.isArray(article.frontMatter.aliases) ? ["aliases", i] : ["aliases"];
      if (from === article.route) {
        errors.push(errorAt(article, key, { message: `${from} is this article's own route`, hint: "an alias is an address the article had before: remove this one" }));
        return;
      }
      add({ from, to: article.route, kind: "alias", declaredIn: article, key, article });
    });
  }

  const site = content.site;
  const routeNames = table.routes.filter((r) => r.kind !== "not-found").map((r) => r.path);
  const declared = new Map(Object.entries(content.settings.redirects ?? {}));
  for (const [from, to] of [...declared].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const target = table.byPath.get(to);
    // Its page is in error (reported on its own): the redirect is judged once it builds.
    if (!target && cannotTell(table, to)) continue;
    if (!target || target.kind === "not-found") {
      // An alias is known by now; a redirect later in the list is not yet, so site.yaml's own list is asked.
      const alias = byFrom.get(to) ?? (declared.has(to) ? { to: finalTarget(to, declared), kind: "redirect" as const, declaredIn: site } : undefined);
      const guess = alias ? undefined : nearest(to, routeNames);
      errors.push(
        errorAt(site, ["redirects", from], {
          message: alias ? `\`redirects\` sends ${from} to ${to}, which is itself ${described(alias)}` : `\`redirects\` sends ${from} to ${to}, and no page has that route`,
          hint: alias
            ? `send it to ${alias.to} directly: one redirect, not two`
            : content.draftRoutes.has(to)
              ? `${to} is a draft: publish it first, or send ${from} to / meanwhile`
              : guess
                ? `did you mean ${guess}?`
                : "send it to / or to the route of an existing page",
        }),
      );
      continue;
    }
    add({ from, to, kind: "redirect", declaredIn: site, key: ["redirects", from] });
  }
  // An alias found after a redirect to it (`redirects: {/a: /b}` and /b an alias) is caught above;
  // a redirect whose target became an alias later in the list cannot happen: aliases come first.
  const redirects = [...byFrom.values()].sort((a, b) => (a.from < b.from ? -1 : a.from > b.from ? 1 : 0));
  return { redirects, byFrom, errors };
}

/** Where a chain of site.yaml's redirects ends (`/a: /b`, `/b: /`: `/`), a loop cut short. */
function finalTarget(from: string, declared: ReadonlyMap<string, string>): string {
  let to = from;
  for (let hops = 0; declared.has(to) && hops <= declared.size; hops++) to = declared.get(to)!;
  return to;
}
