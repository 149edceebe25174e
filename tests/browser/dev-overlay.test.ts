/** `npm run dev` in a real browser: a saved edit reaches the open page; a broken one shows the overlay. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Browser } from "playwright-core";
import { startDev, type DevServer } from "../../engine/servers/dev-server.js";
import { devTheme, editedFixture, projectRoot } from "../helpers.js";
import { chromiumPath, launchChromium } from "./harness.js";

let dev: DevServer;
let browser: Browser;
let content = "";
const logs: string[] = [];

beforeAll(async () => {
  if (!chromiumPath) return;
  content = await editedFixture("basic", {});
  const outDir = path.join(await mkdtemp(path.join(tmpdir(), "cafe-devb-")), "out");
  dev = await startDev({ projectRoot, contentDir: content, outDir, port: 0, host: "127.0.0.1", ...devTheme, log: (line) => logs.push(line) });
  browser = await launchChromium();
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await dev?.close();
});

(chromiumPath ? describe : describe.skip)("dev mode in the browser", () => {
  it("a saved edit reaches the open page without a manual reload", async () => {
    const page = await browser.newPage();
    await page.goto(`${dev.url}/guia/so-titulo`);
    await page.waitForSelector("html[data-dev-server=connected]", { state: "attached" });
    const file = path.join(content, "articles/guia/so-titulo.md");
    await writeFile(file, "---\ntitle: Só título\n---\n\nTexto que chegou sozinho.\n");
    await page.waitForSelector("text=Texto que chegou sozinho.", { timeout: 10_000 });
    await page.close();
  });

  it("a broken edit shows the overlay with file, line, message and hint; the fix clears it and reloads", async () => {
    const page = await browser.newPage();
    await page.goto(`${dev.url}/primeiro`);
    await page.waitForSelector("html[data-dev-server=connected]", { state: "attached" });
    const file = path.join(content, "articles/primeiro.md");
    const good = await readFile(file, "utf8");
    await writeFile(file, good.replace("date: 01/09/2025", "date: ontem"));
    const overlay = page.locator("#cafe-dev-overlay");
    await overlay.waitFor({ timeout: 10_000 });
    expect(await overlay.getAttribute("role")).toBe("alertdialog");
    expect(await overlay.locator(".cafe-dev-location").first().innerText()).toMatch(/articles\/primeiro\.md:4:7$/);
    expect(await overlay.locator(".cafe-dev-message").first().innerText()).toContain("`date` must be DD/MM/YYYY");
    expect(await overlay.locator("pre").first().innerText()).toContain("> 4 | date: ontem");

    await writeFile(file, good.replace("O começo de uma conversa", "O recomeço de uma conversa"));
    await page.waitForSelector("text=O recomeço de uma conversa", { timeout: 10_000 });
    expect(await page.locator("#cafe-dev-overlay").count()).toBe(0);
    await page.close();
  });

  it("a page opened while the content is broken shows the overlay at once", async () => {
    const file = path.join(content, "articles/primeiro.md");
    const good = await readFile(file, "utf8");
    const from = logs.length;
    await writeFile(file, good.replace("title: Primeiro artigo", "title:"));
    // The server has built the broken content and sent its error to the pages open then (none):
    // the page opened now learns of it only from what the server tells a page that connects.
    await expect.poll(() => logs.slice(from).some((l) => /articles\/primeiro\.md: 1 problem/.test(l)), { timeout: 15_000 }).toBe(true);
    const page = await browser.newPage();
    await page.goto(`${dev.url}/guia/so-titulo`);
    await page.locator("#cafe-dev-overlay").waitFor({ timeout: 10_000 });
    expect(await page.locator(".cafe-dev-message").first().innerText()).toContain("`title`");
    await writeFile(file, good);
    await page.locator("#cafe-dev-overlay").waitFor({ state: "detached", timeout: 10_000 });
    await page.close();
  });

  it("an editorial rule the text breaks shows in the page's panel of warnings and in the terminal, and leaves the page usable", async () => {
    const rules = path.join(content, "rules.yaml");
    const file = path.join(content, "articles/primeiro.md");
    const good = await readFile(file, "utf8");
    await writeFile(rules, "grafia:\n  kind: substitution\n  message: 'escreva “{use}”, não “{found}”'\n  swap:\n    on-line: online\n");
    const page = await browser.newPage();
    await page.goto(`${dev.url}/primeiro`);
    await page.waitForSelector("html[data-dev-server=connected]", { state: "attached" });
    const from = logs.length;
    await writeFile(file, good.replace("uma conversa sobre carreira", "uma conversa on-line sobre carreira"));
    // The fixture's placeholder addresses are warnings too: the panel lists them all.
    const panel = page.locator("#cafe-dev-warnings");
    const warning = panel.locator(".cafe-dev-warning", { hasText: "on-line" });
    await warning.waitFor({ state: "attached", timeout: 15_000 });
    expect(await panel.locator("summary").innerText()).toMatch(/^\d+ avisos? no conteúdo$/);
    expect(await warning.isVisible()).toBe(false);
    await panel.locator("summary").click();
    expect(await warning.innerText()).toMatch(/articles\/primeiro\.md:6: escreva “online”, não “on-line” \[grafia\]$/);
    // A warning is no error: no overlay covers the page, and the edit reached it.
    expect(await page.locator("#cafe-dev-overlay").count()).toBe(0);
    await page.waitForSelector("text=uma conversa on-line sobre carreira", { timeout: 10_000 });
    await expect.poll(() => logs.slice(from).some((l) => /^warning .*articles\/primeiro\.md:6: escreva “online”/.test(l)), { timeout: 10_000 }).toBe(true);

    // Fixed: the warning leaves the panel.
    await writeFile(file, good);
    await panel.locator(".cafe-dev-warning", { hasText: "on-line" }).waitFor({ state: "detached", timeout: 15_000 });
    await rm(rules);
    await page.close();
  });
});
