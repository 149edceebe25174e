/**
 * YAML and JSON sources that remember where every value came from, so a schema failure can
 * name the line of the key at fault.
 *
 * The parsers (yaml, gray-matter, jsonc-parser) are loaded by the first text parsed or
 * located, from node_modules (`require`: a locator asked for a line while an error is
 * reported cannot wait for an import), never at start: a rebuild whose settings, collections
 * and front matter are the last build's (a body edit) loads none of them (lib/packages.ts).
 */
import { createRequire } from "node:module";
import type { Document, LineCounter, Node } from "yaml";
import type { z } from "zod";
import type { ParseError } from "jsonc-parser";
import type matterOf from "gray-matter";
import { ContentError } from "./errors.js";
import { requirePackage } from "./packages.js";
import { sourceText, type SourceOf } from "./source-text.js";

const requireHere = createRequire(import.meta.url);
/**
 * The parsers, loaded together by the first call (kept out of the launcher's bundle: esbuild
 * does not follow a `require` made by `createRequire`); after it, what `require` of a loaded
 * module costs.
 */
const parsers = () =>
  requirePackage("yaml", () => ({
    yaml: requireHere("yaml") as typeof import("yaml"),
    matter: requireHere("gray-matter") as typeof matterOf,
    jsonc: requireHere("jsonc-parser") as typeof import("jsonc-parser"),
  }));

/** gray-matter, which splits an article into its front matter and its body, with the YAML parser the engine gives it. */
export const matter = (source: string, options: { engines: { yaml: (text: string) => object } }): matterOf.GrayMatterFile<string> => parsers().matter(source, options);

export interface Position {
  line: number;
  column: number;
}
/** Finds the line of a value (or of a key, for `{ key: true }` lookups) inside a source. */
export type Locator = (path: readonly PropertyKey[], options?: { key?: boolean }) => Position | undefined;

export interface ParsedSource {
  value: unknown;
  locate: Locator;
}

/**
 * Parses YAML (JSON is YAML too) and returns its value with a locator. `lineOffset` is the
 * number of lines before the text inside the real file (front matter starts after `---`).
 * Throws a ContentError for a syntax error.
 */
export function parseYamlSource(text: string, file: string, fileSource: string, lineOffset = 0): ParsedSource {
  const yaml = parsers().yaml;
  const { LineCounter, parseDocument, visit } = yaml;
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  const first = doc.errors[0];
  if (first) {
    const pos = lineCounter.linePos(first.pos[0]);
    throw new ContentError({
      file,
      line: pos.line + lineOffset,
      column: pos.col,
      source: fileSource,
      message: `invalid YAML: ${first.message.split("\n")[0]}`,
      hint:
        first.code === "DUPLICATE_KEY"
          ? "each key may appear once; remove or rename the repeated one"
          : "check the indentation and quote values that contain a colon (:) or start with a special character",
    });
  }
  let value: unknown;
  try {
    value = doc.toJS();
  } catch (error) {
    // An alias (*name) to an anchor (&name) that is not set before it.
    let at = 0;
    visit(doc, { Alias: (_, node) => ((at = node.range?.[0] ?? 0), visit.BREAK) });
    const pos = lineCounter.linePos(at);
    throw new ContentError({
      file,
      line: pos.line + lineOffset,
      column: pos.col,
      source: fileSource,
      message: `invalid YAML: ${(error as Error).message}`,
      hint: "a value starting with * or & is a YAML alias or anchor: put it in quotes",
    });
  }
  return { value, locate: locatorFor(yaml, doc, lineCounter, lineOffset) };
}

