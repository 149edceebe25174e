/** Messages between the dev server and its builder process, and what the browser receives. */
import { codeFrame, type ContentError } from "./errors.js";

/** One error as the terminal and the browser overlay show it. */
export interface ReportedError {
  location: string;
  message: string;
  hint?: string;
  frame?: string;
}

export type BuilderRequest = { type: "build" } | { type: "update"; files: string[] };

export type BuilderReply =
  | { type: "ready" }
  | {
      type: "result";
      ok: boolean;
      errors: ReportedError[];
      /** The errors as the terminal prints them. */
      printed: string;
      warnings: string[];
      written: string[];
      pages: number;
      ms: number;
    };

export function reportError(error: ContentError): ReportedError {
  return {
    location: error.location,
    message: error.message,
    hint: error.hint,
    frame: error.source !== undefined && error.line !== undefined ? codeFrame(error.source, error.line, error.column) : undefined,
  };
}

/** The routes whose pages a list of written files touched; `*` when assets changed. */
export function changedRoutes(written: readonly string[]): string[] {
  const routes = new Set<string>();
  for (const file of written) {
    if (file.startsWith("assets/")) routes.add("*");
    else if (file === "index.html") routes.add("/");
    else if (file.endsWith(".html")) routes.add(`/${file.slice(0, -5)}`);
  }
  return [...routes];
}
