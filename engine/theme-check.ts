/**
 * A theme's mistakes found when it loads, before any page is built: a required template
 * missing, an asset entry or a font that names no file. Each is an error at the theme's
 * file and line (its `defineTheme` call, or the line that names the file) with a
 * did-you-mean, never a crash half-way through a build.
 */
import { existsSync, readdirSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { codeError } from "./lib/code-location.js";
import type { ContentError } from "./lib/errors.js";
import { nearest } from "./lib/nearest.js";
import { themePlace, type Theme } from "./theme.js";

const REQUIRED_TEMPLATES = ["article", "not-found"];

/** The theme's mistakes; none when it can build. `root` is the site's folder (asset entries are relative to it). */
export function checkTheme(theme: Theme, root: string): ContentError[] {
  // Where the theme was declared, read only for a mistake: reading it formats a stack through the source maps (a few ms of every build).
  const error = (message: string, hint: string, find?: string) => codeError(themePlace(theme), root, { message, hint, find, fallback: "the theme" });
  const errors: ContentError[] = [];
  const templates = Object.keys(theme.templates ?? {});
  for (const name of REQUIRED_TEMPLATES) {
    if (templates.includes(name)) continue;
    const guess = nearest(name, templates.filter((t) => !REQUIRED_TEMPLATES.includes(t)));
    errors.push(error(`the theme has no template '${name}'`, guess ? `did you mean '${guess}'? A theme's templates must include '${name}'` : `every theme has the templates ${REQUIRED_TEMPLATES.join(" and ")}`, guess));
  }

  const files: [what: string, file: string][] = Object.entries(theme.assets?.entries ?? {}).map(([name, file]) => [`the asset entry '${name}'`, file]);
  if (theme.assets?.inline) files.push(["the inline script", theme.assets.inline]);
  for (const [what, file] of files) {
    if (typeof file === "string" && existsSync(path.resolve(root, file))) continue;
    const guess = typeof file === "string" ? nearbyFile(root, file) : undefined;
    errors.push(
      error(
        `${what} names ${file}, which does not exist`,
        guess ? `did you mean ${guess}?` : `write its path from the site's folder (${path.basename(root)}/), as theme/style.css`,
        typeof file === "string" ? file : undefined,
      ),
    );
  }

  const require = createRequire(path.join(root, "package.json"));
  const fonts = [...(theme.assets?.fonts ?? []).map((f) => ["font", f.name, f.source] as const), ...(theme.socialCard?.fonts ?? []).map((f) => ["social card font", f.name, f.source] as const)];
  for (const [what, name, source] of fonts) {
    try {
      require.resolve(source);
    } catch {
      errors.push(error(`the ${what} '${name}' names ${source}, which is not installed`, `install its package (npm install ${packageOf(source)}) or correct the path`, source));
    }
  }
  return errors;
}

/** The file of the same folder whose name is closest to the missing one's, as the theme would write it. */
function nearbyFile(root: string, file: string): string | undefined {
  const dir = path.dirname(path.resolve(root, file));
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return undefined;
  }
  const guess = nearest(path.basename(file), names);
  if (!guess) return undefined;
  const written = path.join(path.dirname(file), guess);
  return path.isAbsolute(file) ? path.relative(root, written) : written.split(path.sep).join("/");
}

/** `@fontsource/inter` of `@fontsource/inter/files/x.woff`. */
function packageOf(source: string): string {
  const parts = source.split("/");
  return (source.startsWith("@") ? parts.slice(0, 2) : parts.slice(0, 1)).join("/");
}