function locatorFor({ isMap, isSeq, isPair, isScalar }: typeof import("yaml"), doc: Document, lineCounter: LineCounter, lineOffset: number): Locator {
  return (path, options) => {
    let node: unknown = doc.contents;
    let keyNode: unknown;
    for (const segment of path) {
      if (isMap(node)) {
        const pair = node.items.find((p) => isPair(p) && isScalar(p.key) && String(p.key.value) === String(segment));
        if (!pair) break;
        keyNode = pair.key;
        node = pair.value ?? pair.key;
      } else if (isSeq(node) && typeof segment === "number") {
        const item = node.items[segment];
        if (item === undefined) break;
        keyNode = item;
        node = item;
      } else {
        break;
      }
    }
    const target = (options?.key && keyNode ? keyNode : node) as Node | null | undefined;
    const offset = target?.range?.[0];
    // An empty document: its first line is where the missing value belongs.
    if (offset === undefined) return { line: lineOffset + 1, column: 1 };
    const pos = lineCounter.linePos(offset);
    return { line: pos.line + lineOffset, column: pos.col };
  };
}

/**
 * The value of front matter made only of `key: value` lines whose values YAML can read one
 * way alone, without the YAML parser; undefined for any other text (the parser reads it).
 *
 * A cold build read 4,000 one-line front matters through `yaml`'s `parseDocument` in about a
 * tenth of its CPU (a document, a line counter and a composer for each). Taken here: blank
 * lines; a key of letters, digits, `_` and `-` that starts with a letter and is not a word YAML
 * reads as a boolean or null; once each; then a value that is a double-quoted string with no
 * `\`, `"` or control character in it, a single-quoted one with no `'` or control character, a
 * whole number, or a plain string that starts with a letter, holds only letters, digits,
 * spaces and `, . ( ) / ' ’ -`, does not end with a space and is not a boolean or null word
 * (`true`, `null`, …). tests/front-matter.test.ts compares it with the parser on generated texts.
 */
