/**
 * Where the compute cores run: on the build's own thread, or on a pool of worker threads
 * (piscina) that each load the launcher's bundle of the site's code once, by module path
 * (worker.ts), and stay alive for every run of a builder (watch mode's saves included).
 *
 * A run shares its large read-only values once (`share`): serialised once into memory every
 * thread reads, each thread deserialising it on its first task that names it. Tasks carry
 * slices of entries (files, routes, cards), and their results come back as plain data in
 * order. Below a size measured on this machine one thread is faster, and the pool is not
 * started at all (`threadsFor`).
 */
import { availableParallelism } from "node:os";
import { serialize } from "node:v8";
import type { Theme } from "../theme.js";
import { remember, taskRunner, type Shared, type Task, type TaskOf, type TaskResults } from "./tasks.js";

export interface Threads {
  /** How many threads do the work: this one, and the workers. */
  readonly count: number;
  /** A value every task of this run may name, made readable by every thread once. */
  share<T>(value: T): Shared<T>;
  /** Each thread's way to run a task: this thread's first. */
  readonly lanes: readonly (<K extends Task["kind"]>(task: TaskOf<K>) => Promise<TaskResults[K]>)[];
  /** Stops the workers (nothing to do on one thread). */
  close(): Promise<void>;
}

/** The modules a worker loads: its own entry (worker.ts, bundled) and the site's config with its theme. */
export interface WorkerModules {
  worker: string;
  site: string;
}

/**
 * Below this many articles a build starts no worker for its Markdown and pages. Sessions 7, 9
 * and 17 (bench/README.md) found two threads no faster than one up to 4000 articles on this
 * machine's two cores; session 19's work on the pool (two tasks queued in each worker, slices
 * that shrink towards the end, the editorial rules on a worker, WebAssembly by Liftoff only)
 * made two threads 0.79–0.85 the time of one at 4000, and the pool started there. Session 21's
 * quiet series, after the one-thread path had gained too: at 4000 one thread took 1.04
 * (0.97–1.07) the time of two, at 10,000 1.03 (0.89–1.05), at 20,000 **1.12 (1.08–1.19)**; the
 * pool's memory is a third more (a worker holds its own copy of the site's share and code:
 * 369 against 267 MiB at 4000, 597 against 422 at 10,000, 962 against 646 at 20,000). So from
 * 20,000, where it saves a tenth. Social cards start the workers whatever the size
 * (`LEAST_ENTRIES.cards`).
 */
export const POOL_THRESHOLD = 20_000;

/**
 * The fewest entries of a stage worth handing to the pool; fewer are computed on the build's
 * thread (bench/README.md, "Session 7" and "Session 17", have the runs). Pages from a few
 * hundred: rendering 4000 on two threads took 0.8 s instead of 1.2–1.4 s. Bodies from as many
 * as start the pool (the worker parses its own share of them once it has loaded the site's
 * code). Cards from a few dozen: they start the workers themselves (a card costs ~20 ms; a
 * worker's start ~0.5 s).
 */
export const LEAST_ENTRIES = { bodies: POOL_THRESHOLD, pages: 200, cards: 40 } as const;

/**
 * Whether a build starts its workers before it reads the content (they load the site's code
 * meanwhile): when its cache holds no article (a first build, `--force`, new code: every body
 * and page is to be made), or when told how many threads (`--threads`: the pool starts with
 * the builder). From a warm cache a stage starts them once it has enough entries to hand out
 * (`LEAST_ENTRIES`: a template edit's pages); a one-article edit has none, and at 100,000
 * articles its worker loaded the code, for nothing, on a core the build's thread needed.
 */
export function poolBeforeLoad({ cachedFiles, asked }: { cachedFiles: number; asked?: number }): boolean {
  return asked !== undefined || cachedFiles === 0;
}

/** How many threads a build of `articles` articles uses: `asked` when given, else every core above the threshold. */
export function threadsFor(articles: number, asked?: number): number {
  if (asked !== undefined) return Math.max(1, Math.floor(asked));
  return articles >= POOL_THRESHOLD ? availableParallelism() : 1;
}

