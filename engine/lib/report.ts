/** How a build's outcome reaches the author's terminal. */
import { formatError, type ContentError, type ContentWarning } from "./errors.js";

const useColor = process.stderr.isTTY && !process.env.NO_COLOR;
const red = (s: string) => (useColor ? `\x1b[31m${s}\x1b[0m` : s);
const yellow = (s: string) => (useColor ? `\x1b[33m${s}\x1b[0m` : s);

export function printWarnings(warnings: readonly ContentWarning[]): void {
  for (const w of warnings) {
    console.warn(`${yellow("warning")} ${w.file}${w.line ? `:${w.line}` : ""}: ${w.message}`);
  }
}

/** How many errors are printed in full; the rest are counted per file. */
const PRINTED = 50;

export function printErrors(errors: readonly ContentError[]): void {
  console.error(red(`\nThe build found ${errors.length} problem${errors.length === 1 ? "" : "s"} in the content:\n`));
  for (const e of errors.slice(0, PRINTED)) console.error(`${formatError(e)}\n`);
  if (errors.length > PRINTED) {
    const files = new Set(errors.slice(PRINTED).map((e) => e.file)).size;
    console.error(`…and ${errors.length - PRINTED} more in ${files} file${files === 1 ? "" : "s"}. Fix the ones above first; the rest are often the same mistake.\n`);
  }
}
