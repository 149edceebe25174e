/**
 * Every page of the real site, and the pages of the images fixture (a cover, images in the
 * body), pass the W3C Nu HTML Checker (vnu-jar, needs Java 17).
 *
 * Like the browser and nginx tests: without Java this test is skipped with the reason and the
 * command that installs it; with REQUIRE_JAVA=1 (as .ci/run sets) a missing Java is a failure
 * instead. SKIP_HTML_VALIDITY=1 leaves it out on purpose (.ci/run ignores it).
 */
import { describe, expect, it } from "vitest";
import { execFile, execFileSync } from "node:child_process";
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import vnu from "vnu-jar";
import { buildSite } from "../engine/pipeline/site-builder.js";
import { FolderWriter } from "../engine/stages/write/writers.js";
import { buildImagesFixture, projectRoot } from "./helpers.js";
import { theme } from "../templates/theme.js";

const run = promisify(execFile);
const NAME = "every built page passes the Nu HTML Checker with no errors";

function javaProblem(): string | undefined {
  try {
    execFileSync("java", ["-version"], { stdio: "pipe" });
    return undefined;
  } catch (error) {
    return `java did not run (${(error as Error).message.split("\n")[0]})`;
  }
}

interface Message {
  type: string;
  url?: string;
  message: string;
  lastLine?: number;
}

/** Runs the checker on the files; its JSON report, or a failure saying what it printed instead. */
async function check(files: string[]): Promise<Message[]> {
  const { stderr } = await run("java", ["-jar", vnu, "--errors-only", "--format", "json", ...files], { maxBuffer: 16 * 1024 * 1024 }).catch(
    (error: { stderr?: string; message: string }) => ({ stderr: error.stderr || error.message }),
  );
  try {
    return (JSON.parse(stderr) as { messages: Message[] }).messages;
  } catch {
    throw new Error(`the Nu HTML Checker did not report (is Java 17 installed?):\n${stderr.slice(0, 2000)}`);
  }
}

const javaMissing = javaProblem();
if (javaMissing) {
  const message = `The HTML validity test needs Java 17 for the Nu HTML Checker, and ${javaMissing}. Install it with \`apt-get install -y default-jre-headless\`.`;
  if (process.env.REQUIRE_JAVA) throw new Error(`${message} REQUIRE_JAVA is set, so this is a failure.`);
  console.warn(`\n${message} Skipping it (set REQUIRE_JAVA=1 to make this a failure).\n`);
}

describe("HTML validity", () => {
  if (process.env.SKIP_HTML_VALIDITY) {
    const reason = "SKIP_HTML_VALIDITY is set";
    console.warn(`\nHTML validity: skipped because ${reason}; unset it to run the Nu HTML Checker (needs Java 17).\n`);
    it.skip(`${NAME} (skipped: ${reason})`, () => {});
    return;
  }

  it.skipIf(javaMissing)(NAME, async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "cafe-vnu-"));
    const outDir = path.join(dir, "dist");
    const writer = new FolderWriter(outDir);
    await writer.begin();
    const result = await buildSite({ contentDir: path.join(projectRoot, "content"), projectRoot, theme, writer });
    expect(result.ok).toBe(true);
    const images = await buildImagesFixture();
    const pages = [
      ...result.routes.map((r) => path.join(outDir, r.outFile)),
      ...["index.html", "com-fotos.html", "sem-fotos.html", "404.html"].map((f) => path.join(images, f)),
    ];
    expect(pages.length).toBe(19);
    // A page known to be invalid, checked with them: proves the checker ran and reports.
    const control = path.join(dir, "control.html");
    await writeFile(control, '<!DOCTYPE html><html lang="pt"><head><title>x</title></head><body><p><div>x</div></p></body></html>');

    const messages = (await check([control, ...pages])).filter((m) => m.type === "error");
    const where = (m: Message) => decodeURIComponent(String(m.url).replace(/^file:/, ""));
    expect(messages.some((m) => where(m) === control), "the control page's error was reported").toBe(true);
    const errors = messages.filter((m) => where(m) !== control).map((m) => `${where(m)}:${m.lastLine}: ${m.message}`);
    expect(errors).toEqual([]);
  }, 120_000);
});
