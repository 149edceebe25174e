import { describe, expect, it } from "vitest";
import { heapFor, LEAN_HEAP_FLAG, LEAN_HEAP_FROM, leanerWhile, RENDER_HEAP_FLAG } from "../engine/lib/heap.js";

/** A way of setting flags that records them (V8's own is the process's: a test must not change it). */
const recorder = () => {
  const set: string[] = [];
  return { set, setFlags: (flag: string) => void set.push(flag) };
};

describe("V8's heap growth for a large build (engine/lib/heap.ts)", () => {
  it("leaves a site below the size alone", () => {
    const { set, setFlags } = recorder();
    expect(heapFor(LEAN_HEAP_FROM - 1, { flags: [], setFlags })).toBe(false);
    expect(heapFor(15, { flags: [], setFlags })).toBe(false);
    expect(set).toEqual([]);
  });

  it("grows the heap of a site of that size or larger by 1.6× its live data, once a process", () => {
    const { set, setFlags } = recorder();
    // From 1000 articles (bench/README.md, session 22: 1.00-1.06x the time for 8-39% less memory from 1000 to 100,000).
    expect(LEAN_HEAP_FROM).toBe(1000);
    expect(heapFor(4000, { flags: [], setFlags })).toBe(true);
    expect(heapFor(100_000, { flags: [], setFlags })).toBe(true);
    // A smaller build later in the same process (watch mode) keeps what is set: V8's flags are the process's.
    expect(heapFor(10, { flags: [], setFlags })).toBe(true);
    expect(set).toEqual([LEAN_HEAP_FLAG]);
    expect(LEAN_HEAP_FLAG).toBe("--heap-growing-percent=60");
  });

  it("keeps a growth given to node, on its command line or in NODE_OPTIONS", () => {
    const { set, setFlags } = recorder();
    expect(heapFor(100_000, { flags: ["--heap-growing-percent=30"], setFlags })).toBe(false);
    expect(heapFor(100_000, { flags: ["--max-old-space-size=4096", "--heap-growing-percent"], setFlags })).toBe(false);
    expect(set).toEqual([]);
  });

  it("grows it by less while the pages are rendered and written, then as before, even when they fail; a build it did not set the growth of is left alone", async () => {
    const { set, setFlags } = recorder();
    expect(heapFor(100_000, { flags: [], setFlags })).toBe(true);
    expect(await leanerWhile(async () => (set.push("render"), "written"), setFlags)).toBe("written");
    await expect(leanerWhile(async () => Promise.reject(new Error("a page failed")), setFlags)).rejects.toThrow("a page failed");
    expect(set).toEqual([LEAN_HEAP_FLAG, RENDER_HEAP_FLAG, "render", LEAN_HEAP_FLAG, RENDER_HEAP_FLAG, LEAN_HEAP_FLAG]);
    expect(RENDER_HEAP_FLAG).toBe("--heap-growing-percent=30");
    const small = recorder();
    expect(heapFor(10, { flags: [], setFlags: small.setFlags })).toBe(false);
    await leanerWhile(async () => undefined, small.setFlags);
    expect(small.set).toEqual([]);
  });
});
