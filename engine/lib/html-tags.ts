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
 * The start tags of `html` outside scripts, styles, titles and comments, in one scan: those
 * of the head (before `<body>`) all read, the others only when `only`, a test of a tag's raw
 * attributes, accepts them (a tag it rejects is skipped without reading them); with the
 * page's title and scripts. `headOnly` stops at `<body>`.
 */
export function readTags(html: string, only?: RegExp, headOnly = false): PageTags {
  const found: PageTags = { head: [], tags: [], scripts: [] };
  // `exec` on regexes of this scan's own rather than `matchAll`, which makes a copy of its
  // regex at each call: once per tag for the attributes, a quarter of the scan's time.
  const tokens = new RegExp(TOKEN);
  const attributePattern = new RegExp(ATTRIBUTE);
  let inHead = true;
  let titled = false;
  let token: RegExpExecArray | null;
  while ((token = tokens.exec(html))) {
    const text = token[1];
    if (text !== undefined) {
      const name = text.toLowerCase();
      if (name === "script") found.scripts.push([token[2]!, token[3]!]);
      else if (name === "title" && inHead && !titled) {
        titled = true;
        found.title = collapsed(token[3]!);
      }
      continue;
    }
    if (token[4] === undefined) continue; // a comment
    const name = token[4].toLowerCase();
    if (inHead && name === "body") {
      inHead = false;
      if (headOnly) break;
    }
    const raw = token[5]!;
    const wanted = !only || only.test(raw);
    if (!wanted && !inHead) continue;
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
    if (inHead) found.head.push(tag);
    if (wanted) found.tags.push(tag);
  }
  return found;
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