export function simpleYamlMap(text: string): Record<string, string | number> | undefined {
  const value: Record<string, string | number> = {};
  for (const line of text.split("\n")) {
    if (line === "") continue;
    const pair = SIMPLE_PAIR.exec(line);
    if (!pair) return undefined;
    const [, key, raw] = pair as unknown as [string, string, string];
    if (KEYWORD.test(key) || Object.hasOwn(value, key)) return undefined;
    if (DOUBLE_QUOTED.test(raw) || SINGLE_QUOTED.test(raw)) value[key] = raw.slice(1, -1);
    else if (WHOLE_NUMBER.test(raw)) value[key] = Number(raw);
    else if (PLAIN.test(raw) && !KEYWORD.test(raw)) value[key] = raw;
    else return undefined;
  }
  return value;
}
const SIMPLE_PAIR = /^([A-Za-z][\w-]*): +(\S(?:.*\S)?)$/;
/** Words the core schema reads as booleans or null, as keys or values (and YAML 1.1's, to be safe). */
const KEYWORD = /^(?:true|false|null|yes|no|on|off|y|n)$/i;
const DOUBLE_QUOTED = /^"[^"\\\p{Cc}]*"$/u;
const SINGLE_QUOTED = /^'[^'\p{Cc}]*'$/u;
const WHOLE_NUMBER = /^(?:0|[1-9][0-9]{0,14})$/;
const PLAIN = /^\p{L}[\p{L}\p{N} ,.()/'’-]*$/u;

/**
 * A source whose values can be located: a YAML or JSON file (its whole text), or an article
 * (`format: "front-matter"`: the YAML between its `---` lines). Plain data: the position of a
 * value is worked out from the text when an error needs it (`locate`).
 */
/** A file whose values are located: its text (an article taken on its file's evidence reads it again, `sourceText`). */
export interface LocatableSource extends SourceOf {
  format?: "front-matter";
}

/** Where the value (or with `{ key: true }`, the key) at `path` is in a source; parsed again from its text. */
export function locate(target: LocatableSource, path: readonly PropertyKey[], options?: { key?: boolean }): Position | undefined {
  return locatorOf(target)(path, options);
}

/** A locator over a source, its text parsed once on the first call (for several positions in one error report). */
export function locatorOf(target: LocatableSource): Locator {
  let located: Locator | undefined;
  return (path, options) => {
    if (!located) {
      // A file that changed since the build took it stops the build (`sourceText`), rather than point at another text's line.
      const source = sourceText(target);
      try {
        if (target.format === "front-matter") {
          // Only the split: the front matter's text, located by the same YAML parser as the build's.
          const text = matter(source, { engines: { yaml: () => ({}) } }).matter;
          located = parseYamlSource(text, target.file, source, frontMatterLineOffset(text)).locate;
        } else if (target.file.endsWith(".json")) located = jsonLocator(source);
        else located = parseYamlSource(source, target.file, source).locate;
      } catch {
        located = () => undefined;
      }
    }
    return located(path, options);
  };
}

/**
 * Positions in a JSON text, found as the YAML locator finds them (the value at a path, or the
 * nearest of its ancestors that is there; with `key`, its key) but by the JSON parser: JSON lets
 * a tab stand wherever a space may, where YAML refuses a tab that indents (fast-check found a
 * data file `\tfalse` refused with no line).
 */
function jsonLocator(text: string): Locator {
  const { parseTree } = parsers().jsonc;
  const root = parseTree(text, [], { disallowComments: true, allowTrailingComma: false });
  return (path, options) => {
    let node = root;
    let keyNode: typeof root;
    for (const segment of path) {
      if (node?.type === "object") {
        const pair = node.children?.find((p) => p.children?.[0]?.value === String(segment));
        if (!pair) break;
        keyNode = pair.children![0];
        node = pair.children![1] ?? keyNode;
      } else if (node?.type === "array" && typeof segment === "number") {
        const item = node.children?.[segment];
        if (item === undefined) break;
        keyNode = item;
        node = item;
      } else break;
    }
    const offset = (options?.key && keyNode ? keyNode : node)?.offset;
    return offset === undefined ? { line: 1, column: 1 } : positionAt(text, offset);
  };
}

/** The line and column (from 1) of an offset in a text. */
function positionAt(text: string, offset: number): Position {
  const before = text.slice(0, offset);
  return { line: before.split("\n").length, column: offset - before.lastIndexOf("\n") };
}

/** gray-matter's front matter starts with the newline that ends the opening `---` line. */
export const frontMatterLineOffset = (text: string) => (text.startsWith("\n") || text.startsWith("\r\n") ? 0 : 1);

/** A ContentError pointing at the value found at `path` inside a located source. */
export function errorAt(
  target: LocatableSource,
  path: readonly PropertyKey[],
  init: { message: string; hint?: string; key?: string },
): ContentError {
  const source = sourceText(target);
  const pos = locate({ ...target, source }, path);
  return new ContentError({
    file: target.file,
    source,
    line: pos?.line,
    column: pos?.column,
    key: init.key ?? formatKey(path),
    message: init.message,
    hint: init.hint,
  });
}

/** Reads a JSON file strictly; a syntax error names its line and column. */
export function parseJsonSource(text: string, file: string): ParsedSource {
  // The value from JSON.parse, many times faster than a parser that keeps positions; the
  // positions are found when an error needs one (the YAML parser reads JSON too).
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    value = undefined; // Said below with its line and column.
  }
  if (value !== undefined) {
    // JSON.parse keeps the last of two equal keys without a word: each key may appear once.
    const repeated = repeatedKey(text);
    if (repeated) throw jsonError(file, text, repeated.offset, `the key "${repeated.key}" appears twice in one object`, "each key may appear once; remove or rename the repeated one");
    return { value, locate: locatorOf({ file, source: text }) };
  }
  const { parseTree, printParseErrorCode } = parsers().jsonc;
  const errors: ParseError[] = [];
  parseTree(text, errors, { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false });
  const first = errors[0];
  if (first) {
    const code = printParseErrorCode(first.error);
    throw jsonError(file, text, first.offset, JSON_ERRORS[code] ?? code, "JSON needs double-quoted keys and strings, and no comma after the last item");
  }
  // JSON is YAML: the YAML parser gives the value and the lines of its keys.
  return parseYamlSource(text, file, text);
}

