/** The one-shot build collects dead pages on its own rhythm, so memory stays near the live set. */
import { describe, expect, it } from "vitest";
import { memoryKeeper } from "../engine/memory.js";

describe("memory keeper", () => {
  it("collects once the heap has grown by its budget, and not before", () => {
    const keeper = memoryKeeper({ minimum: 8 * 1024 * 1024, liveFactor: 0 });
    for (let i = 0; i < 64; i++) keeper.tick();
    expect(keeper.collections).toBe(0);
    // Pages' worth of garbage that lives long enough to reach the old generation.
    let held: string[][] = [];
    for (let round = 0; round < 40 && keeper.collections === 0; round++) {
      held.push(Array.from({ length: 20_000 }, (_, i) => `page ${round} line ${i} `.repeat(4)));
      if (held.length > 4) held = held.slice(-1);
      for (let i = 0; i < 32; i++) keeper.tick();
    }
    expect(keeper.collections).toBeGreaterThan(0);
  });
});
