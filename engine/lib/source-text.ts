/**
 * The text of a file a build took on its evidence (its size, times and inode as the last
 * build saw them; stages/load/content.ts) without reading it: read when a stage asks for it,
 * and only if it is still the text the build took (its hash). A file changed since stops the
 * build, which says to build again: a page is never made from two versions of one file.
 */
import { readFileSync } from "node:fs";
import { ContentError } from "./errors.js";
import { hashOf } from "./hash.js";

/** A file's text as loaded (`source`), or where to read it again and the hash it must have. */
export interface SourceOf {
  /** As the build names it (relative to the site's folder). */
  file: string;
  /** The text, when the build read it; absent when it took the file on its evidence. */
  source?: string;
  /** The file's absolute path: where its text is read again. */
  path?: string;
  /** The hash of the text the build took. */
  sourceHash?: string;
}

/** `target`'s text: its `source`, or its file read again and checked against `sourceHash`. */
export function sourceText(target: SourceOf): string {
  if (target.source !== undefined) return target.source;
  let text: string | undefined;
  let cause: unknown;
  try {
    if (target.path !== undefined) text = readFileSync(target.path, "utf8");
  } catch (error) {
    cause = error;
  }
  if (text !== undefined && target.sourceHash !== undefined && hashOf(text) === target.sourceHash) return text;
  throw new ContentError({
    file: target.file,
    message: cause === undefined ? "the file changed while the site was being built" : `the file could not be read again while the site was being built: ${(cause as Error).message}`,
    hint: "build again: the next build reads it as it is now",
    cause,
  });
}
