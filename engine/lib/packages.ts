/**
 * The heavy libraries a build needs only for some of its work, loaded when that work is done
 * and not before: sharp when an image is encoded, satori and resvg when a card is drawn,
 * esbuild when the assets are bundled, subset-font when a font is cut, unified (the Markdown
 * parser: remark, rehype) when a body is parsed, feed (and its XML writer) when the feed says
 * something else than the last build's, yaml (with gray-matter and jsonc-parser, kept out of
 * the launcher's bundle: lib/yaml-source.ts) when a YAML or JSON text is parsed or located. A
 * one-article body edit parses one body and loads none of the others.
 *
 * Each is loaded through `loadPackage`, which notes the load on Node's performance timeline
 * (a `cafe:load <name>` measure, made once per process however often the module is asked for):
 * `--verbose` lists what the build loaded from it (`loadedPackages`). The timeline is the
 * process's (or the thread's) own record, so nothing here is kept in a module. No module of
 * the engine imports these packages otherwise (tests/lazy-loading.test.ts keeps it so).
 */
import { readFileSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";

/** The names `--verbose` reports, one per library a build may load on demand. */
export type LazyPackage = "sharp" | "satori" | "resvg" | "esbuild" | "subset-font" | "unified" | "feed" | "yaml";

const PREFIX = "cafe:load ";

/**
 * Loads a library with `load` (an `import()` of it, written where it is used, so that the
 * bundler keeps it apart) and notes that it was loaded, with how long the first load took.
 */
export async function loadPackage<T>(name: LazyPackage, load: () => Promise<T>): Promise<T> {
  const start = performance.now();
  const loaded = await load();
  notePackage(name, performance.now() - start);
  return loaded;
}

/** Notes a library loaded for this process's work, with how long its first load took (here, or on a thread of its own: stages/assets/font-cut.ts); later loads are not noted. */
export function notePackage(name: LazyPackage, ms: number): void {
  if (performance.getEntriesByName(PREFIX + name, "measure").length > 0) return;
  const end = performance.now();
  performance.measure(PREFIX + name, { start: Math.max(0, end - ms), end });
}

/**
 * Loads a library synchronously with `load` (a `require` of it from node_modules, for code
 * that cannot wait: a locator asked for a line while an error is reported) and notes it as
 * `loadPackage` does. Only the first call of a process is timed; the others cost what
 * `require` of a loaded module costs.
 */
export function requirePackage<T>(name: LazyPackage, load: () => T): T {
  if (performance.getEntriesByName(PREFIX + name, "measure").length > 0) return load();
  const start = performance.now();
  const loaded = load();
  notePackage(name, performance.now() - start);
  return loaded;
}

/** The libraries loaded on demand in this process so far, in the order they were first loaded, with the time each first load took. */
export function loadedPackages(): { name: LazyPackage; ms: number }[] {
  return performance
    .getEntriesByType("measure")
    .filter((entry) => entry.name.startsWith(PREFIX))
    .map((entry) => ({ name: entry.name.slice(PREFIX.length) as LazyPackage, ms: entry.duration }));
}

/**
 * The installed sharp, read without loading it: the version, size and install time of its
 * package and of its native parts (@img/sharp-<platform>, @img/sharp-libvips-<platform>), as
 * `[name, version, size, mtimeMs]`. Empty where sharp cannot be found. The images' inspection
 * records are kept under all of it (a sharp installed anew inspects again); a card's name takes
 * the versions (sharp encodes the card's PNG).
 */
export function installedSharp(): [name: string, version: string | undefined, size: number, mtimeMs: number][] {
  try {
    const main = createRequire(import.meta.url).resolve("sharp");
    const modules = main.slice(0, main.lastIndexOf(`${path.sep}sharp${path.sep}`));
    const platform = `${process.platform}-${process.arch}`;
    const parts = ["sharp", `@img/sharp-${platform}`, `@img/sharp-libvips-${platform}`, `@img/sharp-linuxmusl-${process.arch}`, `@img/sharp-libvips-linuxmusl-${process.arch}`];
    return parts.flatMap((name) => {
      const file = path.join(modules, name, "package.json");
      const info = statSync(file, { throwIfNoEntry: false });
      return info ? [[name, (JSON.parse(readFileSync(file, "utf8")) as { version?: string }).version, info.size, info.mtimeMs]] : [];
    });
  } catch {
    return [];
  }
}
