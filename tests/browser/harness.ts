/**
 * Browser tests' harness: builds the real site, serves it with the project's own preview
 * server and drives Debian's Chromium through playwright-core (never a downloaded browser).
 */
import { existsSync } from "node:fs";
import path from "node:path";
import type http from "node:http";
import { createRequire } from "node:module";
import { chromium, type Browser, type Page } from "playwright-core";
import { serve } from "../../engine/servers/static-server.js";
import { realSite } from "../helpers.js";

const CANDIDATES = [process.env.CHROMIUM_PATH, "/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"];

/** The Chromium to drive, or undefined (with the reason printed) when there is none. */
export function findChromium(): string | undefined {
  const found = CANDIDATES.find((p): p is string => !!p && existsSync(p));
  if (!found) {
    const message =
      "Browser tests need Chromium and none was found. Install it with `apt-get install -y chromium` " +
      "(or set CHROMIUM_PATH to a Chromium binary).";
    if (process.env.REQUIRE_BROWSER) throw new Error(`${message} REQUIRE_BROWSER is set, so this is a failure.`);
    console.warn(`\n${message} Skipping the browser tests.\n`);
  }
  return found;
}

export const chromiumPath = findChromium();

export interface Harness {
  base: string;
  browser: Browser;
  close(): Promise<void>;
}

/** Serves the real site, or the built folder `root`, and opens the browser. */
export async function startHarness(root?: string): Promise<Harness> {
  if (!root) {
    const site = realSite();
    if (site.errors.length > 0) throw new Error(site.errors.join("\n"));
    root = site.dir;
  }
  const { url, server } = await serve({ root, port: 0, host: "127.0.0.1" });
  const browser = await launchChromium();
  return {
    base: url,
    browser,
    async close() {
      await browser.close();
      await new Promise<void>((resolve) => (server as http.Server).close(() => resolve()));
    },
  };
}

/** Debian's Chromium, headless, with the flags this machine's closed network needs. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: chromiumPath,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
      "--disable-quic",
    ],
  });
}

const axePath = createRequire(import.meta.url).resolve("axe-core/axe.min.js");

/** axe-core's violations on the page open in `page`, one line each. */
export async function axeViolations(page: Page): Promise<string[]> {
  await page.addScriptTag({ path: axePath });
  return page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run: (ctx: Document, opts: object) => Promise<{ violations: { id: string; help: string; nodes: { target: string[] }[] }[] }> } }).axe;
    const result = await axe.run(document, { resultTypes: ["violations"] });
    return result.violations.map((v) => `${v.id}: ${v.help} (${v.nodes.slice(0, 3).map((n) => n.target.join(" ")).join(", ")})`);
  });
}
