/** Messages between the dev server and its builder process, and what the browser receives. */
import { readFileSync } from "node:fs";
import path from "node:path";
import { codeFrame, formatWarning, type ContentIssue, type ContentWarning } from "../lib/errors.js";

/** One error as the terminal and the browser overlay show it. */
export interface ReportedError {
  location: string;
  message: string;
  hint?: string;
  frame?: string;
}

/** One warning as the terminal and the browser's panel of warnings show it. */
export interface ReportedWarning {
  /** The file, as the content names it (`content/articles/x.md`). */
  file: string;
  /** `content/articles/x.md:12`. */
  location: string;
  message: string;
  /** Not a problem: something the build did that the author should know of. */
  notice?: boolean;
  /** The line the terminal prints. */
  printed: string;
}

export function reportWarning(warning: ContentWarning): ReportedWarning {
  const { file, line, message, notice } = warning;
  return { file, location: line ? `${file}:${line}` : file, message, ...(notice ? { notice } : {}), printed: formatWarning(warning) };
}

/** What the builder process builds: the dev server hands it over (as JSON) through the launcher. */
export interface BuilderSetup {
  contentDir: string;
  projectRoot: string;
  publicDir?: string;
  outDir: string;
  /** The module exporting the site's config (default export) or its theme (`theme`); the launcher gives the builder its bundled version. */
  themeModule: string;
  /** The bundled worker thread's module (the launcher gives it): large sites render on a pool of them, kept across saves. */
  workerModule?: string;
  themeFolders: string[];
  /** The engine's folder, relative to the project root. */
  engineFolder: string;
  /** The version of the code (the launcher's bundle, named by everything esbuild read); read from the files when not given. */
  code?: string;
  /** The graph of the bundle's modules (the launcher's modules.json): the theme's parts are keyed by the modules they reach. */
  modulesFile?: string;
  /** The persistent cache's folder; none: no cache. */
  cacheDir?: string;
  /** Keep the editors' schemas of the content current. */
  editorSchemas: boolean;
  /** What the site's editorial rules find is an error (`--strict`, CI), not a warning. */
  strict?: boolean;
  /** `--threads`: how many threads compute the entries (default: as a build decides). */
  threads?: number;
}

/** A build, or an update after files changed. `first`: the routes open in a browser, rendered and written before the others (each told as it is: `written`). */
export type BuildRequest = { type: "build"; first?: string[] } | { type: "update"; files: string[]; first?: string[] };

/** `save`: write the persistent cache now (the builder is about to be replaced: the new one starts from it). */
export type BuilderRequest = BuildRequest | { type: "save" };

/** `written`: a page of a request's `first` is in place, its new bytes written, while the build goes on (not the request's reply). */
export type BuilderReply = { type: "ready" } | { type: "saved" } | { type: "written"; changed: string[] } | BuildReply;

export type BuildReply = {
      type: "result";
      ok: boolean;
      errors: ReportedError[];
      /** The errors as the terminal prints them. */
      printed: string;
      /** Every warning of the site as it is now (the browser's panel shows them; the terminal those of the files saved). */
      warnings: ReportedWarning[];
      changed: string[];
      pages: number;
      /** The site's routes and their files (empty when the build failed); absent when they are those of the last successful reply (a save that added, removed or moved no route). */
      routes?: { path: string; file: string; kind: string }[];
      /** Pages rendered (the others were unchanged: from the last build or the cache). */
      rendered: number;
      ms: number;
      /** The most threads a stage of the run computed on (1: the builder's own alone). */
      threads: number;
      /** The site's language (its theme's first): the overlay speaks it. Unknown when the code did not load. */
      language?: string;
    };

export function reportError(error: ContentIssue): ReportedError {
  return {
    location: error.location,
    message: error.message,
    hint: error.hint,
    frame: error.source !== undefined && error.line !== undefined ? codeFrame(error.source, error.line, error.column) : undefined,
  };
}

/** The routes whose pages a list of changed files touched; `*` when assets changed. */
export function changedRoutes(changed: readonly string[]): string[] {
  const routes = new Set<string>();
  for (const file of changed) {
    if (file.startsWith("assets/")) routes.add("*");
    else if (file === "index.html") routes.add("/");
    else if (file.endsWith(".html")) routes.add(`/${file.slice(0, -5)}`);
  }
  return [...routes];
}

/**
 * A failure of the code itself (a syntax error in a template, an engine module that throws
 * while loading, a builder that died) as the overlay shows it: the first place in the
 * project that the message or the stack names, with its code frame.
 */
export function reportCrash(text: string, projectRoot: string): ReportedError {
  const places = [...text.matchAll(/(?:file:\/\/)?([^\s:()'"]+\.(?:tsx?|mts|mjs|js|css)):(\d+)(?::(\d+))?/g)].map(
    (m) => [m[0], path.resolve(projectRoot, m[1]!), m[2], m[3]] as const,
  );
  const place = places.find((m) => !m[1].includes("/node_modules/") && m[1].startsWith(projectRoot + path.sep));
  const message =
    text
      .split("\n")
      // The place is the report's location: not said again at the start of its message (`theme.tsx:3:5: Expected ";"`).
      .map((line) => line.replace(/^.*?ERROR:\s*/, "").replace(/^(?:file:\/\/)?[^\s:()'"]+\.(?:tsx?|mts|mjs|js|css):\d+(?::\d+)?:\s*/, "").trim())
      .find((line) => line.length > 0 && !/^\s*at /.test(line) && !/^(file:\/\/)?\//.test(line) && !/^Transform failed/.test(line)) ?? "the builder stopped";
  const report: ReportedError = {
    location: place ? `${path.relative(projectRoot, place[1])}:${place[2]}${place[3] ? `:${place[3]}` : ""}` : "dev builder",
    message,
    hint: "fix the code and save: the builder starts again with the new code",
  };
  if (place) {
    try {
      report.frame = codeFrame(readFileSync(place[1], "utf8"), Number(place[2]), place[3] ? Number(place[3]) : undefined);
    } catch {
      // The file is gone: the location says enough.
    }
  }
  return report;
}

/** The reply for a build that could not run: the crash, printed as the terminal shows errors. */
export function crashReply(error: ReportedError): BuildReply {
  const printed = [`${error.location}: ${error.message}`, error.frame, error.hint && `hint: ${error.hint}`].filter(Boolean).join("\n");
  return { type: "result", ok: false, errors: [error], printed, warnings: [], changed: [], pages: 0, routes: [], rendered: 0, ms: 0, threads: 1 };
}
