/**
 * Paragraphs of plain prose, read without micromark.
 *
 * micromark (remark-parse) reads Markdown a character at a time through a state machine that
 * tries every construct a character could start: about a megabyte a second here, the largest
 * part of a cold build's Markdown stage. Most of an article is paragraphs of prose in which no
 * construct can start: letters, digits, spaces and a few punctuation marks. Such a paragraph's
 * syntax tree is known without parsing it: one `paragraph` holding one `text` whose value is
 * its lines, at the positions it has in the file. (About half the bytes of this blog's
 * articles are such paragraphs; every byte of the benchmark's corpus is.)
 *
 * `parseWithPlainBlocks` splits a body at its blank lines, makes the tree of each plain
 * paragraph itself, and gives micromark the rest in one call, each plain paragraph replaced by
 * one letter, then moves the positions of what it read to where they stand in the file. The
 * tree is the one micromark makes of the whole body (tests/plain-blocks.test.ts compares them,
 * positions included, on every Markdown file of the site and fixtures and on generated bodies).
 *
 * A block is plain when it follows a blank line (or starts the body) outside any fenced code or
 * container directive, and every one of its lines starts with a letter, ends with no space, and
 * holds only letters, digits, spaces, characters outside ASCII and `. , ; ? ! ' " ( ) / % $ + = -`,
 * with `:` only before a space or the line's end (no directive, no `http:`), and no `www.` (GFM's
 * autolink literal). A line that starts with a letter starts no block of CommonMark, GFM or
 * directives, so after a blank line it is a paragraph's. Where the split could be wrong, the
 * whole body goes to micromark: raw HTML (its blocks may span blank lines), a definition of a
 * link or footnote (`]:`, which other blocks may use), a carriage return, a byte-order mark, a
 * fence indented by one to three spaces, or a fence or container left open.
 */
import type { Root, RootContent } from "mdast";

/**
 * A line of a plain paragraph (no space last is checked apart): a letter first, then ASCII
 * letters, digits and safe marks, or anything outside ASCII but control characters (the three
 * alternatives match no character in common: a line that fails is not tried again and again).
 */
