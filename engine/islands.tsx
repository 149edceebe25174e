/**
 * Islands: the interactive parts of a page. A theme declares each one with `defineIsland`
 * (its name, the module its component is exported from, the component) and lists them in
 * `assets.islands`; a template renders it as `<Share wake="intent" props={…} />`. The server
 * renders the component inside `<div data-island>` with its props as JSON; the assets stage
 * bundles one chunk per island (stages/assets/assets.ts) and the engine's runtime
 * (client/islands.ts), which a page loads only when it has an island (the render stage adds
 * its script), hydrates it when it wakes: on load, when idle, when visible, on intent, or
 * when the page's code asks.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { createContext, useContext, type ComponentType, type ReactElement } from "react";
import { codeError, siteCodePlace, type CodePlace } from "./lib/code-location.js";

/**
 * When an island is hydrated (its chunk and React loaded, its handlers attached):
 * - `load`: as soon as the page has loaded;
 * - `idle`: when the browser is idle after loading (`requestIdleCallback`);
 * - `visible`: when it comes near the viewport;
 * - `intent`: on the first sign the reader reaches for it (pointer over it, touch, focus);
 * - `manual`: only when the page's code asks, by
 *   `document.dispatchEvent(new CustomEvent("cafe:wake", { detail: "<name>" }))`.
 * Whatever the mode, a click on a button or a form submitted before it is hydrated wakes it
 * and is replayed once it is.
 */
export type Wake = "load" | "idle" | "visible" | "intent" | "manual";
export const WAKES: readonly Wake[] = ["load", "idle", "visible", "intent", "manual"];

export interface IslandDefinition<Props extends object> {
  /** Lowercase words joined by hyphens (`share`, `language-switch`): its chunk's file name and its `data-island`. */
  name: string;
  /** The file that exports the component, relative to the site's folder (`theme/copy-link.tsx`). */
  module: string;
  /** The name it is exported under in that file; `default` when not given. */
  export?: string;
  /** The component itself: the server renders it, and the browser hydrates the same one. */
  component: ComponentType<Props>;
}

/** What a template gives an island. */
export interface IslandProps<Props extends object> {
  /** Its props: plain data only (strings, numbers, booleans, null, arrays, plain objects), as they cross to the browser as JSON. */
  props: Props;
  wake: Wake;
  /** A class for the `<div data-island>` around it. */
  className?: string;
}

/** An island as a template renders it, with its declaration (for the assets stage). */
export type Island<Props extends object = any> = ((props: IslandProps<Props>) => ReactElement) & {
  readonly island: IslandDefinition<Props> & { readonly place?: CodePlace };
};

/** What the render and Markdown stages tell the islands they render. */
export interface IslandScope {
  /** The names of the islands the theme lists in `assets.islands`: only those have a chunk. */
  names: readonly string[];
  /** Where it is rendered, for messages: `on /a-page`, `in content/articles/a.md` (a body). */
  where: string;
}

export const IslandContext = createContext<IslandScope | undefined>(undefined);

/**
 * Declares an island: the component a template renders as `<Name wake="…" props={…} />`.
 * List it in the theme's `assets.islands` so that the build bundles its chunk.
 */
export function defineIsland<Props extends object>(definition: IslandDefinition<Props>): Island<Props> {
  const call = new Error();
  let place: CodePlace | undefined | null = null;
  const { component: Component, name } = definition;
  function IslandRoot({ props, wake, className }: IslandProps<Props>): ReactElement {
    const scope = useContext(IslandContext);
    /** A mistake of the template's: at the line that renders the island (the one that shows `clue`, when several do). */
    const mistake = (message: string, hint: string, clue?: string) => {
      const { place, all, shows } = islandUsage(island.island.place, clue);
      const others = all.length > 1 ? ` (the island is rendered at ${all.map((p) => `${path.relative(process.cwd(), p.file)}:${p.line}`).join(", ")}: this is the first${shows ? ` that shows \`${clue}\`` : ""})` : "";
      return codeError(place, undefined, { message, hint: hint + others, fallback: "the theme" });
    };
    if (!WAKES.includes(wake)) throw mistake(`the island '${name}' is given wake="${String(wake)}"`, `write one of ${WAKES.map((w) => `"${w}"`).join(", ")}`, String(wake));
    const problem = notPlainData(props, "props");
    if (problem) {
      throw mistake(
        `the island '${name}'${scope ? ` ${scope.where}` : ""} gets a prop that is not plain data: ${problem.text}; an island's props cross to the browser as JSON`,
        "give it only strings, numbers, booleans, null, arrays and plain objects; make functions, dates and elements inside the island's component",
        problem.key,
      );
    }
    if (scope && !scope.names.includes(name)) {
      const { names } = scope;
      throw mistake(
        `the island '${name}' is rendered ${scope.where} but is not in the theme's \`assets.islands\`, so the build made no chunk for it`,
        names.length > 0 ? `add it to \`assets.islands\` (which lists ${names.join(", ")})` : "list it in the theme's `assets: { islands: [...] }`",
      );
    }
    return (
      <div data-island={name} data-wake={wake} data-props={JSON.stringify(props)} className={className}>
        <Component {...props} />
      </div>
    );
  }
  IslandRoot.displayName = `Island(${name})`;
  const island = Object.assign(IslandRoot, {
    island: {
      ...definition,
      get place() {
        return place === null ? (place = siteCodePlace(call.stack)) : place;
      },
    },
  });
  return island;
}

