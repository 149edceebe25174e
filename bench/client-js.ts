/**
 * Bench: what a reader downloads and runs, per route. HTML, CSS and font bytes, and the
 * JavaScript executed before the first interaction: the inline <head> script plus each
 * module script of the page (the theme's entry, the engine's islands runtime) and everything
 * they import statically (an island's chunk is a dynamic import, loaded only when it wakes).
 * Gzip level 9, as served compressed.
 *
 *   npm run bench:js
 */
import path from "node:path";
import { gzipSync } from "node:zlib";
import { fileURLToPath } from "node:url";
import { buildSite } from "../engine/pipeline/site-builder.js";
import { MemoryWriter } from "../engine/stages/write/writers.js";
import { theme } from "../templates/theme.js";

const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const TARGET = 5 * 1024;

const writer = new MemoryWriter();
const result = await buildSite({ contentDir: path.join(projectRoot, "content"), projectRoot, theme, writer });
if (!result.ok) throw new Error("build failed");

const gz = (text: string | Uint8Array) => gzipSync(text, { level: 9 }).length;

/** A module and its static imports, transitively (URLs under /assets). */
function staticGraph(url: string, seen = new Set<string>()): Set<string> {
  if (seen.has(url)) return seen;
  seen.add(url);
  const code = writer.text(url.slice(1));
  for (const m of code.matchAll(/(?:^|[;}\s])import\s*(?:[^"'()]*?from\s*)?["']([^"']+)["']/g)) {
    staticGraph(path.posix.join(path.posix.dirname(url), m[1]!), seen);
  }
  return seen;
}

const rows: string[] = [];
let worst = 0;
const cssOf = (html: string) => [...html.matchAll(/<link rel="stylesheet" href="([^"]+)"/g)].reduce((sum, m) => sum + gz(writer.files.get(m[1]!.slice(1))!), 0);
const fontOf = (html: string) => [...html.matchAll(/<link rel="preload" href="([^"]+\.woff2)"/g)].reduce((sum, m) => sum + writer.files.get(m[1]!.slice(1))!.length, 0);
for (const route of result.routes) {
  const html = writer.text(route.outFile);
  const inline = [...html.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((m) => m[1]!).join("\n");
  const entries = [...html.matchAll(/<script type="module" src="([^"]+)"/g)].map((m) => m[1]!);
  const modules = new Set<string>();
  for (const entry of entries) staticGraph(entry, modules);
  const moduleBytes = [...modules].reduce((sum, url) => sum + gz(writer.text(url.slice(1))), 0);
  const total = gz(inline) + moduleBytes;
  worst = Math.max(worst, total);
  rows.push(`| ${route.path} | ${gz(html)} | ${cssOf(html)} | ${fontOf(html)} | ${gz(inline)} + ${moduleBytes} | **${total}** |`);
}

const lazy = [...writer.files.keys()].filter((f) => f.startsWith("assets/chunks/"));
const lazyBytes = lazy.reduce((sum, f) => sum + gz(writer.files.get(f)!), 0);

console.log("| route | HTML (B gz) | CSS (B gz) | font (B, woff2) | JS: inline + modules (B gz) | JS before first interaction (B gz) |");
console.log("|---|---|---|---|---|---|");
for (const row of rows) console.log(row);
console.log(`\nWorst route: ${worst} B gzip (target ≤ ${TARGET} B): ${worst <= TARGET ? "met" : "MISSED"}`);
console.log(`Loaded only when an island wakes: ${lazy.length} chunks, ${lazyBytes} B gzip in all (React and react-dom included).`);
