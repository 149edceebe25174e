/**
 * Keeps a long build's memory near what it still uses.
 *
 * Rendering a page leaves its Markdown tree, React elements and HTML behind. V8 collects the
 * old generation only when it has grown to several times what survived the last collection,
 * so a 4000-page build carried ~120 MB of dead pages at its peak for a live set of ~30 MB
 * (heap snapshot in bench/README.md). A build knows its rhythm better: every few dozen pages
 * it checks the heap, and when it has grown by twice the live set (32 MB at least) since
 * the last collection, it collects: the peak stays a small multiple of the live set,
 * however large the site.
 *
 * `gc` is not exposed without a command-line flag; V8 lets a running process turn it on, and
 * a fresh context then carries it. If that ever fails, V8 keeps its own rhythm.
 */
import { getHeapStatistics, setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

const CHECK_EVERY = 32;

export interface MemoryKeeper {
  /** Called once per page. */
  tick(): void;
  /** Collections run so far. */
  readonly collections: number;
}

/** Collects when the heap has grown by `liveFactor` times the live set, `minimum` bytes at least. */
export function memoryKeeper({ minimum = 32 * 1024 * 1024, liveFactor = 2 } = {}): MemoryKeeper {
  let collect: () => void;
  try {
    setFlagsFromString("--expose-gc");
    // A collection would also drop the compiled code of functions not run lately, which the
    // next pages then compile again: a build runs the same code to the end, so keep it.
    setFlagsFromString("--no-flush-bytecode");
    collect = runInNewContext("gc") as () => void;
  } catch {
    return { tick() {}, collections: 0 };
  }
  // Until the first collection the heap still holds what loading the content left behind,
  // so the first threshold is `minimum` above it; later ones scale with the live set. A small
  // site never reaches it and never pays for a collection.
  let floor = getHeapStatistics().used_heap_size;
  let count = 0;
  let collections = 0;
  return {
    get collections() {
      return collections;
    },
    tick() {
      if (++count % CHECK_EVERY !== 0) return;
      // Twice the live set, at least `minimum`: a collection's cost grows with what is live,
      // so a huge site collects less often (100,000 files: ~13 collections, not ~50).
      const budget = collections === 0 ? minimum : Math.max(minimum, floor * liveFactor);
      if (getHeapStatistics().used_heap_size < floor + budget) return;
      collect();
      collections++;
      floor = getHeapStatistics().used_heap_size;
    },
  };
}
