/**
 * How far V8 lets a large build's heap grow past what it holds alive. After each full
 * collection V8 sets the next one's limit at a factor of what it found alive, and for a heap
 * it collects as quickly as a build's it takes the largest factor, four: at 100,000 articles the
 * build's thread held ~0.8–1.6 GB alive in a heap grown to 2.6 GB, and the process peaked at
 * ~3.9 GB, more than a CI runner of 2–4 GB has. At 1.6 (`--heap-growing-percent=60`) the peak
 * was 2.4 GB; at 50,000 articles 1,296 MiB against 2,078 for ~4% more time (bench/README.md,
 * "Session 21"). Session 22's quiet series, pair by pair: at 1000 articles 160 against 173 MiB
 * for 1.00× the time, at 4000 202 against 241 MiB (below Eleventy's 211) for 1.03×, at 10,000
 * 298 against 425 for 1.06× (less CPU), at 20,000 650 against 1,006 for 1.06×. So a build sets
 * it from `LEAN_HEAP_FROM` articles; below, the heap is small whatever its growth. A factor
 * given to node is kept.
 */
import { setFlagsFromString } from "node:v8";

/** From this many articles a build's heap grows by 1.6× its live data, not up to 4× (bench/README.md, "Session 22"). */
export const LEAN_HEAP_FROM = 1000;

/** The flag set, and the growth it gives: 1 + 60/100. */
export const LEAN_HEAP_FLAG = "--heap-growing-percent=60";

/**
 * The growth while the pages are rendered and written (`leanerWhile`): 1.3× the live data. The
 * build's thread holds the most then (every page's record) while it makes the most garbage (a
 * page's HTML, a thread's message), and its heap's peak is the build's. At 100,000 articles,
 * session 30 (bench/README.md): 1,280 against 1,582 MB for 1.09× the CPU (the whole build at
 * 30% was 1.20×, session 29; 20% in render alone, 1,180 MB for 1.24×).
 */
export const RENDER_HEAP_FLAG = "--heap-growing-percent=30";

/** The ways of setting flags that have set it: V8's own once a process. */
const done = new WeakSet<(flag: string) => void>();

/**
 * Sets V8's heap growth for a build of `articles` articles, once a process (V8's flags are
 * the process's, every worker thread's too): from `LEAN_HEAP_FROM`, unless node was given a
 * growth of its own. Says whether the flag is set now. `flags` and `setFlags` are node's and
 * V8's unless a test gives its own.
 */
export function heapFor(
  articles: number,
  { flags = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? "").split(/\s+/)], setFlags = setFlagsFromString }: { flags?: readonly string[]; setFlags?: (flag: string) => void } = {},
): boolean {
  if (done.has(setFlags)) return true;
  if (articles < LEAN_HEAP_FROM || flags.some((flag) => flag.startsWith("--heap-growing-percent"))) return false;
  setFlags(LEAN_HEAP_FLAG);
  done.add(setFlags);
  return true;
}

/**
 * Runs `work` (the render and write stages) with the heap's growth at `RENDER_HEAP_FLAG`, then
 * back at `LEAN_HEAP_FLAG`, when `heapFor` set it for this build (a large site, no growth given
 * to node); else as it is.
 */
export async function leanerWhile<T>(work: () => Promise<T>, setFlags: (flag: string) => void = setFlagsFromString): Promise<T> {
  if (!done.has(setFlags)) return work();
  setFlags(RENDER_HEAP_FLAG);
  try {
    return await work();
  } finally {
    setFlags(LEAN_HEAP_FLAG);
  }
}
