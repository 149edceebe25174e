/**
 * The `images` fixture in a real Chromium, served with the site's policy: axe finds no
 * violation on a page with a cover and three images in its body; the browser picks AVIF at
 * the width the column needs, every image loads (the CSP allows them), and nothing moves
 * when they arrive.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { axeViolations, chromiumPath, startHarness, type Harness } from "./harness.js";
import { buildImagesFixture } from "../helpers.js";


let h: Harness;
beforeAll(async () => {
  if (chromiumPath) h = await startHarness(await buildImagesFixture());
});
afterAll(async () => h?.close());

const describeBrowser = chromiumPath ? describe : describe.skip;

describeBrowser("images in the browser", () => {
  it.each(["/com-fotos", "/", "/sem-fotos"])("%s has no axe violations", async (route) => {
    const context = await h.browser.newContext({ viewport: { width: 390, height: 844 }, bypassCSP: true });
    const page = await context.newPage();
    await page.goto(h.base + route);
    const violations = await axeViolations(page);
    expect(violations).toEqual([]);
    await context.close();
  });

  it("loads AVIF at the width the column needs, every image allowed by the policy, with no layout shift", async () => {
    const context = await h.browser.newContext({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 2 });
    const page = await context.newPage();
    const failed: string[] = [];
    page.on("requestfailed", (r) => failed.push(r.url()));
    page.on("console", (m) => m.type() === "error" && failed.push(m.text()));
    await page.addInitScript(() => {
      const w = window as unknown as { __shift: number };
      w.__shift = 0;
      new PerformanceObserver((list) => {
        for (const entry of list.getEntries() as unknown as { value: number }[]) w.__shift += entry.value;
      }).observe({ type: "layout-shift", buffered: true });
    });
    await page.goto(`${h.base}/com-fotos`);
    const cover = page.locator(".article-cover img");
    await cover.evaluate((img: HTMLImageElement) => img.decode());
    const state = () =>
      page.$$eval("main img", (imgs) => (imgs as HTMLImageElement[]).map((img) => ({ src: img.currentSrc, complete: img.complete, width: img.naturalWidth })));
    const before = await state();
    // The cover: AVIF, 800 px (the 358 px column at 2×), already there.
    expect(before[0]!.src).toMatch(/\/assets\/images\/capa-800-[0-9a-f]{10}\.avif$/);
    expect(before[0]!.width).toBeGreaterThan(0);
    for (let y = 0; y < 6000; y += 400) await page.mouse.wheel(0, 400);
    await page.waitForFunction(() => [...document.querySelectorAll("main img")].every((img) => (img as HTMLImageElement).complete && (img as HTMLImageElement).naturalWidth > 0));
    const after = await state();
    expect(after.map((i) => i.src.split(".").pop())).toEqual(["avif", "avif", "avif", "svg"]);
    expect(failed).toEqual([]);
    expect(await page.evaluate(() => (window as unknown as { __shift: number }).__shift)).toBe(0);
    await context.close();
  });
});
