/**
 * A worker thread of the pool (threads.ts): piscina loads this module, bundled by the
 * launcher beside the site's config, in each worker. It loads the site's config (and so its
 * theme) by module path once, then runs the compute cores for the tasks it is given
 * (tasks.ts). A shared value is deserialised the first time a task names it; only the latest
 * of each is kept.
 */
import { deserialize } from "node:v8";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { workerData } from "piscina";
import { sourceStacks } from "../lib/source-stacks.mjs";
import type { Theme } from "../theme.js";
import { remember, taskRunner, type Shared } from "./tasks.js";

// Stack traces name the site's sources (a theme's mistake is shown at its line), as on the
// build's thread: the frames in this bundle's folder (this module is its worker.js), mapped
// when a stack is shown.
sourceStacks(path.dirname(fileURLToPath(import.meta.url)));

async function start() {
  const { site } = workerData as { site: string };
  const loaded = (await import(pathToFileURL(site).href)) as { default?: { theme?: Theme }; theme?: Theme };
  const theme = loaded.default?.theme ?? loaded.theme;
  if (!theme) throw new Error(`${site} exports no theme`);
  /** The shared values resolved so far, the latest few (`remember`). */
  const resolved = new Map<string, unknown>();
  const resolve = <T,>(shared: Shared<T>): T => {
    if (resolved.has(shared.id)) return resolved.get(shared.id) as T;
    const value = deserialize(Buffer.from(shared.buffer!)) as T;
    remember(resolved, shared.id, value);
    return value;
  };
  return taskRunner(theme, resolve);
}

export default start();
