/**
 * Parts of a page rendered once and reused on every page that shows them, as Hugo's
 * `partialCached` does: a site's header, its footer, a newsletter box are the same on every
 * page, and through React they are most of what a page costs to render. A template wraps one
 * in `<Cached name="site-header"><Header site={site} /></Cached>`.
 *
 * What a part is rendered from is its key: its name, the values its children are given (each
 * object by identity: the same settings object on every page is one key; a new object, or a
 * function made for each page, is a new key, and the part is rendered again) and `vary` (what
 * it reads any other way: a React context of the theme's). The values a part reads from the
 * page's context (`ctx.site`, a listing, a data file) are recorded with the first page that
 * renders it and noted again on every page that reuses it, so that a rebuild renders all of
 * them again when one of those values changes. A part that renders differently for one key
 * (it reads something its key does not say) is an error, not a page silently wrong: each
 * part is rendered again and compared on its 2nd, 4th, 8th… use.
 *
 * The memory lasts one run of the render stage on one thread (`PartMemory`); outside a page
 * of the render stage (an island in the browser, a body in the Markdown stage, a test), a
 * part renders its children as they are. On a page, its HTML is what its children render on
 * their own: the same as in place, but where a text of the part would touch a text beside it
 * (React writes `<!-- -->` between the two).
 */
import { createContext, createElement, Fragment, isValidElement, useContext, type ReactElement, type ReactNode } from "react";
import { randomBytes } from "node:crypto";
import type { DepId } from "../../incremental/dependencies.js";
import { notPlainData } from "../../islands.js";

export interface CachedProps {
  /** The part's name, unique in the theme (`site-header`): the key's first word, and what a message names. */
  name: string;
  /** What the part shows depends on besides the values its children are given (plain data). */
  vary?: readonly unknown[];
  children: ReactNode;
}

/** One part as first rendered: its HTML, what it read of the page's context, where, and how often it was used since. */
interface Part {
  id: number;
  name: string;
  /** Where it was first rendered (a message names it). */
  route: string;
  html?: string;
  deps: DepId[];
  uses: number;
}

/** The most keys a part's name is remembered for in one run. */
const MOST_KEYS = 64;

/** What the render stage keeps of the parts during one run on one thread. */
export class PartMemory {
  /** Marks the parts' places in a page: no text of a page can guess it. */
  readonly nonce = randomBytes(6).toString("hex");
  private readonly parts = new Map<string, Part>();
  readonly byId: Part[] = [];
  /** Each object a part's children were given, with its key: its contents' number (plain data) or its own. */
  private readonly objects = new WeakMap<object, string>();
  private objectCount = 0;
  /** Each plain value's text, numbered. */
  private readonly plain = new Map<string, number>();
  /** Each component type, numbered. */
  private readonly types = new Map<unknown, number>();

  /** How many keys each name has: a part given a new value on (nearly) every page stops being remembered. */
  private readonly keys = new Map<string, number>();

  /**
   * The part of this key; a new one (not yet rendered) the first time; none when its name has
   * had `MOST_KEYS` keys already (its children are given values made for each page: rendered
   * in place, as if not cached, so that the memory holds no page's worth of HTML per page).
   */
  part(name: string, vary: readonly unknown[], children: ReactNode, route: string): Part | undefined {
    const key = `${name}\0${JSON.stringify(vary)}\0${this.keyOf(children)}`;
    let part = this.parts.get(key);
    if (!part) {
      const count = this.keys.get(name) ?? 0;
      if (count >= MOST_KEYS) return undefined;
      this.keys.set(name, count + 1);
      part = { id: this.byId.length, name, route, deps: [], uses: 0 };
      this.parts.set(key, part);
      this.byId.push(part);
    }
    return part;
  }

  /** Children as a key: each element's type and props, each object among them by its number. */
  private keyOf(node: unknown): string {
    if (node === null || node === undefined || typeof node === "boolean") return "_";
    if (typeof node === "string" || typeof node === "number") return JSON.stringify(node);
    if (Array.isArray(node)) return `[${node.map((n) => this.keyOf(n)).join(",")}]`;
    if (isValidElement(node)) {
      const { props, type, key } = node as ReactElement<Record<string, unknown>>;
      const fields = Object.keys(props)
        .sort()
        .map((name) => `${name}=${name === "children" ? this.keyOf(props[name]) : this.valueKey(props[name])}`);
      return `<${this.typeKey(type)} ${key ?? ""} ${fields.join(" ")}>`;
    }
    return this.valueKey(node);
  }

