/**
 * The work a thread does for a slice of entries, whichever thread it is: the compute cores
 * of the Markdown, render and card stages, over plain data. The build's own thread runs
 * these same functions when it works alone (threads.ts), so one thread and three give the
 * same bytes by construction.
 *
 * Large read-only inputs (the content, the route table, the run's listings; the bodies and
 * the rest every page reads; the cards' fonts) are not sent with each task: a task names
 * them by a `Shared` reference, made once per run, which each thread resolves once.
 */
import type { Article, SiteContent } from "../stages/load/content.js";
import type { RouteTable } from "../stages/routes/routes.js";
import type { SiteValues } from "../lib/site-values.js";
import type { Theme } from "../theme.js";
import { markdownSession, type MarkdownSession } from "../stages/markdown/markdown-context.js";
import { bodyValues, renderBodies, type RenderedBody, type ValidBlockData } from "../stages/markdown/markdown-stage.js";
import { bodyNotHere, pageValues, renderPages, type PageBody, type PageOutcome, type PageShare } from "../stages/render/render.js";
import { drawHere, type LoadedFont } from "../stages/cards/cards.js";
import { PartMemory } from "../stages/render/cached-parts.js";
import type { DepValues } from "../incremental/dependencies.js";
import { runEditorialRules, type RuleMemory, type RuleRun } from "../stages/checks/editorial-rules.js";

/**
 * A value shared by every task of a run: its bytes once in memory every thread can read
 * (`buffer`, v8's serialisation), or the value itself on the build's own thread.
 */
export interface Shared<T> {
  /** Unique for the life of the threads: a thread that resolved this id already has the value. */
  readonly id: string;
  readonly buffer?: SharedArrayBuffer;
  readonly value?: T;
  /** Only for the type. */
  readonly __type?: (value: T) => void;
}

/** What every body and page of a run reads: the content, the route table, its listings and site blocks' data, and the keys of the theme's parts. */
export interface SiteShare {
  content: SiteContent;
  table: RouteTable;
  values: SiteValues;
  code?: Readonly<Record<string, string>>;
}

export type Task =
  /** The Markdown core: these articles' bodies (files of `site.content.articles`), in order. */
  | { kind: "bodies"; site: Shared<SiteShare>; files: string[]; lean: boolean; keep: boolean; valid?: ValidBlockData; aside?: readonly Article[] }
  /** The render core: these routes' pages, in order. */
  /**
   * The render core: these routes' pages, in order, with the bodies they show (every body, on
   * the build's thread).
   */
  | { kind: "pages"; site: Shared<SiteShare>; pages: Shared<PageShare>; bodies: ReadonlyMap<string, PageBody>; every: boolean; routes: string[]; checkOnly: boolean }
  /** The card core: one PNG for each of these props, in order. */
  | { kind: "cards"; fonts: Shared<LoadedFont[]>; props: unknown[] }
  /**
   * The editorial rules over the whole content (content/rules.yaml), with the memory of an
   * earlier run: on a worker while the build's thread parses bodies (a cold build at 4000
   * articles spent 0.4–0.5 s of its own thread on them, the workers idle).
   */
  | { kind: "rules"; site: Shared<SiteShare>; previous?: RuleMemory }
  /** Nothing: answered once the thread has loaded the site's code (the pool waits for it before it stops a worker). */
  | { kind: "ready" };

/** What each kind of task gives back. */
export interface TaskResults {
  bodies: RenderedBody[];
  pages: PageOutcome[];
  cards: Uint8Array[];
  /** None without a rules file; no `state` (that is for the next run of the thread that ran them). */
  rules: Omit<RuleRun, "state"> | undefined;
  ready: true;
}

export type TaskOf<K extends Task["kind"]> = Extract<Task, { kind: K }>;

/**
 * Runs tasks for one theme on one thread. What a thread derives from a shared value (its
 * articles by file, its Markdown pipelines, its pages' hashed values) is made once per value
 * and dropped when the next run's value comes.
 */
