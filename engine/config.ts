/**
 * A site's config file: `cafe.config.ts` (or `.mts`, `.js`, `.mjs`) in the site's folder,
 * whose default export is `defineConfig({...})`. The `cafe` command reads it (the launcher
 * bundles it with its theme); every folder it names is relative to the site's folder.
 *
 * The config is code, read again whenever its code or the engine's changes; its folders are
 * kept beside that code's bundle, so that `cafe build` can say "up to date" before loading
 * the theme. Write them as constants, not from the environment.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { ContentError } from "./lib/errors.js";
import { nearest } from "./lib/nearest.js";
import type { Theme } from "./theme.js";

/** The names a config file may have, in the order they are looked for. */
export const CONFIG_FILES = ["cafe.config.ts", "cafe.config.mts", "cafe.config.tsx", "cafe.config.js", "cafe.config.mjs"] as const;

export interface SiteConfig {
  /** The site's theme (`defineTheme`). */
  theme: Theme;
  /**
   * Folders (or files) of the theme's code: an edit there is a new version of the code, so
   * the caches start over and `cafe dev` restarts its builder. Default: the folders of the
   * site's own files the config imports, and of the theme's asset entries.
   */
  themeFolders?: string[];
  /** Articles, site.yaml and the theme's collections. Default `content`. */
  content?: string;
  /** Files copied into the site as they are. Default `public`. */
  public?: string;
  /** Where `cafe build` writes the site and what `cafe preview` serves. Default `dist`. */
  out?: string;
}

/** Declares a site's config (its default export), typed. */
export function defineConfig(config: SiteConfig): SiteConfig {
  return config;
}

/** A config with its folders resolved against the site's folder. */
export interface SiteSetup {
  /** The site's folder: every path the engine shows is relative to it. */
  root: string;
  theme: Theme;
  themeFolders: string[];
  contentDir: string;
  publicDir: string;
  outDir: string;
}

const KEYS = ["theme", "themeFolders", "content", "public", "out"];

/**
 * Checks what a config module exports and resolves its folders. `file` is the config file
 * (relative to `root`, for messages); `sources` are the site's own files the config imports
 * (the default theme folders are theirs).
 */
export function resolveConfig(exported: unknown, root: string, file: string, sources: readonly string[] = []): SiteSetup | ContentError {
  let source: string | undefined;
  try {
    source = readFileSync(path.resolve(root, file), "utf8");
  } catch {
    source = undefined;
  }
  /** An error at the line that writes `key:` in the config, when it does. */
  const fail = (message: string, hint: string, key?: string) => {
    const lines = source?.split("\n") ?? [];
    const at = key === undefined ? -1 : lines.findIndex((line) => new RegExp(`(^|[{,\\s])["']?${key}["']?\\s*:`).test(line));
    return at < 0 ? new ContentError({ file, message, hint }) : new ContentError({ file, message, hint, source, line: at + 1, column: lines[at]!.indexOf(key!) + 1 });
  };
  const config = (exported as { default?: unknown } | undefined)?.default;
  if (typeof config !== "object" || config === null) {
    return fail("the config file has no default export", "end it with `export default defineConfig({ theme })` (defineConfig from the engine)");
  }
  for (const key of Object.keys(config)) {
    if (!KEYS.includes(key)) {
      const guess = nearest(key, KEYS);
      return fail(`unknown config key \`${key}\``, guess ? `did you mean \`${guess}\`?` : `the keys of a config: ${KEYS.join(", ")}`, key);
    }
  }
  const { theme, themeFolders, content = "content", public: publicFolder = "public", out = "dist" } = config as SiteConfig;
  if (typeof theme !== "object" || theme === null || typeof (theme as Theme).templates !== "object") {
    return fail("`theme` is not a theme", "import the site's theme (made with defineTheme) and pass it: defineConfig({ theme })", "theme");
  }
  for (const [key, value] of Object.entries({ content, public: publicFolder, out })) {
    if (typeof value !== "string" || value === "") return fail(`\`${key}\` must be a folder's path, relative to the site's folder`, `for example ${key}: "${key === "out" ? "dist" : key}"`, key);
  }
  if (themeFolders !== undefined && (!Array.isArray(themeFolders) || themeFolders.some((f) => typeof f !== "string" || f === ""))) {
    return fail("`themeFolders` must be a list of folders, relative to the site's folder", 'for example themeFolders: ["theme"]', "themeFolders");
  }
  const folders = themeFolders ?? defaultThemeFolders(theme as Theme, sources);
  return {
    root,
    theme: theme as Theme,
    themeFolders: folders,
    contentDir: path.resolve(root, content),
    publicDir: path.resolve(root, publicFolder),
    outDir: path.resolve(root, out),
  };
}

/** The top folders (or files) of the site's own code: what the config imports, and the theme's asset entries. */
function defaultThemeFolders(theme: Theme, sources: readonly string[]): string[] {
  const files = [...sources, ...Object.values(theme.assets?.entries ?? {}), ...(theme.assets?.inline ? [theme.assets.inline] : [])];
  const tops = new Set<string>();
  for (const file of files) {
    const parts = path.normalize(file).split(path.sep);
    if (parts[0] === ".." || parts[0] === "node_modules" || path.isAbsolute(file)) continue;
    tops.add(parts[0]!);
  }
  return [...tops].sort();
}
