/**
 * Code frames as an author reads them in the terminal and the dev overlay: a paragraph of
 * Markdown is one line of 400 characters or more, and a frame that prints it whole wraps
 * across the screen with the caret lost far below.
 */
import { describe, expect, it } from "vitest";
import { codeFrame, ContentError, formatError } from "../engine/lib/errors.js";

const words = (n: number, from = 0) => Array.from({ length: n }, (_, i) => `palavra${from + i}`).join(" ");

describe("a code frame", () => {
  it("cuts a long line around the column, and the caret still points at the character", () => {
    const long = `${words(50)} [link](/nada) ${words(20, 50)}`;
    const column = long.indexOf("[link]") + 1;
    expect(column).toBeGreaterThan(400);
    const source = ["---", "title: X", "---", "", long, "", "Fim."].join("\n");
    const frame = codeFrame(source, 5, column);
    const lines = frame.split("\n");
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(110);
    const errorLine = lines.find((l) => l.startsWith(">"))!;
    const caret = lines[lines.indexOf(errorLine) + 1]!;
    expect(errorLine).toContain("[link](/nada)");
    expect(errorLine).toMatch(/^> 5 \| …/);
    expect(errorLine.endsWith("…")).toBe(true);
    // The caret sits under the `[` of the link.
    expect(errorLine[caret.indexOf("^")]).toBe("[");
  });

  it("prints a short line whole, as before", () => {
    const frame = codeFrame("a: 1\nb: dois\nc: 3\n", 2, 4);
    expect(frame).toBe(["  1 | a: 1", "> 2 | b: dois", "    |    ^", "  3 | c: 3", "  4 | "].join("\n"));
  });

  it("is what formatError prints under the message", () => {
    const source = `x\n${"y".repeat(300)}z\n`;
    const text = formatError(new ContentError({ file: "content/articles/x.md", line: 2, column: 301, source, message: "bad z" }));
    expect(text.split("\n").every((l) => l.length <= 110)).toBe(true);
    expect(text).toMatch(/^> 2 \| …y+z$/m);
  });
});