/**
 * What in a value JSON would not carry as it is, by its path (`props.settings.onShare is a
 * function`); undefined when it is plain data. A key whose value is undefined is left out
 * by JSON, as an optional prop is: that is allowed.
 */
export function notPlainData(value: unknown, at: string): { text: string; key?: string } | undefined {
  const text = notPlain(value, at, []);
  // The top key of the path (`props.settings.onShare`: `settings`), as a template may write it.
  return text === undefined ? undefined : { text, key: /^[^.[]+[.]([A-Za-z_$][\w$]*)/.exec(text)?.[1] };
}

function notPlain(value: unknown, at: string, seen: object[]): string | undefined {
  switch (typeof value) {
    case "string":
    case "boolean":
      return undefined;
    case "number":
      return Number.isFinite(value) ? undefined : `${at} is ${value}, which arrives as null`;
    case "undefined":
      return undefined;
    case "function":
      return `${at} is a function`;
    case "bigint":
      return `${at} is a bigint`;
    case "symbol":
      return `${at} is a symbol`;
  }
  if (value === null) return undefined;
  const object = value as Record<string, unknown>;
  if (seen.includes(object)) return `${at} refers back to an object that holds it`;
  if ("$$typeof" in object) return `${at} is a React element`;
  if (Array.isArray(object)) {
    for (let i = 0; i < object.length; i++) {
      if (object[i] === undefined) return `${at}[${i}] is undefined, which arrives as null`;
      const problem = notPlain(object[i], `${at}[${i}]`, [...seen, object]);
      if (problem) return problem;
    }
    return undefined;
  }
  const proto = Object.getPrototypeOf(object) as object | null;
  if (proto !== Object.prototype && proto !== null) {
    if (object instanceof Date) return `${at} is a Date, which arrives as a string (pass \`date.toISOString()\` or the text to show)`;
    const kind = (proto.constructor as { name?: string } | undefined)?.name;
    return `${at} is ${kind ? `a ${kind}` : "an object of a class"}, which arrives as a plain object without its methods`;
  }
  for (const [key, item] of Object.entries(object)) {
    const problem = notPlain(item, /^[A-Za-z_$][\w$]*$/.test(key) ? `${at}.${key}` : `${at}[${JSON.stringify(key)}]`, [...seen, object]);
    if (problem) return problem;
  }
  return undefined;
}

const CODE_FILE = /\.[cm]?[jt]sx?$/;

/**
 * Where templates render the island declared at `declared` (`export const Share = defineIsland(…)`):
 * every `<Share` in the code of the folder it is declared in, its own file first. The place
 * is the first that shows `clue` (the prop or the wake at fault) in its tag, else the first;
 * the declaration itself when none is found. Read only for a message: a component renders
 * long after the template that wrote its tag has returned, so no stack names that line.
 */
function islandUsage(declared: CodePlace | undefined, clue?: string): { place: CodePlace | undefined; all: CodePlace[]; shows: boolean } {
  if (!declared) return { place: undefined, all: [], shows: false };
  const none = { place: declared, all: [], shows: false };
  let identifier: string | undefined;
  try {
    const line = readFileSync(declared.file, "utf8").split("\n")[declared.line - 1] ?? "";
    identifier = /(?:const|let|var)\s+([A-Za-z_$][\w$]*)\s*=\s*defineIsland\b/.exec(line)?.[1];
  } catch {
    return none;
  }
  if (!identifier) return none;
  const tag = new RegExp(`<${identifier}\\b`);
  const folder = path.dirname(declared.file);
  let files: string[];
  try {
    files = readdirSync(folder, { recursive: true, encoding: "utf8" })
      .filter((f) => CODE_FILE.test(f) && !f.split(path.sep).includes("node_modules"))
      .map((f) => path.join(folder, f))
      .sort((a, b) => Number(b === declared.file) - Number(a === declared.file) || (a < b ? -1 : a > b ? 1 : 0));
  } catch {
    return none;
  }
  const all: { place: CodePlace; text: string }[] = [];
  for (const file of files) {
    let lines: string[];
    try {
      lines = readFileSync(file, "utf8").split("\n");
    } catch {
      continue;
    }
    lines.forEach((line, i) => {
      const column = line.search(tag);
      if (column < 0) return;
      // The tag's text: from `<Share` to its end (`/>`), on a few lines at most.
      const rest = lines.slice(i, i + 12).join("\n").slice(column);
      all.push({ place: { file, line: i + 1, column: column + 1 }, text: rest.slice(0, rest.indexOf("/>") + 1 || undefined) });
    });
  }
  if (all.length === 0) return none;
  const shown = clue === undefined ? undefined : all.find((usage) => usage.text.includes(clue));
  return { place: (shown ?? all[0]!).place, all: all.map((usage) => usage.place), shows: shown !== undefined };
}

/** How every island's markup starts: a page that has it loads the runtime. */
export const ISLAND_MARK = "<div data-island=";

/** The names of the islands a theme lists in `assets.islands`. */
export const islandNames = (theme: { assets: { islands?: readonly Island[] } }): string[] => (theme.assets.islands ?? []).map((island) => island.island.name);