const PLAIN_LINE = /^\p{L}(?:[A-Za-z0-9 .,;?!'"()/%$+=-]|:(?= |$)|[^\x00-\x7F\p{Cc}\uFEFF])*$/u;
const WWW = /www\./i;
/**
 * Where the whole body goes to micromark: raw HTML at a line's start, a definition, a carriage
 * return, NUL, or a fence indented by one to three spaces (a list item's or the body's: only
 * fences at the line's start are followed here).
 */
const WHOLE = /^ {0,3}<|\]:|[\r\0\uFEFF]|^ {1,3}(?:```|~~~|:::)/m;
/** A code fence's opening line: backticks with no backtick after them, or tildes. */
const FENCE_OPEN = /^(?:(`{3,})[^`]*|(~{3,}).*)$/;
/** A line that closes a fence: at least as many of its characters, then only spaces. */
const FENCE_CLOSE = /^(`{3,}|~{3,})[ \t]*$/;
/** A container directive's opening (`:::name`) and closing (`:::`) lines. */
const CONTAINER_OPEN = /^(:{3,})[A-Za-z]/;
const CONTAINER_CLOSE = /^(:{3,})[ \t]*$/;

/** Reads `markdown` with `parse` (micromark) where it must, and its plain paragraphs without. */
export function parseWithPlainBlocks(markdown: string, parse: (markdown: string) => Root): Root {
  if (WHOLE.test(markdown)) return parse(markdown);
  const lines = markdown.split("\n");
  // Each line's first offset.
  const starts: number[] = [];
  for (let i = 0, offset = 0; i < lines.length; offset += lines[i]!.length + 1, i++) starts.push(offset);

  // The plain paragraphs, as [first line, line after the last].
  const plain: [number, number][] = [];
  let others = false;
  // Open fences and containers, in the order opened: a plain block stands only where none is.
  let fence: { char: string; size: number } | undefined;
  const containers: number[] = [];
  let afterBlank = true;
  for (let i = 0; i < lines.length; ) {
    const line = lines[i]!;
    if (isBlank(line)) {
      afterBlank = true;
      i++;
      continue;
    }
    if (afterBlank && !fence && containers.length === 0) {
      let end = i;
      while (end < lines.length && !isBlank(lines[end]!)) end++;
      if (isPlainBlock(lines, i, end)) {
        plain.push([i, end]);
        i = end;
        continue;
      }
    }
    afterBlank = false;
    others = true;
    // A line of other blocks: it may open or close a fence or a container.
    if (fence) {
      const close = FENCE_CLOSE.exec(line);
      if (close && close[1]![0] === fence.char && close[1]!.length >= fence.size) fence = undefined;
      // A container's closing line inside code it holds closes both: too subtle to follow here.
      else if (CONTAINER_CLOSE.test(line) && containers.length > 0) return parse(markdown);
    } else {
      const open = FENCE_OPEN.exec(line);
      const container = open ? undefined : CONTAINER_OPEN.exec(line);
      const closing = open || container ? undefined : CONTAINER_CLOSE.exec(line);
      if (open) fence = { char: (open[1] ?? open[2]!)[0]!, size: (open[1] ?? open[2]!).length };
      else if (container) containers.push(container[1]!.length);
      else if (closing && containers.length > 0 && closing[1]!.length >= containers[containers.length - 1]!) containers.pop();
    }
    i++;
  }
  // A fence or container left open may hold what was read as plain: the whole body to micromark.
  if (plain.length === 0 || fence || containers.length > 0) return parse(markdown);
  const paragraphs = plain.map(([from, to]) => paragraph(lines, starts, from, to));
  const position = { start: { line: 1, column: 1, offset: 0 }, end: { line: lines.length, column: lines[lines.length - 1]!.length + 1, offset: markdown.length } };
  if (!others) return { type: "root", children: paragraphs, position };

  // The other blocks in one call of micromark (one call costs as much again as a short run of
  // text), each plain paragraph standing in as one letter: a paragraph still, and what
  // follows it keeps its place but for the lines and characters the stand-ins left out.
  let text = "";
  let from = 0;
  for (const [first, end] of plain) {
    text += `${markdown.slice(from, starts[first]!)}x`;
    from = starts[end - 1]! + lines[end - 1]!.length;
  }
  text += markdown.slice(from);
  const children: RootContent[] = [];
  let next = 0;
  let lineShift = 0;
  let offsetShift = 0;
  for (const node of parse(text).children) {
    const stand = plain[next];
    if (stand && node.position?.start.offset === starts[stand[0]]! - offsetShift) {
      children.push(paragraphs[next]!);
      const [first, end] = stand;
      lineShift += end - 1 - first;
      offsetShift += starts[end - 1]! + lines[end - 1]!.length - starts[first]! - 1;
      next++;
    } else children.push(moved(node, lineShift, offsetShift));
  }
  // Every stand-in must have come back a paragraph of its own: else micromark read the text otherwise.
  if (next !== plain.length) return parse(markdown);
  return { type: "root", children, position };
}

function isBlank(line: string): boolean {
  for (let i = 0; i < line.length; i++) {
    const c = line.charCodeAt(i);
    if (c !== 32 && c !== 9) return false;
  }
  return true;
}

/** Whether lines `from` to `to` (not included) are a plain paragraph. */
function isPlainBlock(lines: readonly string[], from: number, to: number): boolean {
  for (let i = from; i < to; i++) {
    const line = lines[i]!;
    if (line.endsWith(" ") || !PLAIN_LINE.test(line) || WWW.test(line)) return false;
  }
  return true;
}

/** The tree of a plain paragraph: one text, its lines joined as they stand. */
function paragraph(lines: readonly string[], starts: readonly number[], from: number, to: number): RootContent {
  const last = to - 1;
  const position = {
    start: { line: from + 1, column: 1, offset: starts[from]! },
    end: { line: last + 1, column: lines[last]!.length + 1, offset: starts[last]! + lines[last]!.length },
  };
  return { type: "paragraph", children: [{ type: "text", value: lines.slice(from, to).join("\n"), position }], position: { start: { ...position.start }, end: { ...position.end } } };
}

/** A node micromark read after stand-ins: its positions moved by what they left out. */
function moved<T extends { position?: Root["position"]; children?: unknown }>(node: T, lines: number, offset: number): T {
  if (lines === 0 && offset === 0) return node;
  if (node.position) {
    for (const point of [node.position.start, node.position.end]) {
      point.line += lines;
      if (point.offset !== undefined) point.offset += offset;
    }
  }
  if (Array.isArray(node.children)) for (const child of node.children) moved(child as T, lines, offset);
  return node;
}
