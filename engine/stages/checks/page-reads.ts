/**
 * What a page's record says it read (`PageEntry.deps` and `reads`), with its route's own ids
 * (its route's value, its card, its article's body) written relative to it: `route:~`,
 * `card:~`, `body:@`. Every article's page reads the same ids but its own, so written so, the
 * pages of a run read alike: one list of reads in the store (`encodeShard`) and one shape of
 * object in the heap. Written whole, each page's `deps` had three strings of its own as keys
 * and a hidden class of its own in V8: at 100,000 articles ~38 MB of a cold build's heap,
 * held from the render to the save (bench/README.md, "Session 36").
 *
 * A record's ids are read back as the route names them now (`idsOf`): a page whose article
 * changed reads another body, and its sum (pipeline/render-pages.ts) tells it apart.
 */
import { dep, type Deps } from "../../incremental/dependencies.js";
import { articleOf, type Route } from "../routes/routes.js";

/** A page's own ids, written relative to its route in `reads` and in the keys of `deps`. */
export const OWN_ROUTE = "route:~";
export const OWN_CARD = "card:~";
export const OWN_BODY = "body:@";
/** A page's own ids, as its record writes them. */
export const OWN: ReadonlySet<string> = new Set([OWN_ROUTE, OWN_CARD, OWN_BODY]);

/** The ids a route's page reads of its own: its route's, its card's and its article's body (none for a route without an article). */
export function ownIds(route: Route): { route: string; card: string; body?: string } {
  const main = articleOf(route)?.main;
  return { route: dep.route(route.path), card: dep.card(route.path), body: main && dep.body(main) };
}

/** What a page read, each of the route's own ids (`own`, when its caller has them) written relative to it, in the same order. */
export function relativeDeps(route: Route, deps: Deps, own = ownIds(route)): Deps {
  const relative: Deps = {};
  for (const id in deps) relative[id === own.route ? OWN_ROUTE : id === own.card ? OWN_CARD : id === own.body ? OWN_BODY : id] = deps[id]!;
  return relative;
}

/** The ids of `reads` (or of a record's `deps`' keys) as this route names them now; undefined when one is its body and the route has no article. */
export function idsOf(route: Route, reads: Iterable<string>): string[] | undefined {
  const own = ownIds(route);
  const ids: string[] = [];
  for (const read of reads) {
    const id = read === OWN_ROUTE ? own.route : read === OWN_CARD ? own.card : read === OWN_BODY ? own.body : read;
    if (id === undefined) return undefined;
    ids.push(id);
  }
  return ids;
}

/** A record's `deps` with each id as the route names it now (`idsOf`); undefined when it cannot say. */
export function absoluteDeps(route: Route, deps: Deps): Deps | undefined {
  const reads = Object.keys(deps);
  const ids = idsOf(route, reads);
  if (!ids) return undefined;
  const absolute: Deps = {};
  for (const [i, id] of ids.entries()) absolute[id] = deps[reads[i]!]!;
  return absolute;
}
