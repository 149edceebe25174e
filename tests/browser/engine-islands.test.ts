/**
 * The engine's islands in a real Chromium, on a site that is not this blog (the islands
 * fixture): an island woken when visible hydrates with no interaction and then works; one
 * woken on intent waits for the reader, and the click that wakes it is not lost; the page's
 * policy lets the runtime and the chunks load (no violation in the console).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdir, mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Page } from "playwright-core";
import { SiteBuilder } from "../../engine/pipeline/site-builder.js";
import { MemoryWriter } from "../../engine/stages/write/writers.js";
import { islandTheme } from "../fixtures/islands/theme/theme.js";
import { editedFixture, projectRoot } from "../helpers.js";
import { chromiumPath, startHarness, type Harness } from "./harness.js";

let h: Harness;
beforeAll(async () => {
  if (!chromiumPath) return;
  // The fixture, with an article whose body has an island woken on intent.
  const content = await editedFixture("islands", { "content/articles/counted.md": '---\ntitle: Counted\n---\n\n:::counter{start="2" label="Votes"}\n:::\n' });
  const writer = new MemoryWriter();
  const siteRoot = path.join(projectRoot, "tests/fixtures/islands");
  const result = await new SiteBuilder({ contentDir: path.join(content, "content"), projectRoot: siteRoot, theme: islandTheme(), publishedRoutes: false }).build(writer);
  if (!result.ok) throw new Error(result.errors.map(String).join("\n"));
  const out = await mkdtemp(path.join(tmpdir(), "cafe-islands-site-"));
  for (const [file, data] of writer.files) {
    await mkdir(path.dirname(path.join(out, file)), { recursive: true });
    await writeFile(path.join(out, file), data);
  }
  h = await startHarness(out);
});
afterAll(async () => h?.close());

const describeBrowser = chromiumPath ? describe : describe.skip;

async function open(route: string): Promise<{ page: Page; logs: string[]; close: () => Promise<void> }> {
  const context = await h.browser.newContext();
  const page = await context.newPage();
  // What went wrong: a message in the console (a policy's violation, an island that could not
  // start), an error thrown, a file that did not load (but the favicon the fixture has none of).
  const logs: string[] = [];
  page.on("console", (m) => void (m.text().startsWith("Failed to load resource") || logs.push(`${m.type()}: ${m.text()}`)));
  page.on("pageerror", (e) => logs.push(`pageerror: ${e.message}`));
  page.on("response", (r) => void (r.status() >= 400 && !r.url().endsWith("/favicon.ico") && logs.push(`${r.status()} ${r.url()}`)));
  await page.goto(h.base + route);
  return { page, logs, close: () => context.close() };
}

describeBrowser("the engine's islands in a browser", () => {
  it("an island woken when visible hydrates with no interaction, then counts", async () => {
    const { page, logs, close } = await open("/");
    const island = page.locator("[data-island=counter]");
    await expect.poll(() => island.getAttribute("data-hydrated")).toBe("true");
    await island.getByRole("button").click();
    await expect.poll(() => island.getByRole("button").innerText()).toBe("Clicks: 2");
    expect(logs).toEqual([]);
    await close();
  });

  it("an island woken on intent stays HTML until the reader reaches for it, and the first click counts", async () => {
    const { page, logs, close } = await open("/counted");
    const island = page.locator("[data-island=counter]");
    await page.waitForLoadState("networkidle");
    expect(await island.getAttribute("data-hydrated")).toBeNull();
    await island.getByRole("button").click();
    await expect.poll(() => island.getByRole("button").innerText()).toBe("Votes: 3");
    expect(await island.getAttribute("data-hydrated")).toBe("true");
    expect(logs).toEqual([]);
    await close();
  });
});
