/**
 * Which entries of the engine's content-addressed caches (cards, fonts, images, assets) a
 * process's builds use: what a test run keeps for the next (tests/global-setup.ts,
 * tests/setup-unit-worker.ts) is exactly those, so that nothing stale piles up in what each
 * run and each of its workers copies at its start.
 */
import path from "node:path";
import { threadId } from "node:worker_threads";
import { MediaCache } from "../engine/incremental/media-cache.js";

/**
 * Calls `use` with the folder of each entry a MediaCache of this process reads back whole or
 * stores, until the function returned is called. (A build's worker threads load their own
 * modules: an entry only they use is not seen, and the next run makes it again.)
 */
export function noteMediaUse(use: (folder: string) => void): () => void {
  const proto = MediaCache.prototype;
  const { get, put } = proto;
  proto.get = async function (this: MediaCache<unknown>, key: string) {
    const entry = await get.call(this, key);
    if (entry) use(path.join(this.dir, key));
    return entry;
  } as typeof proto.get;
  proto.put = async function (this: MediaCache<unknown>, key: string, entry: Parameters<typeof put>[1]) {
    await put.call(this, key, entry);
    use(path.join(this.dir, key));
  } as typeof proto.put;
  return () => Object.assign(proto, { get, put });
}

/**
 * A test worker's name among the run's: its process id, and its thread's when it is a thread
 * (vitest's `threads` pool, whose workers share one process id), as `<pid>` or `<pid>-<thread>`.
 */
export const workerTag = (): string => (threadId === 0 ? `${process.pid}` : `${process.pid}-${threadId}`);
