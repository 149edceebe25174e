/**
 * A font cut to the letters a site shows, as WOFF2, by subset-font (harfbuzz's hb-subset and
 * a WOFF2 encoder, both WebAssembly), on a thread of its own that ends with the cut.
 *
 * subset-font keeps its WebAssembly instances, and their ~100 MB of memory, for as long as its
 * module lives; in the build's thread that was the whole process's life, and for ever in watch
 * mode: a 4000-article cold build's peak was 273 MiB with it, 235 without (bench/README.md,
 * session 22). A thread's memory goes with the thread. Fonts asked for while one is being cut
 * are cut on the same thread, which ends once it has none left; starting it and loading the
 * subsetter happen beside the build's own work, on another core.
 */
import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";
import { notePackage } from "../../lib/packages.js";

/** The thread's code: loads subset-font (by the path the engine resolves), then cuts each font it is sent. */
const THREAD = `
const { parentPort, workerData } = require("node:worker_threads");
const started = performance.now();
const subsetFont = require(workerData.module);
const loadMs = performance.now() - started;
parentPort.on("message", ({ id, source, text }) => {
  // A Uint8Array after the hand-over: subset-font reads a Buffer (its signature by toString).
  subsetFont(Buffer.from(source.buffer, source.byteOffset, source.byteLength), text, { targetFormat: "woff2" }).then(
    (font) => parentPort.postMessage({ id, font, loadMs }),
    (error) => parentPort.postMessage({ id, error: String((error && error.message) || error), loadMs }),
  );
});
`;

type Reply = { id: number; loadMs: number } & ({ font: Uint8Array } | { error: string });
type Waiting = { resolve: (font: Uint8Array) => void; reject: (error: Error) => void };

/** Cuts fonts (`cut`: `source`, a TTF, WOFF or WOFF2 font, cut to the letters of `text`, as WOFF2), each on the cutter's thread: one started for the first, ended once none is left. */
export function fontCutter(): { cut(source: Uint8Array, text: string): Promise<Uint8Array> } {
  /** The thread cutting fonts now, with the cuts it owes. */
  let current: { worker: Worker; waiting: Map<number, Waiting> } | undefined;
  let nextId = 0;
  const thread = (): NonNullable<typeof current> => {
    if (current) return current;
    const worker = new Worker(THREAD, { eval: true, workerData: { module: createRequire(import.meta.url).resolve("subset-font") } });
    const started = { worker, waiting: new Map<number, Waiting>() };
    const end = (error: Error) => {
      if (current === started) current = undefined;
      for (const { reject } of started.waiting.values()) reject(error);
      started.waiting.clear();
    };
    worker.on("message", (reply: Reply) => {
      const waiting = started.waiting.get(reply.id);
      if (!waiting) return;
      started.waiting.delete(reply.id);
      notePackage("subset-font", reply.loadMs);
      if ("error" in reply) waiting.reject(new Error(reply.error));
      else waiting.resolve(reply.font);
      if (started.waiting.size === 0 && current === started) {
        current = undefined;
        void worker.terminate();
      }
    });
    worker.on("error", (error: Error) => end(new Error(`the font subsetter stopped: ${error.message}`)));
    worker.on("exit", (code) => end(new Error(`the font subsetter stopped (exit code ${code})`)));
    current = started;
    return started;
  };
  return {
    cut(source, text) {
      const { worker, waiting } = thread();
      const id = nextId++;
      return new Promise((resolve, reject) => {
        waiting.set(id, { resolve, reject });
        worker.postMessage({ id, source, text });
      });
    },
  };
}