export function taskRunner(theme: Theme, resolve: <T>(shared: Shared<T>) => T) {
  /** Made from the latest site share: its articles by file and the Markdown pipelines. */
  const bySite = lastOf((site: SiteShare) => ({
    articles: new Map<string, Article>(site.content.articles.map((a) => [a.file, a])),
    session: markdownSession(site.values) as MarkdownSession,
    values: bodyValues(site.content, site.table, site.values, site.code),
    prepared: prepare(theme, site.content),
  }));
  /** The bodies of the task being run (`every`: all of them), and the run's articles that have none. */
  let given: { bodies: ReadonlyMap<string, PageBody>; every: boolean; absent: ReadonlySet<string> } = { bodies: new Map(), every: true, absent: new Set() };
  const bodyOf = (file: string) => given.bodies.get(file) ?? (given.every || given.absent.has(file) ? undefined : bodyNotHere(file));
  const absentOf = lastOf((pages: PageShare) => new Set(pages.absent));
  const byPages = lastOf((both: { site: SiteShare; pages: PageShare }) => pageValues({ ...both.site, share: both.pages, bodies: bodyOf }, theme));
  /** The cached parts of the run's pages rendered on this thread (stages/render/cached-parts.tsx). */
  const partsOf = lastOf(() => new PartMemory());

  return async function runTask(task: Task): Promise<TaskResults[Task["kind"]]> {
    switch (task.kind) {
      case "bodies": {
        const site = resolve(task.site);
        const { articles, session, values, prepared } = bySite(task.site.id, site);
        await prepared;
        const options = { lean: task.lean, keep: task.keep, session, valid: task.valid };
        // Articles that are not in the content (their front matter failed) come with the task, on the build's thread.
        const bodies = task.aside ?? task.files.map((file) => articles.get(file)!);
        return renderBodies(bodies, site.content, theme, values, options);
      }
      case "pages": {
        const site = resolve(task.site);
        await bySite(task.site.id, site).prepared;
        const pages = resolve(task.pages);
        const values: DepValues = byPages(`${task.site.id} ${task.pages.id}`, { site, pages });
        given = { bodies: task.bodies, every: task.every, absent: absentOf(task.pages.id, pages) };
        return renderPages(task.routes, { ...site, share: pages, bodies: bodyOf }, values, theme, partsOf(`${task.site.id} ${task.pages.id}`, undefined), task.checkOnly);
      }
      case "ready":
        return true;
      case "rules": {
        const { content } = resolve(task.site);
        if (!content.rules?.value) return undefined;
        const { findings, memory, read, looked } = runEditorialRules(content, content.rules.value, theme.languages, task.previous);
        return { findings, memory, read, looked };
      }
      case "cards": {
        const card = theme.socialCard;
        if (!card) throw new Error("the theme draws no social card");
        const drawn: Uint8Array[] = [];
        for await (const png of drawHere(card)(task.props, resolve(task.fonts))) drawn.push(png);
        return drawn;
      }
    }
  };
}

/** The theme's work before rendering this content; none while a file it may read did not load (its errors are reported). */
async function prepare(theme: Theme, content: SiteContent): Promise<void> {
  try {
    await theme.prepare?.(content);
  } catch (error) {
    if (content.unavailable.length === 0) throw error;
  }
}

/**
 * Notes a shared value a thread holds, letting go of the oldest beyond the last few (a run
 * shares its site, its pages' values and the cards' fonts; earlier runs' are not read again).
 */
export function remember(held: Map<string, unknown>, id: string, value: unknown): void {
  held.set(id, value);
  while (held.size > 4) held.delete(held.keys().next().value!);
}

/** A function of a value, made again only when the value's id changes (the last one is kept). */
function lastOf<V, R>(make: (value: V) => R): (id: string, value: V) => R {
  let last: { id: string; made: R } | undefined;
  return (id, value) => {
    if (last?.id !== id) last = { id, made: make(value) };
    return last.made;
  };
}
