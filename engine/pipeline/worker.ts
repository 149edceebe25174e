/**
 * A worker thread of the pool (threads.ts): piscina loads this module, from the launcher's
 * bundle of the engine, in each worker. It loads the site's config (and so its
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

// Stack traces name the sources (a theme's mistake is shown at its line), as on the build's
// thread: the frames in the engine's bundle (this module is its worker.js) and in the site's
// (beside site.js), mapped when a stack is shown.
const { site: siteModule } = workerData as { site: string };
sourceStacks(path.dirname(fileURLToPath(import.meta.url)), path.dirname(siteModule));

async function start() {
  const loaded = (await import(pathToFileURL(siteModule).href)) as { default?: { theme?: Theme }; theme?: Theme };
  const theme = loaded.default?.theme ?? loaded.theme;
  if (!theme) throw new Error(`${siteModule} exports no theme`);
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
