/**
 * The JSON Schemas editors read for content/*.yaml (.vscode/schemas/, generated from the
 * theme's zod schemas): committed up to date, accepting the real content, underlining a
 * misspelt key or a wrong value, described, mapped in .vscode/settings.json; and the writer
 * that keeps them current.
 */
import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { mkdir, mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { Ajv } from "ajv";
import { parse as parseJsonc } from "jsonc-parser";
import { parse as parseYaml } from "yaml";
import { editorSchemas, SCHEMA_DIR, writeEditorSchemas } from "../engine/tools/editor-schemas.js";
import { theme } from "../templates/theme.js";
import { projectRoot } from "./helpers.js";

const schemas = editorSchemas(theme, theme.name, { rules: true });
const committed = (file: string) => readFileSync(path.join(projectRoot, SCHEMA_DIR, file), "utf8");
const validator = (file: string) => new Ajv({ allErrors: true, strict: false }).compile(JSON.parse(committed(file)));
const content = (file: string) => parseYaml(readFileSync(path.join(projectRoot, "content", file), "utf8"));

describe("the editors' schemas", () => {
  it("cover site.yaml, each collection of the theme and the editorial rules", () => {
    expect(schemas.map((s) => [s.yaml, s.file])).toEqual([
      ["site.yaml", "site.schema.json"],
      ["cards.yaml", "cards.schema.json"],
      ["editions.yaml", "editions.schema.json"],
      ["rules.yaml", "rules.schema.json"],
    ]);
  });

  it.each(schemas.map((s) => [s.file, s] as const))("%s is up to date with the theme (npm run build regenerates it)", (file, schema) => {
    expect(committed(file), `${SCHEMA_DIR}/${file} is older than the theme's schema: run npm run build and commit it`).toBe(schema.json);
  });

  it("are mapped to their files in .vscode/settings.json, and the YAML extension recommended", () => {
    const settings = parseJsonc(readFileSync(path.join(projectRoot, ".vscode/settings.json"), "utf8")) as Record<string, Record<string, string[]>>;
    expect(settings["yaml.schemas"]).toEqual({
      "./.vscode/schemas/site.schema.json": ["content/site.yaml"],
      "./.vscode/schemas/cards.schema.json": ["content/cards.yaml"],
      "./.vscode/schemas/editions.schema.json": ["content/editions.yaml"],
      "./.vscode/schemas/rules.schema.json": ["content/rules.yaml"],
    });
    const extensions = parseJsonc(readFileSync(path.join(projectRoot, ".vscode/extensions.json"), "utf8")) as { recommendations: string[] };
    expect(extensions.recommendations).toContain("redhat.vscode-yaml");
  });

  it("are JSON Schema draft-07, the dialect VS Code's YAML extension validates", () => {
    for (const s of schemas) expect(JSON.parse(s.json).$schema).toBe("http://json-schema.org/draft-07/schema#");
    // Tuples as draft-07 writes them (items: [..]), not 2020-12's prefixItems the extension rejects.
    expect(committed("cards.schema.json")).not.toContain("prefixItems");
  });

  it("accept the site's own YAML files: no red underline on valid content", () => {
    for (const [file, yaml] of [["site.schema.json", "site.yaml"], ["cards.schema.json", "cards.yaml"], ["editions.schema.json", "editions.yaml"], ["rules.schema.json", "rules.yaml"]] as const) {
      const validate = validator(file);
      expect(validate(content(yaml)), `${yaml}: ${JSON.stringify(validate.errors)}`).toBe(true);
    }
  });

  it("underline a rule of an unknown kind in rules.yaml, and a rule without what its kind needs", () => {
    const validate = validator("rules.schema.json");
    expect(validate({ grafia: { kind: "substitution", swap: { "on-line": "online" } } })).toBe(true);
    expect(validate({ grafia: { kind: "sbstitution", swap: { "on-line": "online" } } })).toBe(false);
    expect(validate({ paragrafos: { kind: "paragraph-length" } })).toBe(false);
  });

  it("underline a misspelt key, a missing one and a wrong value", () => {
    const validate = validator("cards.schema.json");
    const [card] = content("cards.yaml") as Record<string, unknown>[];
    const { excerpt, ...rest } = card!;
    expect(validate([{ ...rest, exerpt: excerpt }])).toBe(false);
    const errors = validate.errors!.map((e) => `${e.instancePath} ${e.message} ${JSON.stringify(e.params)}`);
    expect(errors).toContain('/0 must NOT have additional properties {"additionalProperty":"exerpt"}');
    expect(errors).toContain(`/0 must have required property 'excerpt' {"missingProperty":"excerpt"}`);
    expect(validate([{ ...card, route: "Artigo Novo" }])).toBe(false);
    expect(validate.errors![0]!.instancePath).toBe("/0/route");
    expect(validator("site.schema.json")({ ...content("site.yaml"), newsletter: { ...content("site.yaml").newsletter, delayMs: "soon" } })).toBe(false);
  });

  it("describe each key an author writes in cards.yaml and editions.yaml (shown on hover)", () => {
    const card = JSON.parse(committed("cards.schema.json")).items.properties as Record<string, { description?: string }>;
    const edition = JSON.parse(committed("editions.schema.json")).items.properties as Record<string, { description?: string }>;
    expect(Object.entries({ ...card, ...edition }).filter(([, p]) => !p.description).map(([k]) => k)).toEqual([]);
    expect(card.icon!.description).toContain("lucide");
  });
});

describe("writeEditorSchemas", () => {
  it("writes only what changed, and keeps the other settings and comments of settings.json", async () => {
    const root = await mkdtemp(path.join(tmpdir(), "cafe-schemas-"));
    await mkdir(path.join(root, ".vscode"));
    await writeFile(path.join(root, ".vscode/settings.json"), '{\n  // the author\'s own\n  "editor.wordWrap": "on",\n}\n');
    const input = { projectRoot: root, contentDir: path.join(root, "content"), model: theme, themeName: theme.name };
    const first = await writeEditorSchemas(input);
    expect(first.problems).toEqual([]);
    expect(first.written.sort()).toEqual([".vscode/extensions.json", ".vscode/schemas/cards.schema.json", ".vscode/schemas/editions.schema.json", ".vscode/schemas/site.schema.json", ".vscode/settings.json"]);
    const settings = await readFile(path.join(root, ".vscode/settings.json"), "utf8");
    expect(settings).toContain("// the author's own");
    expect(parseJsonc(settings)["editor.wordWrap"]).toBe("on");
    expect(parseJsonc(settings)["yaml.schemas"]["./.vscode/schemas/site.schema.json"]).toEqual(["content/site.yaml"]);

    expect((await writeEditorSchemas(input)).written).toEqual([]);

    await writeFile(path.join(root, SCHEMA_DIR, "cards.schema.json"), "{}");
    expect((await writeEditorSchemas(input)).written).toEqual([".vscode/schemas/cards.schema.json"]);

    // A site that starts declaring editorial rules gets their schema too.
    await mkdir(path.join(root, "content"));
    await writeFile(path.join(root, "content/rules.yaml"), "{}\n");
    expect((await writeEditorSchemas(input)).written.sort()).toEqual([".vscode/schemas/rules.schema.json", ".vscode/settings.json"]);
  });

  it("leaves a settings.json it cannot read alone, and says so", async () => {
    const root = await mkdtemp(path.join(tmpdir(), "cafe-schemas-"));
    await mkdir(path.join(root, ".vscode"));
    await writeFile(path.join(root, ".vscode/settings.json"), "{ not json");
    const result = await writeEditorSchemas({ projectRoot: root, contentDir: path.join(root, "content"), model: theme, themeName: theme.name });
    expect(result.problems[0]).toMatch(/settings\.json is not valid JSON/);
    expect(await readFile(path.join(root, ".vscode/settings.json"), "utf8")).toBe("{ not json");
  });
});