/** A ContentError at an offset of a JSON file's text. */
function jsonError(file: string, text: string, offset: number, what: string, hint: string): ContentError {
  return new ContentError({ file, ...positionAt(text, offset), source: text, message: `invalid JSON: ${what}`, hint });
}

/** The first key written twice in one object, with where the second one is. */
function repeatedKey(text: string): { key: string; offset: number } | undefined {
  const objects: Set<string>[] = [];
  let found: { key: string; offset: number } | undefined;
  parsers().jsonc.visit(text, {
    onObjectBegin: () => void objects.push(new Set()),
    onObjectEnd: () => void objects.pop(),
    onObjectProperty: (key, offset) => {
      const keys = objects.at(-1)!;
      if (keys.has(key)) found ??= { key, offset };
      keys.add(key);
    },
  });
  return found;
}

/** jsonc-parser's error codes, in words. */
const JSON_ERRORS: Record<string, string> = {
  InvalidSymbol: "unexpected character",
  InvalidNumberFormat: "invalid number",
  PropertyNameExpected: "a key in double quotes was expected",
  ValueExpected: "a value was expected",
  ColonExpected: "a colon was expected",
  CommaExpected: "a comma was expected",
  CloseBraceExpected: "a closing } was expected",
  CloseBracketExpected: "a closing ] was expected",
  EndOfFileExpected: "the file should end here",
  InvalidCommentToken: "comments are not allowed in JSON",
  UnexpectedEndOfComment: "comments are not allowed in JSON",
  UnexpectedEndOfString: "a string is not closed",
  UnexpectedEndOfNumber: "a number is cut short",
  InvalidUnicode: "invalid unicode escape",
  InvalidEscapeCharacter: "invalid escape character",
  InvalidCharacter: "invalid character in a string",
};

const KNOWN_MESSAGES: Record<string, (issue: z.core.$ZodIssue) => string | undefined> = {
  invalid_type: (issue) => (issue.message.includes("received undefined") ? "is required" : undefined),
};

/** Turns zod issues into ContentErrors located at the key they concern. */
export function schemaErrors(
  issues: readonly z.core.$ZodIssue[],
  file: string,
  source: string,
  locate: Locator,
  prefix: readonly PropertyKey[] = [],
  hint?: (key: string) => string | undefined,
): ContentError[] {
  return issues.flatMap((issue) => {
    const path = [...prefix, ...issue.path];
    if (issue.code === "unrecognized_keys") {
      return issue.keys.map((extra) => {
        const pos = locate([...path, extra], { key: true }) ?? locate(path);
        const key = formatKey([...path, extra]);
        return new ContentError({
          file,
          line: pos?.line,
          column: pos?.column,
          source,
          key,
          message: `unknown key \`${key}\``,
          hint: hint?.(key) ?? "remove it or check its spelling",
        });
      });
    }
    // Point at the bad value itself; for a missing key, at the object that lacks it.
    const pos = locate(path) ?? locate(path.slice(0, -1));
    // An issue about a record's key (`recordKey`) is placed at that key but names the record.
    const key = formatKey(issue.code === "custom" && issue.params?.recordKey ? path.slice(0, -1) : path);
    const text = KNOWN_MESSAGES[issue.code]?.(issue) ?? issue.message;
    return [
      new ContentError({
        file,
        line: pos?.line,
        column: pos?.column,
        source,
        key,
        message: key ? `\`${key}\` ${text}` : text,
        hint: hint?.(key),
      }),
    ];
  });
}

/** `share.copyError.title`, `[3].link`, `cards[0].route`. */
export function formatKey(path: readonly PropertyKey[]): string {
  return path
    .map((segment, i) => (typeof segment === "number" ? `[${segment}]` : `${i === 0 ? "" : "."}${String(segment)}`))
    .join("");
}

