/**
 * The theme's fonts cut to the site's letters (stages/assets/font-cut.ts). subset-font's
 * WebAssembly (harfbuzz and a WOFF2 encoder) holds ~100 MB of memory for as long as the
 * module lives, which was a third of a 4000-article cold build's peak: the cut runs on a
 * thread of its own that ends with it, and the build's thread never holds that memory.
 */
import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { fontCutter } from "../engine/stages/assets/font-cut.js";
import { loadedPackages } from "../engine/lib/packages.js";

const require = createRequire(import.meta.url);
const source = readFileSync(require.resolve("@fontsource/dancing-script/files/dancing-script-latin-700-normal.woff"));
const MB = 1024 * 1024;
const cutFontTo = (font: Uint8Array, text: string) => fontCutter().cut(font, text);

describe("cutting a font", () => {
  it("leaves the build's thread without the subsetter's memory, and says it loaded it", async () => {
    const before = process.memoryUsage().external;
    const cut = await cutFontTo(source, "Café com a Cris");
    // A WOFF2 file ("wOF2"), much smaller than the whole face.
    expect(Buffer.from(cut.subarray(0, 4)).toString("latin1")).toBe("wOF2");
    expect(cut.length).toBeGreaterThan(200);
    expect(cut.length).toBeLessThan(source.length / 3);
    expect(process.memoryUsage().external - before).toBeLessThan(20 * MB);
    // `--verbose` lists it among the libraries the build loaded.
    expect(loadedPackages().map((p) => p.name)).toContain("subset-font");
  });

  it("gives the same bytes every time, more letters make a bigger file, and what is not a font is refused with a reason", async () => {
    // Asked for at once: one thread cuts them all, a refused one among them.
    const cutter = fontCutter();
    const [a, b, more, notFont] = await Promise.allSettled([
      cutter.cut(source, "Café com a Cris"),
      cutter.cut(source, "Café com a Cris"),
      cutter.cut(source, "Café com a Cris, abcdefghijklmnopqrstuvwxyz"),
      cutter.cut(new Uint8Array([1, 2, 3, 4, 5, 6, 7, 8]), "abc"),
    ]);
    const bytes = (r: PromiseSettledResult<Uint8Array>) => Buffer.from((r as PromiseFulfilledResult<Uint8Array>).value);
    expect(Buffer.compare(bytes(a!), bytes(b!))).toBe(0);
    expect(bytes(more!).length).toBeGreaterThan(bytes(a!).length);
    expect(notFont!.status).toBe("rejected");
    expect(String((notFont as PromiseRejectedResult).reason)).toMatch(/font/i);
  });
});