/**
 * The build's own thread: the same tasks, run here. A value shared for the workers is kept
 * here as it is: this thread never reads its serialised copy.
 */
export function oneThread(theme: Theme): Threads & { keep<T>(value: T, shared: Shared<T>): Shared<T> } {
  let next = 0;
  const values = new Map<string, unknown>();
  const run = taskRunner(theme, (shared) => (values.has(shared.id) ? values.get(shared.id) : shared.value) as never);
  return {
    count: 1,
    share: (value) => ({ id: `v${next++}`, value }),
    keep(value, shared) {
      remember(values, shared.id, value);
      return shared;
    },
    lanes: [(task) => run(task) as never],
    close: async () => {},
  };
}

/**
 * This thread and a pool of `workers` worker threads, started now: each loads the site's code
 * while this thread reads the content. This thread takes slices too (it has everything loaded
 * already), between its own work (writing the pages): on two cores, one worker and this thread.
 */
export async function workerPool(workers: number, modules: WorkerModules, here: ReturnType<typeof oneThread>): Promise<Threads> {
  const { Piscina } = await import("piscina");
  const pool = new Piscina({
    filename: modules.worker,
    workerData: { site: modules.site },
    minThreads: workers,
    maxThreads: workers,
    // Workers live as long as the builder (watch mode), not a few idle seconds.
    idleTimeout: Number.POSITIVE_INFINITY,
    // A worker's event loop runs between tasks: resvg's memory is freed (with "sync" it was kept, bench/README.md, session 5).
    atomics: "disabled",
    // Two tasks at a time in each worker: it starts the next as soon as it ends one, without
    // waiting for this thread (busy with its own slice) to hand it over.
    concurrentTasksPerWorker: 2,
    // A worker's young generation at 12 MB (V8's default is three 16 MB semi-spaces): a slice's
    // garbage is short-lived. 4000 articles, two threads, quiet series (bench/README.md,
    // "Session 20"): with the one-thread change of that session, peak 369 MiB against 423,
    // the same wall (0.97); cards on, 805 against 836 MiB, 0.98 of the time.
    resourceLimits: { maxYoungGenerationSizeMb: 12 },
  });
  let next = 0;
  const worker = (task: Task) => pool.run(task);
  return {
    count: workers + 1,
    share(value) {
      const bytes = serialize(value);
      const buffer = new SharedArrayBuffer(bytes.length);
      new Uint8Array(buffer).set(bytes);
      // This thread reads the value itself.
      return here.keep(value, { id: `s${next++}`, buffer });
    },
    lanes: [here.lanes[0]!, ...Array.from({ length: workers * 2 }, () => worker as never)],
    // A worker stopped while it still loads the site's code can take the process down with it
    // (a small build may finish before a worker is ready): each answers once first.
    close: async () => {
      await Promise.all(Array.from({ length: workers }, () => pool.run({ kind: "ready" }).catch(() => undefined)));
      await pool.destroy();
    },
  };
}

/** The kinds of task that compute a slice of entries, one result each. */
type SlicedKind = Exclude<Task["kind"], "ready" | "rules">;

/** Runs one task on a worker, or undefined when there is none (the task is then this thread's to do, where it belongs in the run). */
export function onWorker<K extends Task["kind"]>(threads: Threads, task: TaskOf<K>): Promise<TaskResults[K]> | undefined {
  return threads.count > 1 ? threads.lanes[threads.lanes.length - 1]!(task) : undefined;
}

/**
 * Splits entries into slices for `threads`, each a share of what is left (a quarter of it per
 * thread): large slices first, each task's cost spread over many entries, then smaller and
 * smaller ones, so that at the end no thread waits long for a large slice another took last
 * (with slices of equal size, one twelfth each, the build's thread waited 0.3–0.4 s for the
 * worker's last two at 4000 pages). At most `max` entries each, so that what waits to be
 * written stays small (a slice of pages is its pages' HTML). On one thread too: the site's
 * pages in one slice were all rendered before the first was written, every page's HTML held
 * at once (80 MB of the 4000 cold build's 330 MiB peak) and the disk idle meanwhile. On one
 * thread, where a slice is a call and no message, at most `ONE_THREAD_MAX`: a page's HTML
 * written before the collector's next young-generation pass or the one after, not copied out
 * to the old generation with the slice's other pages (250 a slice: 154 MB promoted in a 4000
 * cold build, 7 full collections; 16: 83 MB, 4).
 */
