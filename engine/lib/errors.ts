/**
 * The one error type of the generator. Every problem an author can cause becomes a
 * `ContentError` naming the file, the line and column where known, what went wrong and
 * what to do about it; the build collects them and prints them together.
 */
export interface ContentErrorInit {
  file: string;
  message: string;
  hint?: string;
  line?: number;
  column?: number;
  /** The front-matter key or data field at fault, e.g. `share.fallback` or `[3].link`. */
  key?: string;
  /** Source text of the file, used to print a code frame. */
  source?: string;
  cause?: unknown;
}

/**
 * A problem found, as plain data: what a stage returns (it survives `structuredClone`, which
 * keeps only an Error's message) and what the report prints. A ContentError is one too.
 */
export interface ContentIssue {
  readonly file: string;
  readonly message: string;
  readonly hint?: string;
  readonly line?: number;
  readonly column?: number;
  readonly key?: string;
  readonly source?: string;
  /** `content/articles/x.md:4:3` — the place an editor can jump to. */
  readonly location: string;
}

/** The problem as plain data (its fields, its location worked out). */
export function plainIssue(issue: ContentIssue): ContentIssue {
  const { file, message, hint, line, column, key, source, location } = issue;
  return { file, message, hint, line, column, key, source, location };
}

export class ContentError extends Error implements ContentIssue {
  readonly file: string;
  readonly hint?: string;
  readonly line?: number;
  readonly column?: number;
  readonly key?: string;
  readonly source?: string;

  constructor(init: ContentErrorInit) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = "ContentError";
    this.file = init.file;
    this.hint = init.hint;
    this.line = init.line;
    this.column = init.column;
    this.key = init.key;
    this.source = init.source;
  }

  /** `content/articles/x.md:4:3` — the place an editor can jump to. */
  get location(): string {
    if (this.line === undefined) return this.file;
    return `${this.file}:${this.line}${this.column === undefined ? "" : `:${this.column}`}`;
  }
}

/** A problem that does not stop the build (a placeholder URL still in use, raw HTML dropped). */
export interface ContentWarning {
  file: string;
  line?: number;
  message: string;
  /** Not a problem: something the build did that the author should know of (a tag's page retired). */
  notice?: boolean;
}

/** `warning content/site.yaml:4: …` (or `notice …`): one line. */
export function formatWarning(warning: ContentWarning): string {
  return `${warning.notice ? "notice" : "warning"} ${warning.file}${warning.line ? `:${warning.line}` : ""}: ${warning.message}`;
}

/** How many characters of a line a code frame shows: a longer line is cut around the column. */
const FRAME_WIDTH = 100;

/**
 * Two lines of context either side of `line`, with a caret under `column`. A line longer
 * than the frame's width (a paragraph of Markdown is one line) shows the part around the
 * column, its cut ends marked `…`, the lines around it cut at the same place so that the
 * caret still points at the character above it.
 */
export function codeFrame(source: string, line: number, column?: number): string {
  const lines = source.split(/\r?\n/);
  const first = Math.max(1, line - 2);
  const last = Math.min(lines.length, line + 2);
  const width = String(last).length;
  const at = column !== undefined && column > 0 ? column - 1 : 0;
  // The window of FRAME_WIDTH characters: the column a third of the way in, so what follows it shows.
  const start = (lines[line - 1] ?? "").length > FRAME_WIDTH ? Math.max(0, at - Math.floor(FRAME_WIDTH / 3)) : 0;
  const cut = (text: string) => {
    if (text.length <= FRAME_WIDTH && start === 0) return text;
    const shown = text.slice(start, start + FRAME_WIDTH);
    return `${start > 0 ? "…" : ""}${shown}${start + FRAME_WIDTH < text.length ? "…" : ""}`;
  };
  const out: string[] = [];
  for (let n = first; n <= last; n++) {
    const marker = n === line ? ">" : " ";
    out.push(`${marker} ${String(n).padStart(width)} | ${cut(lines[n - 1] ?? "")}`);
    if (n === line && column !== undefined && column > 0) {
      out.push(`  ${" ".repeat(width)} | ${" ".repeat(at - start + (start > 0 ? 1 : 0))}^`);
    }
  }
  return out.join("\n");
}

/** The text an author reads in the terminal for one error. */
export function formatError(error: ContentIssue): string {
  const parts = [`${error.location}: ${error.message}`];
  if (error.source !== undefined && error.line !== undefined) {
    parts.push(codeFrame(error.source, error.line, error.column));
  }
  if (error.hint) parts.push(`hint: ${error.hint}`);
  return parts.join("\n");
}

/**
 * What every stage returns: the value it made, and what it found wrong. Errors stop the build
 * before anything is published (all of them reported together); warnings are printed.
 */
export interface Staged<T> {
  value: T;
  errors: ContentIssue[];
  warnings: ContentWarning[];
}

/** A stage's result: its errors as plain data, whatever made them. */
export const staged = <T,>(value: T, errors: readonly ContentIssue[] = [], warnings: ContentWarning[] = []): Staged<T> => ({ value, errors: errors.map(plainIssue), warnings });

/**
 * Errors in the order an author fixes them: by file, then line and column (code-point order,
 * locale-free); one found by two checks (a link's route before and after rendering) once.
 */
export function byPlace<E extends ContentIssue>(errors: readonly E[]): E[] {
  const key = (e: ContentIssue): [string, number, number] => [e.file, e.line ?? 0, e.column ?? 0];
  const seen = new Set<string>();
  const once = errors.filter((e) => {
    const id = `${e.location}\0${e.message}`;
    return !seen.has(id) && Boolean(seen.add(id));
  });
  return once.sort((a, b) => {
    const [fa, la, ca] = key(a);
    const [fb, lb, cb] = key(b);
    return fa < fb ? -1 : fa > fb ? 1 : la - lb || ca - cb;
  });
}

/**
 * Thrown where a value comes from a file that did not load (its own errors are reported):
 * what needs it (a body, a page) is left out of this run rather than reported.
 */
export class UnavailableError extends Error {
  constructor(readonly file: string) {
    super(`${file} did not load`);
    this.name = "UnavailableError";
  }
}
