/**
 * Help while typing: JSON Schemas of the site's YAML files (site.yaml, the theme's
 * collections, cards.yaml…, and the editorial rules, rules.yaml), generated from the theme's zod schemas with zod 4's
 * `z.toJSONSchema`, and the VS Code settings that map each schema to its file (the YAML
 * extension's `yaml.schemas`). An author gets completion, each key's description and a red
 * underline under a misspelt key or a wrong type before building.
 *
 * The build writes them (only files whose bytes changed, never into the site or its cache);
 * a test fails when the committed files are older than the theme (or the engine, for rules.yaml).
 */
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { writeFileAtomic } from "../lib/files.js";
import { applyEdits, modify, parse, type ParseError } from "jsonc-parser";
import { z } from "zod";
import { engineSiteSettings } from "../stages/load/content-model.js";
import { editorialRulesSchema, RULES_FILE } from "../stages/load/rules-model.js";
import type { ContentModel } from "../stages/load/content.js";

/** Where the schemas go, relative to the project root (beside the settings that name them). */
export const SCHEMA_DIR = ".vscode/schemas";

export interface EditorSchema {
  /** The YAML file it describes, relative to the content folder: `site.yaml`. */
  yaml: string;
  /** The schema's file name: `site.schema.json`. */
  file: string;
  /** The schema, as written. */
  json: string;
}

/**
 * The JSON Schema of each YAML file of the content. Draft-07, because the YAML extension of
 * VS Code validates draft-07 (not 2020-12's `prefixItems`, which zod writes for tuples by
 * default); the input side of each schema (what an author writes, before zod's transforms);
 * a refinement JSON Schema cannot say (`totalScore` = the sum…) is left to the build.
 */
export function editorSchemas(model: Pick<ContentModel, "site" | "collections">, themeName: string, { rules = false } = {}): EditorSchema[] {
  const files = [
    { yaml: "site.yaml", schema: model.site },
    ...Object.values(model.collections).map((c) => ({ yaml: c.file, schema: c.schema })),
    // The engine's own file, for a site that has one: its editorial rules.
    ...(rules ? [{ yaml: RULES_FILE, schema: editorialRulesSchema as z.ZodType }] : []),
  ];
  return files.map(({ yaml, schema }) => {
    const generated = z.toJSONSchema(schema, { target: "draft-7", io: "input", unrepresentable: "any" }) as Record<string, unknown>;
    // site.yaml also holds the engine's own keys (`redirects`), which the theme's schema never sees.
    if (yaml === "site.yaml" && generated.properties && typeof generated.properties === "object") {
      const engine = z.toJSONSchema(z.object(engineSiteSettings), { target: "draft-7", io: "input", unrepresentable: "any" }) as { properties?: object };
      generated.properties = { ...generated.properties, ...engine.properties };
    }
    const { $schema, ...rest } = generated;
    const json = {
      $schema,
      $comment: `Generated from the zod schemas of the theme '${themeName}' by npm run build: do not edit (edit the theme's schema instead).`,
      title: yaml,
      ...rest,
    };
    return { yaml, file: `${yaml.replace(/\.ya?ml$/, "")}.schema.json`, json: `${JSON.stringify(json, null, 2)}\n` };
  });
}

/** Writes `data` unless the file already holds exactly it; true when it wrote. */
async function writeIfChanged(file: string, data: string): Promise<boolean> {
  const old = await readFile(file, "utf8").catch(() => undefined);
  if (old === data) return false;
  await writeFileAtomic(file, data);
  return true;
}

const posix = (p: string) => p.split(path.sep).join("/");
const FORMAT = { formattingOptions: { insertSpaces: true, tabSize: 2, eol: "\n" } };

/**
 * `text` (a JSON-with-comments settings file, or nothing) with `key` set to `value`, every
 * other setting and comment kept; undefined when the file is not readable JSON (left alone).
 */
function withSetting(text: string | undefined, key: (string | number)[], value: unknown): string | undefined {
  const base = text ?? "{}\n";
  const errors: ParseError[] = [];
  const parsed = parse(base, errors, { allowTrailingComma: true });
  if (errors.length > 0 || typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return undefined;
  return applyEdits(base, modify(base, key, value, FORMAT));
}

/**
 * Writes the schemas into `<projectRoot>/.vscode/schemas/`, maps each to its YAML file of
 * `contentDir` in `.vscode/settings.json` (`yaml.schemas`; other settings and comments are
 * kept) and recommends the YAML extension (`.vscode/extensions.json`). Returns the files it
 * changed (none when all were up to date), every file it keeps (`files`, absolute paths) and
 * what it could not do.
 */
export async function writeEditorSchemas(input: {
  projectRoot: string;
  contentDir: string;
  model: Pick<ContentModel, "site" | "collections">;
  themeName: string;
}): Promise<{ written: string[]; files: string[]; problems: string[] }> {
  const { projectRoot, contentDir } = input;
  const written: string[] = [];
  const files: string[] = [];
  const problems: string[] = [];
  const schemas = editorSchemas(input.model, input.themeName, { rules: existsSync(path.join(contentDir, RULES_FILE)) });
  for (const schema of schemas) {
    const file = path.join(projectRoot, SCHEMA_DIR, schema.file);
    files.push(file);
    if (await writeIfChanged(file, schema.json)) written.push(path.relative(projectRoot, file));
  }
  const contentFolder = posix(path.relative(projectRoot, contentDir));
  const vscode = path.join(projectRoot, ".vscode");

  const settingsFile = path.join(vscode, "settings.json");
  let settings = await readFile(settingsFile, "utf8").catch(() => undefined);
  for (const schema of schemas) {
    const next = withSetting(settings, ["yaml.schemas", `./${SCHEMA_DIR}/${schema.file}`], [`${contentFolder}/${schema.yaml}`]);
    if (next === undefined) {
      problems.push(`${path.relative(projectRoot, settingsFile)} is not valid JSON: fix it, or map the schemas in ${SCHEMA_DIR}/ yourself`);
      settings = undefined;
      break;
    }
    settings = next;
  }
  if (settings !== undefined && (await writeIfChanged(settingsFile, settings))) written.push(path.relative(projectRoot, settingsFile));
  files.push(settingsFile);

  const extensionsFile = path.join(vscode, "extensions.json");
  const extensions = await readFile(extensionsFile, "utf8").catch(() => undefined);
  const recommended = (parse(extensions ?? "{}", [], { allowTrailingComma: true }) as { recommendations?: unknown } | undefined)?.recommendations;
  const list = Array.isArray(recommended) ? recommended : [];
  if (!list.includes("redhat.vscode-yaml")) {
    const next = withSetting(extensions, ["recommendations"], [...list, "redhat.vscode-yaml"]);
    if (next !== undefined && (await writeIfChanged(extensionsFile, next))) written.push(path.relative(projectRoot, extensionsFile));
  }
  files.push(extensionsFile);
  return { written, files, problems };
}