  /**
   * A value as a key: plain data (strings, numbers, arrays, plain objects) by what it holds,
   * anything else (a function, an instance of a class) by identity; an object already seen by
   * the key it was given then.
   */
  private valueKey(value: unknown): string {
    if ((typeof value === "object" && value !== null) || typeof value === "function") {
      if (isValidElement(value)) return this.keyOf(value);
      let key = this.objects.get(value);
      if (key === undefined) {
        // Plain data as islands' props are (islands.tsx): its JSON says all it holds.
        const plain = notPlainData(value, "value") === undefined ? JSON.stringify(value) : undefined;
        if (plain === undefined) key = `#${this.objectCount++}`;
        else key = `=${this.plain.get(plain) ?? this.plain.set(plain, this.plain.size).get(plain)!}`;
        this.objects.set(value, key);
      }
      return key;
    }
    return typeof value === "string" ? JSON.stringify(value) : String(value);
  }

  private typeKey(type: unknown): string {
    if (typeof type === "string") return type;
    let n = this.types.get(type);
    if (n === undefined) this.types.set(type, (n = this.types.size));
    return `@${n}`;
  }
}

/** What a page of the render stage gives its parts. */
export interface PartScope {
  memory: PartMemory;
  /** The page being rendered. */
  route: string;
  /** Notes that the page read a value of its context (the dependency recorder's `read`). */
  read(id: DepId): void;
  /** Starts and stops noting, for a part rendered now, what the page reads meanwhile. */
  capture(): void;
  release(): DepId[];
}

export const PartContext = createContext<PartScope | undefined>(undefined);
/** Inside a part being rendered: a part in a part renders as it is. */
const Inside = createContext(false);

/** Whether the part's `uses`-th use is rendered again and compared: the 2nd, 4th, 8th… */
const checked = (uses: number) => uses >= 2 && (uses & (uses - 1)) === 0;

/** A part of the page rendered once for its key and reused on every page that shows it. */
export function Cached({ name, vary = [], children }: CachedProps): ReactElement {
  const scope = useContext(PartContext);
  const inside = useContext(Inside);
  if (!scope || inside) return createElement(Fragment, null, children);
  const part = scope.memory.part(name, vary, children, scope.route);
  if (!part) return createElement(Fragment, null, children);
  part.uses++;
  const attributes = { "data-n": scope.memory.nonce, "data-i": part.id };
  if (part.html !== undefined && !checked(part.uses)) {
    for (const id of part.deps) scope.read(id);
    return createElement("cafe-part", attributes);
  }
  // Rendered here, between two marks: `fillParts` takes its HTML out of the page.
  const first = part.html === undefined;
  const Start = () => (first && scope.capture(), null);
  const End = () => {
    if (first) part.deps = scope.release();
    return createElement("cafe-part-end", attributes);
  };
  return createElement("cafe-part", { ...attributes, "data-render": "" }, createElement(Inside.Provider, { value: true }, createElement(Start), children, createElement(End)));
}

/** A part rendered for a second key with other HTML than for its first: what it reads is not all in its key. */
export class PartMismatch extends Error {
  constructor(
    readonly part: string,
    readonly first: string,
    readonly again: string,
  ) {
    super(`the cached part '${part}' renders differently on ${again} than on ${first}`);
  }
}

/** A part whose tags React rendered elsewhere than between its marks: a part in the page's `<head>`. */
export class PartOutOfPlace extends Error {
  constructor(
    readonly part: string,
    readonly route: string,
  ) {
    super(`the cached part '${part}' on ${route} is in the page's <head>`);
  }
}

/**
 * The page with each part's HTML in place: a part rendered now is remembered (or, on a use
 * that checks it, compared with what was remembered); a part reused is put back.
 */
export function fillParts(html: string, memory: PartMemory, route: string): string {
  const open = `<cafe-part data-n="${memory.nonce}" data-i="`;
  if (!html.includes(open)) return html;
  let out = "";
  let at = 0;
  // React puts a `<link>`, `<meta>`, `<script>` or `<title>` of the head where it wants it, out
  // from between a part's marks: a part there would lose some of its tags on every other page.
  const headEnd = html.indexOf("</head>");
  for (let start = html.indexOf(open); start >= 0; start = html.indexOf(open, at)) {
    out += html.slice(at, start);
    const idEnd = html.indexOf('"', start + open.length);
    const part = memory.byId[Number(html.slice(start + open.length, idEnd))]!;
    if (start < headEnd) throw new PartOutOfPlace(part.name, route);
    const tagEnd = html.indexOf(">", idEnd) + 1;
    if (html.startsWith("</cafe-part>", tagEnd)) {
      out += part.html;
      at = tagEnd + "</cafe-part>".length;
      continue;
    }
    const close = `<cafe-part-end data-n="${memory.nonce}" data-i="${part.id}"></cafe-part-end></cafe-part>`;
    const end = html.indexOf(close, tagEnd);
    const rendered = html.slice(tagEnd, end);
    if (part.html === undefined) part.html = rendered;
    else if (part.html !== rendered) throw new PartMismatch(part.name, part.route, route);
    out += rendered;
    at = end + close.length;
  }
  return out + html.slice(at);
}

