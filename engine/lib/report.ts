/** How a build's outcome reaches the author's terminal. */
import path from "node:path";
import { formatError, formatWarning, type ContentIssue, type ContentWarning } from "./errors.js";

const useColor = process.stderr.isTTY && !process.env.NO_COLOR;
const red = (s: string) => (useColor ? `\x1b[31m${s}\x1b[0m` : s);
const yellow = (s: string) => (useColor ? `\x1b[33m${s}\x1b[0m` : s);

export function printWarnings(warnings: readonly ContentWarning[]): void {
  for (const w of warnings) {
    const line = formatWarning(w);
    console.warn(w.notice ? line : line.replace(/^warning/, yellow("warning")));
  }
}

/** How many errors are printed in full; the rest are counted per file. */
const PRINTED = 50;

export function printErrors(errors: readonly ContentIssue[]): void {
  console.error(red(`\nThe build found ${errors.length} problem${errors.length === 1 ? "" : "s"} in the content:\n`));
  for (const e of errors.slice(0, PRINTED)) console.error(`${formatError(e)}\n`);
  if (errors.length > PRINTED) {
    const files = new Set(errors.slice(PRINTED).map((e) => e.file)).size;
    console.error(`…and ${errors.length - PRINTED} more in ${files} file${files === 1 ? "" : "s"}. Fix the ones above first; the rest are often the same mistake.\n`);
  }
}

/** What a failed file operation means to an author, by its error code. */
const FILE_FAILURES: Record<string, string> = {
  EACCES: "permission denied",
  EPERM: "operation not permitted",
  EROFS: "the file system is read-only",
  ENOSPC: "no space is left on the device",
  EDQUOT: "the disk quota is used up",
  EBUSY: "the file is in use",
};

/**
 * A file the build could not write, removed or replace (a read-only folder, a full disk), in
 * one line: `cannot write dist.builds/a/index.html (permission denied)`, with the folder to
 * put right. Undefined for any other error (a bug keeps its stack trace).
 */
export function fileFailure(error: unknown): { message: string; folder?: string } | undefined {
  for (let e = error as (NodeJS.ErrnoException & { cause?: unknown }) | undefined; e; e = e.cause as typeof e) {
    const reason = e.code ? FILE_FAILURES[e.code] : undefined;
    if (!reason) continue;
    const shown = e.path ? path.relative(process.cwd(), e.path) || e.path : undefined;
    return { message: `cannot write ${shown ?? "a file"} (${reason})`, folder: shown && path.dirname(shown) };
  }
  return undefined;
}
