/**
 * A stage's entries are computed a slice at a time and handed on in order as each slice is
 * done, on the build's own thread as on a pool: the write stage writes the first pages while
 * the last are rendered, and what waits to be written stays a few slices' worth of pages, not
 * the whole site's HTML (engine/pipeline/threads.ts).
 */
import { describe, expect, it } from "vitest";
import { slicesOf, streamSlices, type SliceOptions, type Threads } from "../engine/pipeline/threads.js";

/** One thread that runs a task by computing each entry of its slice, noting which it computed. */
function oneLane(computed: number[]): Threads {
  return {
    count: 1,
    share: (value) => ({ id: "v", value }),
    lanes: [async (task) => (task as unknown as { routes: number[] }).routes.map((n) => (computed.push(n), n)) as never],
    close: async () => {},
  };
}

/**
 * The build's own thread and a worker with two lanes (as the pool runs), each noting which
 * entries it computed: a task handed to the worker waits until `free` (the task it runs first).
 */
function withWorker(byMain: number[], byWorker: number[], free: Promise<unknown> = Promise.resolve()): Threads {
  const compute = (task: unknown, into: number[]) => (task as { routes: number[] }).routes.map((n) => (into.push(n), n));
  const worker = async (task: unknown) => (await free, compute(task, byWorker)) as never;
  return {
    count: 2,
    share: (value) => ({ id: "v", value }),
    lanes: [async (task) => compute(task, byMain) as never, worker, worker],
    close: async () => {},
  };
}


/** Every result of a stage's slices, in order, taken as they come (as the Markdown stage takes its bodies). */
async function allSlices(threads: Threads, entries: number[], task: (routes: number[]) => never, options: SliceOptions = {}): Promise<unknown[]> {
  const all: unknown[] = [];
  for await (const result of streamSlices(threads, entries, task, { ...options, ahead: Number.POSITIVE_INFINITY })) all.push(result);
  return all;
}

describe("slices of a stage's entries", () => {
  it("a worker busy with other work (the editorial rules) is handed no slice until it is free: the build's thread takes them meanwhile", async () => {
    // A slice handed to a busy worker waits behind its task while the build's thread has
    // nothing left to do: the Markdown stage of a cold build at 4000 articles ended when the
    // worker, done with the rules, had parsed the two slices it had taken at the start.
    const entries = Array.from({ length: 2000 }, (_, i) => i);
    const byMain: number[] = [];
    const byWorker: number[] = [];
    let done!: () => void;
    const busy = new Promise<void>((resolve) => (done = resolve));
    const all = allSlices(withWorker(byMain, byWorker, busy), entries, (routes) => ({ kind: "pages", routes }) as never, { workersFrom: busy });
    // The build's thread computes slice after slice while the worker is busy: all of them.
    for (let i = 0; i < 100 && byMain.length < entries.length; i++) await new Promise((resolve) => setImmediate(resolve));
    expect(byMain).toEqual(entries);
    done();
    expect(await all).toEqual(entries);
    expect(byWorker).toEqual([]);
  });

  it("a worker that is free takes slices from the start", async () => {
    const entries = Array.from({ length: 2000 }, (_, i) => i);
    const byMain: number[] = [];
    const byWorker: number[] = [];
    expect(await allSlices(withWorker(byMain, byWorker), entries, (routes) => ({ kind: "pages", routes }) as never)).toEqual(entries);
    expect(byWorker.length).toBeGreaterThan(0);
  });

  it("on the build's own thread, the first results are handed on before the last entries are computed", async () => {
    const computed: number[] = [];
    const entries = Array.from({ length: 4000 }, (_, i) => i);
    const results = streamSlices(oneLane(computed), entries, (routes) => ({ kind: "pages", routes }) as never);
    const first = await results.next();
    expect(first.value).toBe(0);
    expect(computed.length).toBeLessThan(entries.length);
    const rest: number[] = [];
    for await (const n of results) rest.push(n as unknown as number);
    expect([first.value, ...rest]).toEqual(entries);
  });

  it("on the build's own thread, one slice at most waits to be handed on: the next is computed once the last is taken", async () => {
    // A build on one thread renders and writes on the same thread: a slice rendered ahead is
    // only pages' HTML held in memory (13 MiB of the 4000 build's peak with three ahead).
    const computed: number[] = [];
    const entries = Array.from({ length: 4000 }, (_, i) => i);
    const biggest = Math.max(...slicesOf(entries, 1).map((s) => s.length));
    let taken = 0;
    let mostWaiting = 0;
    for await (const _ of streamSlices(oneLane(computed), entries, (routes) => ({ kind: "pages", routes }) as never)) {
      taken++;
      mostWaiting = Math.max(mostWaiting, computed.length - taken);
      // As the write stage does: the event loop runs between two results.
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(taken).toBe(entries.length);
    expect(mostWaiting).toBeLessThan(biggest);
  });

  it("on the build's own thread alone, no slice holds more than 16 entries: each page is written before the collector copies its HTML out of the young generation", () => {
    const entries = Array.from({ length: 4000 }, (_, i) => i);
    const slices = slicesOf(entries, 1);
    expect(Math.max(...slices.map((s) => s.length))).toBe(16);
    expect(slices.flat()).toEqual(entries);
  });

  it("no slice holds more than 250 entries, whatever the number of threads", () => {
    const entries = Array.from({ length: 10_000 }, (_, i) => i);
    for (const threads of [1, 2, 3]) {
      const slices = slicesOf(entries, threads);
      expect(Math.max(...slices.map((s) => s.length))).toBeLessThanOrEqual(250);
      expect(slices.flat()).toEqual(entries);
    }
    expect(slicesOf([], 1)).toEqual([]);
    expect(slicesOf([1, 2, 3], 1)).toEqual([[1, 2, 3]]);
  });

  it("the slices shrink towards the end: no thread waits long at the end for a large slice another took last", () => {
    const entries = Array.from({ length: 4000 }, (_, i) => i);
    for (const threads of [2, 3]) {
      const sizes = slicesOf(entries, threads).map((s) => s.length);
      // The last few slices together are a small part of the work.
      expect(sizes.slice(-threads).reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(40);
      // And no slice is larger than one before it.
      expect(sizes.every((size, i) => i === 0 || size <= sizes[i - 1]!)).toBe(true);
    }
  });
});
