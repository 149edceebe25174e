/**
 * Stack traces that name the sources, with the source maps read only when a stack is shown.
 *
 * Node's own source maps (`process.setSourceMapsEnabled(true)`) read and index the map of every
 * module as it loads: 25–44 ms of every start of the command (bench/README.md, session 14),
 * though most runs never show a stack. Instead, the frames of a stack are mapped when the stack
 * is formatted (V8 formats `error.stack` on its first read), each through the map beside its
 * file (`<file>.map`, as esbuild's linked maps are named), read then and let go. Only files
 * under the given folders (the launcher's bundles) are looked up; any other frame, or one whose map is
 * missing or does not name a place, is shown as Node shows it. Node still formats the stack
 * (`Error [CODE]: message`, its own frames): it is handed the frames mapped.
 *
 * Plain JavaScript: the launcher (engine/launch.mjs) runs unbundled and installs it before the
 * bundle loads; a worker thread (pipeline/worker.ts) installs it for its own bundle's folder.
 */
import { readFileSync } from "node:fs";
import { SourceMap } from "node:module";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

/**
 * Installs the mapping for the files under each of `dirs` (the engine's bundle and the site's).
 * Where Node does not expose its own stack formatting (`Error.prepareStackTrace` is not a
 * function), falls back to Node's source maps for every module, read at load: stacks still
 * name the sources.
 * @param {...string} dirs
 */
export function sourceStacks(...dirs) {
  const node = Error.prepareStackTrace;
  if (typeof node !== "function" || typeof SourceMap !== "function") {
    process.setSourceMapsEnabled(true);
    return;
  }
  const under = dirs.map((dir) => path.resolve(dir) + path.sep);
  Error.prepareStackTrace = (error, trace) => {
    if (!Array.isArray(trace)) return node(error, trace);
    /** The maps of this stack's files, each read once for it (undefined: none). @type {Map<string, { map: SourceMap, url: string } | undefined>} */
    const maps = new Map();
    return node(
      error,
      trace.map((site, i) => mappedSite(site, trace[i + 1], under, maps) ?? site),
    );
  };
}

/**
 * The file a frame runs in, as a path, when it is under one of `under`.
 * @param {NodeJS.CallSite | undefined} site
 * @param {string[]} under
 */
function fileOf(site, under) {
  const name = site?.getFileName?.();
  if (typeof name !== "string") return undefined;
  let file;
  try {
    file = name.startsWith("file://") ? fileURLToPath(name) : name;
  } catch {
    return undefined;
  }
  return under.some((dir) => file.startsWith(dir)) ? file : undefined;
}

/**
 * The map beside `file`, with the URL its sources are relative to; undefined when it cannot be read.
 * @param {string} file
 * @param {Map<string, { map: SourceMap, url: string } | undefined>} maps
 */
function mapOf(file, maps) {
  if (maps.has(file)) return maps.get(file);
  let found;
  try {
    const payload = JSON.parse(readFileSync(`${file}.map`, "utf8"));
    const url = pathToFileURL(`${file}.map`).href;
    // As Node's own cache does: the sources made absolute against the map's address.
    payload.sources = (payload.sources ?? []).map((/** @type {string} */ source) => new URL((payload.sourceRoot || "") + source, url).href);
    payload.sourceRoot = "";
    found = { map: new SourceMap(payload), url };
  } catch {
    found = undefined;
  }
  maps.set(file, found);
  return found;
}

/**
 * A frame at its place in the source, written as Node writes a frame it mapped
 * (`name (file:line:column)`); undefined to keep the frame as it is.
 * @param {NodeJS.CallSite} site
 * @param {NodeJS.CallSite | undefined} next
 * @param {string[]} under
 * @param {Map<string, { map: SourceMap, url: string } | undefined>} maps
 */
function mappedSite(site, next, under, maps) {
  try {
    const file = fileOf(site, under);
    if (file === undefined) return undefined;
    const found = mapOf(file, maps);
    const line = site.getLineNumber();
    const column = site.getColumnNumber();
    if (!found || line === null || column === null) return undefined;
    const entry = found.map.findEntry(line - 1, column - 1);
    if (!entry || typeof entry.originalSource !== "string" || entry.originalLine === undefined || entry.originalColumn === undefined) return undefined;
    const source = entry.originalSource.startsWith("file://") ? fileURLToPath(entry.originalSource) : entry.originalSource;
    const fnName = site.getFunctionName() ?? site.getMethodName();
    const typeName = site.getTypeName();
    const generated = `${typeName !== null && typeName !== "global" ? `${typeName}.` : ""}${fnName || "<anonymous>"}`;
    const name = symbolName(found.map, site, next) || generated;
    const text = `${name} (${source}:${entry.originalLine + 1}:${entry.originalColumn + 1})`;
    return { toString: () => text };
  } catch {
    return undefined;
  }
}

/**
 * The source's name of the function a frame is in, when the map has one (as Node finds it: at
 * the function's start, else at the next frame's call when it is in the same file).
 * @param {SourceMap} map
 * @param {NodeJS.CallSite} site
 * @param {NodeJS.CallSite | undefined} next
 */
function symbolName(map, site, next) {
  const enclosing = map.findEntry((site.getEnclosingLineNumber?.() ?? 0) - 1, (site.getEnclosingColumnNumber?.() ?? 0) - 1);
  if (enclosing?.name) return enclosing.name;
  if (next && next.getFileName() === site.getFileName() && next.getLineNumber() !== null && next.getColumnNumber() !== null) {
    return map.findEntry(next.getLineNumber() - 1, next.getColumnNumber() - 1)?.name;
  }
  return undefined;
}
