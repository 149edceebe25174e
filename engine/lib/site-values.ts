/**
 * The values computed from the whole content that bodies and pages read: each theme listing
 * (the cards, a series) and each site block's data. They are computed once per run, on the
 * build's thread, and handed to every worker with the content: a worker never computes them
 * again. What a theme function threw is kept as data (its message and stack) and thrown again
 * where a page or a body reads the value, so the error is the one a single thread would give.
 */
import { ContentError, plainIssue, type ContentIssue } from "./errors.js";
import { hashOf } from "./hash.js";
import type { SiteContent } from "../stages/load/content.js";
import type { Theme } from "../theme.js";

/** A value a theme function computed, with the hash of its JSON; or what it threw. */
export type Outcome =
  | { value: unknown; hash: string }
  | { thrown: { message: string; stack?: string; issue?: ContentIssue } };

export interface SiteValues {
  /** Each listing the theme declares, by name. */
  listings: Record<string, Outcome>;
  /** Each site block's data (`source: { from: "site" }`), by the block's name. */
  blocks: Record<string, Outcome>;
}

/** The hash a dependency on a value records: of its JSON (dependencies.ts hashes the same way). */
export const valueHash = (value: unknown) => hashOf(JSON.stringify(value ?? null));

function outcomeOf(compute: () => unknown): Outcome {
  try {
    const value = compute();
    return { value, hash: valueHash(value) };
  } catch (error) {
    const { message, stack } = error instanceof Error ? error : { message: String(error), stack: undefined };
    return { thrown: { message, stack, issue: error instanceof ContentError ? plainIssue(error) : undefined } };
  }
}

/** Every listing and site block's data of a theme, computed from the content. */
export function siteValues(content: SiteContent, theme: Theme): SiteValues {
  const listings: Record<string, Outcome> = {};
  for (const [name, compute] of Object.entries(theme.listings ?? {})) listings[name] = outcomeOf(() => (compute as (c: SiteContent) => unknown)(content));
  const blocks: Record<string, Outcome> = {};
  for (const block of theme.blocks) {
    const source = block.source;
    if (source.from === "site") blocks[block.name] = outcomeOf(() => source.data(content));
  }
  return { listings, blocks };
}

/** The value of an outcome; what its function threw is thrown again (a ContentError as one, with its place). */
export function outcomeValue(outcome: Outcome): unknown {
  if ("value" in outcome) return outcome.value;
  const { message, stack, issue } = outcome.thrown;
  const error = issue ? new ContentError(issue) : new Error(message);
  if (stack !== undefined) error.stack = stack;
  throw error;
}

/** The outcome of `name` in a record of them (its own key only: a name like `constructor` is no listing). */
export const outcomeIn = (record: Record<string, Outcome> | undefined, name: string): Outcome | undefined =>
  record && Object.hasOwn(record, name) ? record[name] : undefined;

/** The hash of an outcome's value; undefined for one that threw (reading it throws). */
export const outcomeHash = (outcome: Outcome | undefined): string | undefined => (outcome && "hash" in outcome ? outcome.hash : undefined);
