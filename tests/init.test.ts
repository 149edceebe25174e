/**
 * `cafe init` (issue 39): a small, complete, English starter site that builds at once, with
 * no error and no warning; it never overwrites a file, and completes a package.json without
 * changing what it has. (tests/site-outside.test.ts runs it from the packed engine.)
 */
import { describe, expect, it } from "vitest";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { initSite, STARTER_DEV_DEPENDENCIES } from "../engine/tools/init-site.js";
import { SiteBuilder } from "../engine/pipeline/site-builder.js";
import { MemoryWriter } from "../engine/stages/write/writers.js";
import { theme } from "../engine/starter/theme/theme.js";
import { parseHtml, projectRoot, text, testCode } from "./helpers.js";

const engineDir = path.join(projectRoot, "engine");
const fresh = () => mkdtemp(path.join(tmpdir(), "cafe-init-"));

describe("cafe init", () => {
  it("writes a starter site that builds at once: home, posts, tags, 404, no draft, no error and no warning", async () => {
    const dir = await fresh();
    const report = await initSite(dir, engineDir);
    // The packages `npm install` would bring (React, which the island's chunk bundles), as this project has them.
    await symlink(path.join(projectRoot, "node_modules"), path.join(dir, "node_modules"));
    expect(report.written).toEqual(expect.arrayContaining([".gitignore", "README.md", "cafe.config.ts", "tsconfig.json", "theme/theme.tsx", "theme/style.css", "content/site.yaml", "public/favicon.svg"]));
    expect(report.packageJson).toBe("created");

    const writer = new MemoryWriter();
    const result = await new SiteBuilder({ codeVersion: testCode(), contentDir: path.join(dir, "content"), projectRoot: dir, theme, publicDir: path.join(dir, "public"), themeFolders: ["theme"] }).build(writer);
    expect(result.errors).toEqual([]);
    expect(result.warnings).toEqual([]);
    expect(result.routes.map((r) => r.path)).toEqual(["/", "/404", "/tags/getting-started", "/tags/writing", "/welcome", "/writing-posts"]);

    const home = parseHtml(writer.text("index.html"));
    expect(home.documentElement.getAttribute("lang")).toBe("en");
    expect([...home.querySelectorAll(".posts li")].map((li) => [text(li.querySelector("a")), text(li.querySelector("time"))])).toEqual([
      ["How to write a post", "Jan 20, 2026"],
      ["Welcome to your new site", "Jan 15, 2026"],
    ]);
    const post = parseHtml(writer.text("welcome.html"));
    expect(post.querySelector("table")).not.toBeNull();
    // Its island: the post's "Copy the link" button, rendered hidden (it does nothing without
    // JavaScript), woken when the browser is idle by the engine's runtime, the page's one script.
    const island = post.querySelector("[data-island=copy-link]");
    expect(island?.getAttribute("data-wake")).toBe("idle");
    expect(island?.querySelector("button")?.hasAttribute("hidden")).toBe(true);
    expect(text(island?.querySelector("button"))).toBe("Copy the link to this post");
    expect([...post.querySelectorAll("script")].map((s) => s.getAttribute("src"))).toEqual([expect.stringMatching(/^\/assets\/islands-[A-Z0-9]+\.js$/)]);
    expect(home.querySelector("script")).toBeNull();
    expect(post.querySelector("link[rel=icon]")?.getAttribute("href")).toBe("/favicon.svg");
    expect(writer.files.has("favicon.svg")).toBe(true);
    expect(text(parseHtml(writer.text("404.html")).querySelector("h1"))).toBe("Page not found");
    expect(text(parseHtml(writer.text("tags/writing.html")).querySelector(".posts a"))).toBe("How to write a post");
  });

  it("writes the npm scripts and the packages the site needs into a new package.json", async () => {
    const dir = await fresh();
    const report = await initSite(dir, engineDir);
    const pkg = JSON.parse(await readFile(path.join(dir, "package.json"), "utf8")) as Record<string, Record<string, string>>;
    expect(pkg.scripts).toMatchObject({ dev: "cafe dev", build: "cafe build", preview: "cafe preview", new: "cafe new", typecheck: "tsc --noEmit" });
    expect(Object.keys(pkg.dependencies!)).toEqual(["cafe-engine", "react", "react-dom", "zod"]);
    expect(Object.keys(pkg.devDependencies!)).toEqual(["typescript", "@types/node", "@types/react", "@types/react-dom"]);
    expect(report.added).toEqual(["cafe-engine", "react", "react-dom", "zod", "typescript", "@types/node", "@types/react", "@types/react-dom"]);
  });

  it("completes an existing package.json without changing a script or a dependency it has", async () => {
    const dir = await fresh();
    const before = { name: "mine", scripts: { build: "make site" }, dependencies: { "cafe-engine": "file:../cafe-engine.tgz", react: "^19.0.0" } };
    await writeFile(path.join(dir, "package.json"), JSON.stringify(before));
    const report = await initSite(dir, engineDir);
    const pkg = JSON.parse(await readFile(path.join(dir, "package.json"), "utf8")) as Record<string, Record<string, string>>;
    expect(pkg.name).toBe("mine");
    expect(pkg.scripts!.build).toBe("make site");
    expect(pkg.scripts!.dev).toBe("cafe dev");
    expect(pkg.dependencies!["cafe-engine"]).toBe("file:../cafe-engine.tgz");
    expect(pkg.dependencies!.react).toBe("^19.0.0");
    expect(report.packageJson).toBe("updated");
    expect(report.added).not.toContain("cafe-engine");
  });

  it("overwrites nothing: a folder with a site in it is left as it was, every file in the way named", async () => {
    const dir = await fresh();
    await writeFile(path.join(dir, "cafe.config.ts"), "// mine\n");
    await writeFile(path.join(dir, "README.md"), "# Mine\n");
    await expect(initSite(dir, engineDir)).rejects.toThrow(/files the starter site would write: .*README\.md.*cafe\.config\.ts/);
    expect(await readFile(path.join(dir, "README.md"), "utf8")).toBe("# Mine\n");
    expect(existsSync(path.join(dir, "content"))).toBe(false);
    expect(existsSync(path.join(dir, "package.json"))).toBe(false);
  });

  it("asks for the type checker this engine is developed with", async () => {
    const root = JSON.parse(await readFile(path.join(projectRoot, "package.json"), "utf8")) as { devDependencies: Record<string, string> };
    for (const [name, version] of Object.entries(STARTER_DEV_DEPENDENCIES)) expect(root.devDependencies[name]).toBe(version);
  });
});
