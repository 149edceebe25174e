/**
 * `npm run dev` cannot wedge: a syntax error saved in a template, a client module or an
 * engine file shows the overlay (file:line and frame) in a real browser and the same error in
 * the terminal; the fix brings the page back. engine/servers/dev-protocol.ts is loaded by the builder
 * process before anything else: broken, the process dies before it is ready, and its death
 * is what the overlay shows. Run on a copy of the project's code.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import type { Browser } from "playwright-core";
import type { DevServer } from "../../engine/servers/dev-server.js";
import { editedFixture, projectCopy } from "../helpers.js";
import { chromiumPath, launchChromium } from "./harness.js";

let dev: DevServer;
let browser: Browser;
let project = "";
const logs: string[] = [];

beforeAll(async () => {
  if (!chromiumPath) return;
  project = await projectCopy();
  const content = await editedFixture("basic", {});
  const outDir = path.join(await mkdtemp(path.join(tmpdir(), "cafe-dev-faults-")), "out");
  const { startDev } = (await import(pathToFileURL(path.join(project, "engine/servers/dev-server.ts")).href)) as typeof import("../../engine/servers/dev-server.js");
  dev = await startDev({
    projectRoot: project,
    contentDir: content,
    outDir,
    port: 0,
    host: "127.0.0.1",
    themeModule: path.join(project, "templates/theme.tsx"),
    themeFolders: ["templates", "client"],
    log: (line) => logs.push(line),
  });
  browser = await launchChromium();
}, 90_000);
afterAll(async () => {
  await browser?.close();
  await dev?.close();
});

(chromiumPath ? describe : describe.skip)("dev mode under faults in the code", () => {
  it.each(["templates/footer.tsx", "client/main.ts", "engine/stages/markdown/article-markdown.ts", "engine/servers/dev-protocol.ts"])(
    "a syntax error saved in %s shows the overlay and the terminal error; the fix brings the page back",
    async (file) => {
      const page = await browser.newPage();
      await page.goto(`${dev.url}/primeiro`);
      await page.waitForSelector("html[data-dev-server=connected]", { state: "attached" });
      const target = path.join(project, file);
      const good = await readFile(target, "utf8");
      const from = logs.length;
      // An unclosed call on the file's last line: a syntax error there.
      await writeFile(target, `${good}\nconst broken = (;\n`);
      const brokenLine = good.split("\n").length + 1;
      const overlay = page.locator("#cafe-dev-overlay");
      await overlay.waitFor({ timeout: 20_000 });
      expect(await overlay.locator(".cafe-dev-location").first().innerText()).toContain(`${file}:${brokenLine}`);
      expect(await overlay.locator("pre").first().innerText()).toContain("const broken = (;");
      expect(logs.slice(from).join("\n")).toContain(`${file}:${brokenLine}`);

      await writeFile(target, good);
      await page.locator("#cafe-dev-overlay").waitFor({ state: "detached", timeout: 20_000 });
      await page.waitForSelector("h1", { timeout: 10_000 });
      expect(await page.locator("h1").first().innerText()).toBe("Primeiro artigo");
      await page.close();
    },
    60_000,
  );
});
