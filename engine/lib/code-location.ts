/**
 * Where in a site's own code something happened, from a stack trace: the theme's
 * `defineTheme` call, the template line that asked for a listing the theme does not have.
 * Stack traces name the sources (the launcher runs with source maps), so the place is the
 * author's file and line, not the bundle's.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { ContentError } from "./errors.js";

export interface CodePlace {
  /** Absolute. */
  file: string;
  line: number;
  column: number;
}

/** Every place a stack trace names, innermost first. */
export function stackPlaces(stack: string | undefined): CodePlace[] {
  const places: CodePlace[] = [];
  for (const line of (stack ?? "").split("\n")) {
    const found = /^\s*at (?:.*?\()?((?:file:\/\/)?\/[^()]+?):(\d+):(\d+)\)?$/.exec(line);
    if (!found) continue;
    const file = found[1]!.startsWith("file://") ? fileURLToPath(found[1]!) : found[1]!;
    places.push({ file, line: Number(found[2]), column: Number(found[3]) });
  }
  return places;
}

/**
 * The engine's own folder, as stack traces name it (this module is engine/lib/code-location.ts).
 * Asked only with a stack to read: reading one maps its frames through the source maps
 * (lib/source-stacks.mjs), which no start should pay for.
 */
function engineDir(): string | undefined {
  const here = stackPlaces(new Error().stack)[0]?.file;
  return here ? path.resolve(here, "../..") : undefined;
}

const inside = (dir: string, file: string) => !path.relative(dir, file).startsWith("..");

/** The innermost place of a stack that is the site's code: not the engine's, not a package's, not Node's. */
export function siteCodePlace(stack: string | undefined): CodePlace | undefined {
  const places = stackPlaces(stack);
  if (places.length === 0) return undefined;
  const engine = engineDir();
  return places.find((p) => !(engine && inside(engine, p.file)) && !p.file.split(path.sep).includes("node_modules"));
}

/** Where `name` is written in a file as a quoted string (`"style"`, `'lsit'`): on the line of `near` if it is there, else its first place. */
function quotedIn(source: string, name: string, near: number): { line: number; column: number } | undefined {
  const lines = source.split("\n");
  const quoted = ['"', "'", "`"].map((quote) => `${quote}${name}${quote}`);
  for (const line of [near, ...lines.map((_, i) => i + 1)]) {
    const text = lines[line - 1] ?? "";
    const column = Math.min(...quoted.map((q) => text.indexOf(q)).filter((i) => i >= 0));
    if (Number.isFinite(column)) return { line, column: column + 1 };
  }
  return undefined;
}

/**
 * An error at a place of the site's code, shown relative to `root`: at the quoted `find`
 * if the file has it, else at the place itself; with a code frame when the file is readable.
 */
export function codeError(place: CodePlace | undefined, root: string | undefined, init: { message: string; hint?: string; find?: string; fallback: string }): ContentError {
  if (!place) return new ContentError({ file: init.fallback, message: init.message, hint: init.hint });
  let source: string | undefined;
  try {
    source = readFileSync(place.file, "utf8");
  } catch {
    source = undefined;
  }
  const at = (init.find !== undefined && source !== undefined && quotedIn(source, init.find, place.line)) || place;
  return new ContentError({
    file: root === undefined ? place.file : path.relative(root, place.file) || place.file,
    line: at.line,
    column: at.column,
    source,
    message: init.message,
    hint: init.hint,
  });
}

/** The error with its file shown relative to the site's folder, when it names it by its absolute path (a place found from a stack). */
export function shownFrom(root: string, error: ContentError): ContentError {
  if (!path.isAbsolute(error.file)) return error;
  const relative = path.relative(root, error.file);
  if (relative.startsWith("..")) return error;
  const { line, column, key, source, message, hint, cause } = error;
  return new ContentError({ file: relative, line, column, key, source, message, hint, cause });
}
