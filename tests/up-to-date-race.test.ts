/**
 * The up-to-date note (incremental/fingerprint.ts) says what a build was made from: the
 * inputs as they were when it started. A build that records new published addresses changes
 * one input itself (content/published-routes.txt); the note then takes that file as the build
 * left it, and every other input as the build found it. A file edited while the build ran
 * (after it was read) makes the next build run, never "up to date" over a stale page.
 */
import { describe, expect, it, vi } from "vitest";
import { readFileSync, writeFileSync } from "node:fs";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { buildProject } from "../engine/pipeline/project.js";
import { projectInputs } from "../engine/incremental/fingerprint.js";
import { notebook } from "./fixtures/notebook/theme/theme.js";
import { editedFixture } from "./helpers.js";

describe("the up-to-date note after a build that published new addresses", () => {
  it("an article saved while the build ran is built by the next build, not called up to date", async () => {
    // A new note: its address is new, so the build adds it to published-routes.txt.
    const dir = await editedFixture("notebook", { "content/articles/notes/a-new-note.md": "---\ntitle: A new note\n---\n\nNew.\n" });
    const work = await mkdtemp(path.join(tmpdir(), "cafe-race-"));
    const article = path.join(dir, "content/articles/notes/margins.md");
    const options = { projectRoot: dir, theme: notebook, themeFolders: ["theme"], outDir: path.join(work, "dist"), noCache: true, codeVersion: "test" };
    const log = vi.spyOn(console, "log").mockImplementation(() => {});
    try {
      // The build records the new note's address; the article is saved once its page is written.
      const first = await buildProject({ ...options, onPagesWritten: () => writeFileSync(article, `${readFileSync(article, "utf8")}\nSaved while the build ran.\n`) });
      expect(first).toBe(0);
      expect(log.mock.calls.flat().join("\n")).toMatch(/Recorded \d+ new published address/);
      expect(readFileSync(path.join(work, "dist/notes/margins.html"), "utf8")).not.toContain("Saved while the build ran.");
      log.mockClear();
      expect(await buildProject(options)).toBe(0);
      expect(log.mock.calls.flat().join("\n")).not.toContain("up to date");
      expect(readFileSync(path.join(work, "dist/notes/margins.html"), "utf8")).toContain("Saved while the build ran.");
      // Nothing changed since: now it is.
      log.mockClear();
      expect(await buildProject(options)).toBe(0);
      expect(log.mock.calls.flat().join("\n")).toContain("up to date");
    } finally {
      log.mockRestore();
      await rm(work, { recursive: true, force: true });
      await rm(dir, { recursive: true, force: true });
    }
  }, 60_000);
});

describe("the content files' states the inputs' fingerprint took (the load takes them instead of stat'ing each article again)", () => {
  it("are let go once the load took them: no file's state is held while the pages are rendered (issue 38)", async () => {
    // V8's collector, asked for: the states are gone only if nothing holds them.
    setFlagsFromString("--expose-gc");
    const gc = runInNewContext("gc") as () => void;
    const dir = await editedFixture("notebook", {});
    const work = await mkdtemp(path.join(tmpdir(), "cafe-states-"));
    const log = vi.spyOn(console, "log").mockImplementation(() => {});
    try {
      const engine = path.relative(dir, path.resolve(import.meta.dirname, "../engine"));
      const fingerprint = await projectInputs(dir, path.join(dir, "content"), ["theme", engine, "public"]);
      const take = fingerprint.takeStated;
      let states: WeakRef<object> | undefined;
      let heldWhileWriting: boolean | undefined;
      const inputs = {
        ...fingerprint,
        takeStated: () => {
          const taken = take();
          if (taken) states = new WeakRef(taken);
          return taken;
        },
      };
      const options = { projectRoot: dir, theme: notebook, themeFolders: ["theme"], outDir: path.join(work, "dist"), noCache: true, codeVersion: "test", inputs };
      const built = await buildProject({
        ...options,
        onPagesWritten: () => {
          gc();
          heldWhileWriting = states?.deref() !== undefined;
        },
      });
      expect(built).toBe(0);
      expect(states).toBeDefined();
      expect(heldWhileWriting).toBe(false);
    } finally {
      log.mockRestore();
      await rm(work, { recursive: true, force: true });
      await rm(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
