/** axe-core (injected into the page) finds no violations on any route, in either language. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { axeViolations, chromiumPath, startHarness, type Harness } from "./harness.js";
import { SPEC_ARTICLE_ROUTES } from "../helpers.js";

const ROUTES = ["/", ...SPEC_ARTICLE_ROUTES, "/pagina-que-nao-existe"];

let h: Harness;
beforeAll(async () => {
  if (chromiumPath) h = await startHarness();
});
afterAll(async () => h?.close());

const describeBrowser = chromiumPath ? describe : describe.skip;

describeBrowser("accessibility (axe-core)", () => {
  it.each((["pt", "en"] as const).flatMap((lang) => ROUTES.map((route) => [lang, route] as const)))(
    "%s %s has no violations",
    async (lang, route) => {
      const context = await h.browser.newContext({ viewport: { width: 390, height: 844 }, bypassCSP: true });
      if (lang === "en") await context.addInitScript(() => localStorage.setItem("cafe-com-a-cris:lang", "en"));
      const page = await context.newPage();
      await page.goto(h.base + route);
      const violations = await axeViolations(page);
      expect(violations).toEqual([]);
      await context.close();
    },
  );
});
