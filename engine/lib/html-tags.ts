/**
 * The one reader of built HTML pages in the engine (the rendered-link check, the share text,
 * the link checker, the share preview): the start tags of a page with their attributes, as
 * HTML's attribute syntax writes them, entities decoded as a browser reads them. A scan of
 * the start tags, not a full tokenizer: htmlparser2 gave the same answers on every page of
 * the site at 1.2 ms a page, this at 0.15 ms (a site of 100,000 pages reads each one). One
 * scan reads all a page's record needs (`readTags`): its head whole, its links and ids, its
 * title and its inline scripts.
 */
import { decodeHTML, decodeHTMLAttribute } from "entities";

/**
 * What the scan meets: an element whose content is text, not tags (a `<a href>` inside a
 * script is no link), as its name, attributes and text; a comment; or a start tag, as its
 * name, then its attributes (double-, single- or unquoted values, as HTML allows).
 */
const TOKEN = /<(script|style|textarea|title)\b([^>]*)>([\s\S]*?)<\/\1\s*>|<!--[\s\S]*?-->|<([a-zA-Z][^\s/>]*)((?:\s+[^\s"'>/=]+(?:\s*=\s*(?:"[^"]*"|'[^']*'|[^\s"'=<>`]+))?)*)\s*\/?>/gi;
const ATTRIBUTE = /\s([^\s"'>/=]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+)))?/g;

export interface StartTag {
  /** Lowercase. */
  name: string;
  /** By lowercase name, the first of a name written twice (as a browser keeps it). */
  attributes: Record<string, string>;
}

/** What one scan of a page reads (`readTags`). */
export interface PageTags {
  /** Every start tag before `<body>`, all its attributes read. */
  head: StartTag[];
  /** The text of the first `<title>` before `<body>`, entities decoded and white space collapsed. */
  title?: string;
  /** Every start tag outside scripts, styles, titles and comments that `only` accepts (every one without it), the head's too. */
  tags: StartTag[];
  /** Its `<script>` elements, each as its raw attributes and its text. */
  scripts: [attributes: string, text: string][];
}

/**
 * The marked places of a page's cached parts, as the render leaves them before it puts each
 * part's HTML there (render/cached-parts.ts): `<cafe-part data-n="<nonce>" data-i="<n>"></cafe-part>`.
 * A scan given them reads a part once a run and adds what it found at each of its places: a
 * site's header and end, the same on every page, are ~45% of a page's tags (bench/README.md,
 * "Session 21"). A part rendered in place (between its marks) is read where it stands.
 */
export interface PartMarks {
  /** The run's mark: no text of a page can hold it (React escapes every `<` of a text). */
  nonce: string;
  /** A part's HTML, by its number. */
  html(id: number): string | undefined;
  /** What the scan found in each part, by part, place (in the head or not, a title seen) and `only`: kept for the run. */
  found: Map<string, PartScan>;
}

/** What a scan of one part found, and where the scan stood after it. */
export interface PartScan {
  tags: PageTags;
  after: ScanState;
}

/** Where a scan stands: before `<body>` or not, and whether it has the page's title. */
interface ScanState {
  inHead: boolean;
  titled: boolean;
}

/**
 * The start tags of `html` outside scripts, styles, titles and comments, in one scan: those
 * of the head (before `<body>`) all read, the others only when `only`, a test of a tag's raw
 * attributes, accepts them (a tag it rejects is skipped without reading them); with the
 * page's title and scripts. `headOnly` stops at `<body>`. `marks`: `html` is a page whose
 * cached parts are still marked places (the same tags as the page with its parts in place).
 */
export function readTags(html: string, only?: RegExp, headOnly = false, marks?: PartMarks): PageTags {
  const found: PageTags = { head: [], tags: [], scripts: [] };
  scanInto(html, only, headOnly, found, { inHead: true, titled: false }, marks);
  return found;
}

/** `readTags`' scan of `html` from `state`, into `found`; `state` is where it ends. */
function scanInto(html: string, only: RegExp | undefined, headOnly: boolean, found: PageTags, state: ScanState, marks: PartMarks | undefined): void {
  // `exec` on regexes of this scan's own rather than `matchAll`, which makes a copy of its
  // regex at each call: once per tag for the attributes, a quarter of the scan's time.
  const tokens = new RegExp(TOKEN);
  const attributePattern = new RegExp(ATTRIBUTE);
  const mark = marks && ` data-n="${marks.nonce}" data-i="`;
  let token: RegExpExecArray | null;
  while ((token = tokens.exec(html))) {
    const text = token[1];
    if (text !== undefined) {
      const name = text.toLowerCase();
      if (name === "script") found.scripts.push([token[2]!, token[3]!]);
      else if (name === "title" && state.inHead && !state.titled) {
        state.titled = true;
        found.title = collapsed(token[3]!);
      }
      continue;
    }
    if (token[4] === undefined) continue; // a comment
    const name = token[4].toLowerCase();
    const raw = token[5]!;
    if (mark && (name === "cafe-part" || name === "cafe-part-end") && raw.startsWith(mark)) {
      // A part's place: its HTML read once (or, rendered in place, read here); the marks are no tags of the page.
      if (name === "cafe-part" && html.startsWith("</cafe-part>", tokens.lastIndex)) addPart(Number.parseInt(raw.slice(mark.length), 10), only, found, state, marks!);
      continue;
    }
    if (state.inHead && name === "body") {
      state.inHead = false;
      if (headOnly) break;
    }
    const wanted = !only || only.test(raw);
    if (!wanted && !state.inHead) continue;
    const attributes: Record<string, string> = {};
    attributePattern.lastIndex = 0;
    let attribute: RegExpExecArray | null;
    while ((attribute = attributePattern.exec(raw))) {
      const key = attribute[1]!.toLowerCase();
      if (Object.hasOwn(attributes, key)) continue;
      const value = attribute[2] ?? attribute[3] ?? attribute[4] ?? "";
      attributes[key] = value.includes("&") ? decodeHTMLAttribute(value) : value;
    }
    const tag = { name, attributes };
    if (state.inHead) found.head.push(tag);
    if (wanted) found.tags.push(tag);
  }
}

/** Adds what part `id` holds at its place (read once for that place and `only`). */
function addPart(id: number, only: RegExp | undefined, found: PageTags, state: ScanState, marks: PartMarks): void {
  const key = `${id} ${state.inHead} ${state.titled} ${only?.source ?? ""}`;
  let part = marks.found.get(key);
  if (!part) {
    const html = marks.html(id);
    if (html === undefined) throw new Error(`no part ${id} in this run's parts`);
    const tags: PageTags = { head: [], tags: [], scripts: [] };
    const after = { ...state };
    scanInto(html, only, false, tags, after, undefined);
    marks.found.set(key, (part = { tags, after }));
  }
  const { tags, after } = part;
  for (const tag of tags.head) found.head.push(tag);
  for (const tag of tags.tags) found.tags.push(tag);
  for (const script of tags.scripts) found.scripts.push(script);
  if (tags.title !== undefined) found.title = tags.title;
  state.inHead = after.inHead;
  state.titled = after.titled;
}

/**
 * Every start tag of `html` outside scripts, styles, titles and comments. `only`, when given,
 * is a test of a tag's raw attributes: a tag it rejects is skipped without reading them.
 */
export function startTags(html: string, only?: RegExp): StartTag[] {
  return readTags(html, only).tags;
}

/** A title's text, entities decoded and white space collapsed; undefined when it has none. */
function collapsed(text: string): string | undefined {
  return decodeHTML(text).replace(/\s+/g, " ").trim() || undefined;
}
