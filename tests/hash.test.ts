/**
 * The hashes the caches are keyed by (engine/lib/hash.ts): the same parts give the same hash
 * from one version of the engine to the next, or every cache an author has is thrown away by
 * an upgrade. The values below are those of the engine before hashes of text were made in one
 * call; parts are told apart by their lengths, not by a separator.
 */
import { describe, expect, it } from "vitest";
import { hashOf, hashOfAll } from "../engine/lib/hash.js";

describe("the hash of a list of parts", () => {
  it("is the one earlier versions of the engine gave, for text and for bytes", () => {
    expect(hashOf("a", "b")).toBe("lSU7kEFPJMZ5d5tX-etz0I3jSoc");
    expect(hashOfAll(["Café com a Cris", ""])).toBe("dcV60s52sFkcfpLeXP-NTbdjdaY");
    expect(hashOfAll([])).toBe("2jmj7l5rSw0yVb_vlWAYkK_YBwk");
    expect(hashOf("x", new Uint8Array([1, 2, 3]))).toBe("SvMZgX4W0ldDwpcDMIyDna89WkQ");
  });

  it("tells apart lists whose parts join to the same text", () => {
    expect(hashOf("a\0", "b")).toBe("0KiGoA-83KVv0_EtPYzLNbOP5rg");
    expect(hashOf("a", "\0b")).toBe("x_qs6GW_j5Z_-dXTG-3f0-UCcTM");
  });

  it("of a text is the hash of its UTF-8 bytes (the writer hashes a page as the bytes it writes)", () => {
    for (const text of ["", "olá, café 🙂", "<p>x</p>".repeat(10_000)]) {
      expect(hashOf(Buffer.from(text))).toBe(hashOf(text));
      expect(hashOf("a", Buffer.from(text), "b")).toBe(hashOf("a", text, "b"));
    }
  });
});
