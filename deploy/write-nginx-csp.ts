/**
 * Rewrites the Content-Security-Policy line of deploy/nginx.conf from a fresh build, so the
 * header allows exactly the inline script the pages carry.
 *
 *   npm run deploy:nginx
 */
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { buildSite } from "../engine/pipeline/site-builder.js";
import { MemoryWriter } from "../engine/stages/write/writers.js";
import { theme } from "../templates/theme.js";

const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const confPath = path.join(projectRoot, "deploy/nginx.conf");

/** The CSP header value the built site needs, from its `_headers` file. */
export async function builtCsp(): Promise<string> {
  const writer = new MemoryWriter();
  const result = await buildSite({ contentDir: path.join(projectRoot, "content"), projectRoot, theme, writer });
  if (!result.ok) throw new Error("the site does not build; fix it first");
  const line = writer.text("_headers").split("\n").find((l) => l.trim().startsWith("Content-Security-Policy:"));
  return line!.trim().slice("Content-Security-Policy:".length).trim();
}

export const CSP_LINE = /^(\s*add_header Content-Security-Policy ")([^"]*)(" always;)$/m;

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const conf = await readFile(confPath, "utf8");
  const csp = await builtCsp();
  await writeFile(confPath, conf.replace(CSP_LINE, (_, a: string, __, c: string) => `${a}${csp}${c}`));
  console.log(`deploy/nginx.conf: Content-Security-Policy set to\n  ${csp}`);
}
