/**
 * The share preview of `npm run dev` (/__cafe/share) in Chromium: every page with its card
 * and the WhatsApp, LinkedIn and X previews, a title too long for them warned, every card
 * image loading, no accessibility violation, and a save reaching it like any page.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdtemp, readdir, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Browser } from "playwright-core";
import { startDev, type DevServer } from "../../engine/servers/dev-server.js";
import { devTheme, editedFixture, projectRoot } from "../helpers.js";
import { axeViolations, chromiumPath, launchChromium } from "./harness.js";

const LONG_TITLE = "Um título comprido demais para qualquer aplicativo mostrar inteiro quando o link é compartilhado";
let dev: DevServer;
let browser: Browser;
let content = "";
let outDir = "";
const logs: string[] = [];

beforeAll(async () => {
  if (!chromiumPath) return;
  content = await editedFixture("basic", { "articles/guia/so-titulo.md": (old) => old.replace("title: Só título", `title: ${LONG_TITLE}`) });
  outDir = path.join(await mkdtemp(path.join(tmpdir(), "cafe-share-")), "out");
  dev = await startDev({ projectRoot, contentDir: content, outDir, port: 0, host: "127.0.0.1", ...devTheme, log: (l) => logs.push(l) });
  browser = await launchChromium();
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await dev?.close();
});

/** The routes of the dev build: its pages but the 404 page. */
async function builtRoutes(): Promise<string[]> {
  const files = (await readdir(outDir, { recursive: true })).filter((f) => f.endsWith(".html") && f !== "404.html");
  return files.map((f) => (f === "index.html" ? "/" : `/${f.slice(0, -5)}`)).sort();
}

(chromiumPath ? describe : describe.skip)("the share preview in the browser", () => {
  it("is announced in the terminal's start message", () => {
    expect(logs.join("\n")).toContain(`share preview: ${dev.url}/__cafe/share`);
  });

  it("lists every page with its card, each app's preview, and warns of the title too long", async () => {
    const page = await browser.newPage();
    const response = await page.goto(`${dev.url}/__cafe/share`);
    expect(response!.status()).toBe(200);
    expect(await page.getAttribute("html", "lang")).toBe("en");

    const routes = await builtRoutes();
    expect(routes.length).toBeGreaterThanOrEqual(3);
    expect(await page.locator("section.page").evaluateAll((s) => s.map((e) => e.getAttribute("data-route")).sort())).toEqual(routes);
    for (const route of routes) {
      const section = page.locator(`section.page[data-route="${route}"]`);
      expect(await section.locator("figure.app").evaluateAll((f) => f.map((e) => e.getAttribute("data-app")))).toEqual(["whatsapp", "linkedin", "x"]);
    }

    // Every card image loads (from the dev build, not from the site's public address).
    await page.waitForFunction(() => [...document.querySelectorAll<HTMLImageElement>("img.card")].every((img) => img.complete), undefined, { timeout: 10_000 });
    const cards = await page.locator("img.card").evaluateAll((imgs) => imgs.map((img) => ({ src: (img as HTMLImageElement).currentSrc, width: (img as HTMLImageElement).naturalWidth })));
    expect(cards).toHaveLength(routes.length);
    for (const card of cards) {
      expect(card.src.startsWith(dev.url)).toBe(true);
      expect(card.width).toBe(1200);
    }

    const long = page.locator('section.page[data-route="/guia/so-titulo"]');
    // Which app cuts it, where, and what the title tag adds to it, counted and said.
    expect(await long.locator(".warnings").innerText()).toMatch(/^The title is cut \(WhatsApp after 81\): it has 114 characters, 18 of them the " \| Café com a Cris" the title tag adds\./);
    const whatsapp = await long.locator('figure[data-app="whatsapp"] .title').innerText();
    expect(whatsapp.endsWith("…")).toBe(true);
    expect([...whatsapp].length).toBeLessThanOrEqual(81);
    // X shows a large card's picture and domain, no text.
    expect(await long.locator('figure[data-app="x"] .title').count()).toBe(0);
    // A page with nothing wrong shows no warning at all.
    expect(await page.locator('section.page[data-route="/primeiro"] .warnings').count()).toBe(0);
    expect(await page.locator('section.page[data-route="/primeiro"] .ok').innerText()).toBe("Nothing to fix.");

    expect(await axeViolations(page)).toEqual([]);
    await page.close();
  });

  it("updates on save, like every page", async () => {
    const page = await browser.newPage();
    await page.goto(`${dev.url}/__cafe/share`);
    await page.waitForSelector("html[data-dev-server=connected]", { state: "attached" });
    const section = page.locator('section.page[data-route="/primeiro"]');
    expect(await section.innerText()).not.toContain("title is cut");
    const file = path.join(content, "articles/primeiro.md");
    await writeFile(file, (await readFile(file, "utf8")).replace("title: Primeiro artigo", `title: ${LONG_TITLE}`));
    await page.waitForSelector('section.page[data-route="/primeiro"] .warnings:has-text("title is cut")', { timeout: 15_000 });
    expect(await section.locator(".warnings").innerText()).toMatch(/^The title is cut \(WhatsApp after 81\)/);
    await page.close();
  });
});
