/**
 * A failure of the code as the dev server reports it (terminal and overlay): its place once,
 * as the location, not again at the start of the message (issue 39).
 */
import { describe, expect, it } from "vitest";
import { mkdtemp, mkdir, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { crashReply, reportCrash } from "../engine/servers/dev-protocol.js";

describe("a crash of the site's code", () => {
  it("prints its location once: a bundler error that starts with the place is not prefixed with it again", async () => {
    const root = await mkdtemp(path.join(tmpdir(), "cafe-crash-"));
    await mkdir(path.join(root, "theme"));
    await writeFile(path.join(root, "theme/theme.tsx"), "export const a = 1;\nconst broken = (;\n");
    // What the launcher prints when esbuild cannot bundle the theme.
    const report = reportCrash('theme/theme.tsx:2:17: Unexpected ";"\n    const broken = (;\n', root);
    expect(report.location).toBe("theme/theme.tsx:2:17");
    expect(report.message).toBe('Unexpected ";"');
    const { printed } = crashReply(report);
    expect(printed.split("\n")[0]).toBe('theme/theme.tsx:2:17: Unexpected ";"');
    expect(printed.match(/theme\/theme\.tsx:2:17/g)).toHaveLength(1);
    expect(printed).toContain("> 2 | const broken = (;");
  });
});
