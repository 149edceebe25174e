/** A site's config file as `cafe` reads it: its defaults, the theme's folders it finds, and its mistakes at their line. */
import { describe, expect, it } from "vitest";
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { resolveConfig, type SiteSetup } from "../engine/config.js";
import { ContentError } from "../engine/lib/errors.js";
import { notebook } from "./fixtures/notebook/theme/theme.js";

/** A site folder whose cafe.config.ts holds `text`; what resolveConfig makes of `exported`. */
async function resolve(text: string, exported: unknown, sources: string[] = []) {
  const root = await mkdtemp(path.join(tmpdir(), "cafe-config-"));
  await writeFile(path.join(root, "cafe.config.ts"), text);
  return { root, setup: resolveConfig(exported, root, "cafe.config.ts", sources) };
}

describe("a site's config", () => {
  it("gives the folders their defaults, from the site's folder, and the theme's folders from the code the config imports", async () => {
    const { root, setup } = await resolve("export default defineConfig({ theme });\n", { default: { theme: notebook } }, ["cafe.config.ts", "theme/theme.tsx", "theme/parts/list.tsx"]);
    expect(setup).not.toBeInstanceOf(ContentError);
    const { contentDir, publicDir, outDir, themeFolders } = setup as SiteSetup;
    expect([contentDir, publicDir, outDir]).toEqual(["content", "public", "dist"].map((d) => path.join(root, d)));
    expect(themeFolders).toEqual(["cafe.config.ts", "theme"]);
  });

  it("says which key it does not know, at its line, with the one it meant", async () => {
    const { setup } = await resolve('export default defineConfig({\n  theme,\n  contnet: "notes",\n});\n', { default: { theme: notebook, contnet: "notes" } });
    expect(setup).toBeInstanceOf(ContentError);
    const error = setup as ContentError;
    expect([error.location, error.message, error.hint]).toEqual(["cafe.config.ts:3:3", "unknown config key `contnet`", "did you mean `content`?"]);
  });

  it("says what to write when there is no default export, or no theme in it", async () => {
    expect(((await resolve("export const theme = 1;\n", { theme: notebook })).setup as ContentError).message).toBe("the config file has no default export");
    const noTheme = (await resolve("export default defineConfig({ theme: undefined });\n", { default: { theme: undefined } })).setup as ContentError;
    expect([noTheme.location, noTheme.message]).toEqual(["cafe.config.ts:1:31", "`theme` is not a theme"]);
  });
});
