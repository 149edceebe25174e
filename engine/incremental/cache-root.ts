/**
 * Where the engine keeps what it can compute again (cut fonts, images, social cards, the
 * build caches, the dev server's site): `node_modules/.cache/engine/` of the project, or the
 * folder CAFE_CACHE_DIR names (the tests point it at a folder of their own, so that a test
 * run never changes the project's cache).
 */
import path from "node:path";

export function cacheRoot(projectRoot: string): string {
  const override = process.env.CAFE_CACHE_DIR;
  return override ? path.resolve(override) : path.join(projectRoot, "node_modules/.cache/engine");
}
