/** Every page of the real site passes the W3C Nu HTML Checker (vnu-jar, needs Java). */
import { describe, expect, it } from "vitest";
import { execFile } from "node:child_process";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import vnu from "vnu-jar";
import { buildSite } from "../engine/build.js";
import { FolderWriter } from "../engine/output.js";
import { buildImagesFixture, projectRoot } from "./helpers.js";
import { theme } from "../templates/theme.js";

const run = promisify(execFile);

/** The Nu checker's errors for these pages, as `file:line: message` relative to `root`. */
async function nuErrors(root: string, pages: string[]): Promise<string[]> {
  const { stderr } = await run("java", ["-jar", vnu, "--errors-only", "--format", "json", ...pages], {
    maxBuffer: 16 * 1024 * 1024,
  }).catch((error: { stderr?: string }) => ({ stderr: error.stderr ?? String(error) }));
  const messages = (JSON.parse(stderr || '{"messages":[]}') as { messages: { type: string; url: string; message: string; lastLine?: number }[] }).messages;
  return messages.filter((m) => m.type === "error").map((m) => `${path.relative(root, m.url.replace("file:", ""))}:${m.lastLine}: ${m.message}`);
}

describe("HTML validity", () => {
  it("every built page passes the Nu HTML Checker with no errors", async () => {
    const outDir = path.join(await mkdtemp(path.join(tmpdir(), "cafe-vnu-")), "dist");
    const writer = new FolderWriter(outDir);
    await writer.begin();
    const result = await buildSite({ contentDir: path.join(projectRoot, "content"), projectRoot, theme, writer });
    expect(result.ok).toBe(true);
    const pages = result.routes.map((r) => path.join(outDir, r.outFile));
    expect(pages.length).toBe(15);
    expect(await nuErrors(outDir, pages)).toEqual([]);
  }, 120_000);

  it("pages with a cover and images in the body (the images fixture) pass too", async () => {
    const outDir = await buildImagesFixture();
    const pages = ["index.html", "com-fotos.html", "sem-fotos.html", "404.html"].map((f) => path.join(outDir, f));
    expect(await nuErrors(outDir, pages)).toEqual([]);
  }, 120_000);
});