export function slicesOf<T>(items: readonly T[], threads: number, { min = 8, max = threads <= 1 ? ONE_THREAD_MAX : 250, perThread = 4 } = {}): T[][] {
  const slices: T[][] = [];
  for (let i = 0; i < items.length; ) {
    const size = Math.min(max, Math.max(min, Math.ceil((items.length - i) / (Math.max(1, threads) * perThread))));
    slices.push(items.slice(i, i + size));
    i += size;
  }
  return slices;
}

/** The largest slice on one thread (`slicesOf`). */
export const ONE_THREAD_MAX = 16;

/** How a stage's slices are handed out (`streamSlices`). */
export interface SliceOptions {
  /** At most this many slices computed from the one awaited on (that one included). */
  ahead?: number;
  /**
   * When the workers are free for this stage: busy with other work until then (the editorial
   * rules, beside the Markdown stage), they take no slice, and the build's thread takes them.
   */
  workersFrom?: Promise<unknown>;
}

/**
 * Runs one task per slice and yields the results in the order of the entries as they are
 * ready. Each thread takes the next slice when it is done with one (this thread between its
 * other work), at most `ahead` slices from the one awaited on (that one included): what waits
 * to be written stays bounded. A worker takes its first slice once `workersFrom` settles: a
 * slice handed to a worker still busy with other work would wait behind it while this thread
 * had run out of slices (a cold build's Markdown stage at 4000 articles waited for the two
 * slices the worker had taken before running the editorial rules).
 */
export async function* streamSlices<K extends SlicedKind, T>(
  threads: Threads,
  items: readonly T[],
  /** The task of a slice; `here`: for the build's own thread. Made when a thread takes the slice (it may read what the slice needs first). */
  task: (slice: T[], here: boolean) => TaskOf<K> | Promise<TaskOf<K>>,
  {
    // On one thread a slice rendered ahead is only HTML held in memory: the writes go on
    // while this thread renders the next slice anyway (13 MiB of the 4000 build's peak with the
    // fonts' cache kept; 3 MiB in session 20's cold series, where the font cutter sets the peak).
    ahead = threads.count === 1 ? 1 : threads.count * 3,
    workersFrom,
  }: SliceOptions = {},
): AsyncGenerator<TaskResults[K][number]> {
  const slices = slicesOf(items, threads.count);
  const done: (TaskResults[K] | undefined)[] = [];
  let taken = 0;
  let awaited = 0;
  let failure: { error: unknown } | undefined;
  let wake: (() => void) | undefined;
  const notify = () => {
    const resume = wake;
    wake = undefined;
    resume?.();
  };
  const lanes = threads.lanes.map(async (run, lane) => {
    if (lane > 0 && workersFrom) await workersFrom.catch(() => undefined);
    while (!failure && taken < slices.length) {
      if (taken >= awaited + ahead) {
        await new Promise<void>((resolve) => (wake = chain(wake, resolve)));
        continue;
      }
      const i = taken++;
      try {
        done[i] = (await run(await task(slices[i]!, lane === 0))) as TaskResults[K];
      } catch (error) {
        failure ??= { error };
      }
      notify();
      // This thread lets the others' results and its own writes in between two slices.
      if (lane === 0) await new Promise((resolve) => setImmediate(resolve));
    }
  });
  void Promise.all(lanes).then(notify);
  for (awaited = 0; awaited < slices.length; awaited++) {
    // The slice awaited moved on: a lane that waited for room takes the next.
    notify();
    while (done[awaited] === undefined && !failure) await new Promise<void>((resolve) => (wake = chain(wake, resolve)));
    if (failure) throw failure.error;
    const results = done[awaited]!;
    done[awaited] = undefined;
    for (const result of results as TaskResults[K][number][]) yield result;
  }
}

/** Both callbacks, one after the other. */
const chain = (first: (() => void) | undefined, second: () => void) => (first ? () => (first(), second()) : second);
