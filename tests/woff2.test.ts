/** The brand font's WOFF2 is read back by Google's reference decoder with every table intact. */
import { describe, expect, it } from "vitest";
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import { sfntToWoff2 } from "../engine/woff2.js";
import { projectRoot } from "./helpers.js";

const require = createRequire(path.join(projectRoot, "package.json"));

function tables(font: Uint8Array): Map<string, string> {
  const b = Buffer.from(font);
  const out = new Map<string, string>();
  for (let i = 0; i < b.readUInt16BE(4); i++) {
    const entry = 12 + i * 16;
    const offset = b.readUInt32BE(entry + 8);
    out.set(b.toString("latin1", entry, entry + 4), b.subarray(offset, offset + b.readUInt32BE(entry + 12)).toString("hex"));
  }
  return out;
}

describe("WOFF2 encoder", () => {
  it("round-trips a cut TrueType font through the reference decoder, smaller than the TrueType", async () => {
    const subsetFont = require("subset-font") as (font: Buffer, text: string, options: { targetFormat: string }) => Promise<Buffer>;
    const source = await readFile(require.resolve("@fontsource/dancing-script/files/dancing-script-latin-700-normal.woff"));
    const ttf = await subsetFont(source, "Café com a Cris", { targetFormat: "truetype" });
    const woff2 = sfntToWoff2(ttf);
    expect(woff2.toString("latin1", 0, 4)).toBe("wOF2");
    expect(woff2.readUInt32BE(8)).toBe(woff2.length);
    expect(woff2.length).toBeLessThan(ttf.length * 0.7);
    const { decompress } = require("wawoff2") as { decompress(b: Buffer): Promise<Uint8Array> };
    const decoded = await decompress(woff2);
    const expected = tables(ttf);
    // The decoder recomputes head.checkSumAdjustment for the font it rebuilds.
    const without = (m: Map<string, string>) => new Map([...m].map(([tag, hex]) => [tag, tag === "head" ? hex.slice(0, 16) + hex.slice(24) : hex]));
    expect(without(tables(decoded))).toEqual(without(expected));
  });
});
