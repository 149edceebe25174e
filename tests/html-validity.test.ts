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
import { projectRoot } from "./helpers.js";
import { theme } from "../templates/theme.js";

const run = promisify(execFile);

describe("HTML validity", () => {
  it("every built page passes the Nu HTML Checker with no errors", async () => {
    const outDir = path.join(await mkdtemp(path.join(tmpdir(), "cafe-vnu-")), "dist");
    const writer = new FolderWriter(outDir);
    await writer.begin();
    const result = await buildSite({ contentDir: path.join(projectRoot, "content"), projectRoot, theme, writer });
    expect(result.ok).toBe(true);
    const pages = result.routes.map((r) => path.join(outDir, r.outFile));
    expect(pages.length).toBe(15);
    const { stderr } = await run("java", ["-jar", vnu, "--errors-only", "--format", "json", ...pages], {
      maxBuffer: 16 * 1024 * 1024,
    }).catch((error: { stderr?: string }) => ({ stderr: error.stderr ?? String(error) }));
    const messages = (JSON.parse(stderr || '{"messages":[]}') as { messages: { type: string; url: string; message: string; lastLine?: number }[] }).messages;
    const errors = messages.filter((m) => m.type === "error").map((m) => `${path.relative(outDir, m.url.replace("file:", ""))}:${m.lastLine}: ${m.message}`);
    expect(errors).toEqual([]);
  }, 120_000);
});
