/**
 * Lighthouse (mobile profile) on every route of the built site, served by the project's own
 * preview server, in Debian's Chromium. Prints each route's performance, accessibility,
 * best-practices and SEO scores.
 *
 *   npm run bench:lighthouse        (needs `npm run bench:peers` once, and Chromium)
 *   npm run bench:lighthouse -- --content tests/fixtures/images/content --public tests/fixtures/images/public
 *                                   (another content folder, and its public/)
 */
import path from "node:path";
import { createRequire } from "node:module";
import { copyFile, mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { buildSite } from "../engine/pipeline/site-builder.js";
import { FolderWriter } from "../engine/stages/write/writers.js";
import { serve } from "../engine/servers/static-server.js";
import { theme } from "../templates/theme.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const peers = createRequire(path.join(root, "bench/package.json"));
const lighthouse = (await import(pathToFileURL(peers.resolve("lighthouse")).href)).default as (
  url: string,
  flags: object,
) => Promise<{ lhr: { categories: Record<string, { score: number | null }>; audits: Record<string, { score: number | null; title: string }> } }>;
const chromeLauncher = await import(pathToFileURL(peers.resolve("chrome-launcher")).href);

const { values } = parseArgs({ options: { content: { type: "string", default: "content" }, public: { type: "string" } } });
const out = path.join(await mkdtemp(path.join(tmpdir(), "cafe-lh-")), "dist");
const writer = new FolderWriter(out);
await writer.begin();
const result = await buildSite({
  contentDir: path.resolve(root, values.content),
  publicDir: values.public ? path.resolve(root, values.public) : undefined,
  projectRoot: root,
  theme,
  writer,
});
if (!result.ok) throw new Error("the site does not build");
// Lighthouse will not audit a response with status 404: audit the same 404.html under a
// path that answers 200 (the preview serves any page file at its name).
await copyFile(path.join(out, "404.html"), path.join(out, "pagina-nao-encontrada.html"));
const { url, server } = await serve({ root: out, port: 0, host: "127.0.0.1" });

const chrome = await chromeLauncher.launch({
  chromePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
  chromeFlags: ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"],
});

const rows: string[] = ["| route | performance | accessibility | best practices | SEO |", "|---|---|---|---|---|"];
const below: string[] = [];
for (const route of result.routes) {
  const path_ = route.kind === "not-found" ? "/pagina-nao-encontrada" : route.path;
  const { lhr } = await lighthouse(url + path_, { port: chrome.port, output: "json", logLevel: "error" });
  const score = (k: string) => Math.round((lhr.categories[k]?.score ?? 0) * 100);
  rows.push(`| ${path_} | ${score("performance")} | ${score("accessibility")} | ${score("best-practices")} | ${score("seo")} |`);
  for (const [id, audit] of Object.entries(lhr.audits)) {
    if (audit.score !== null && audit.score < 1 && !id.includes("metric")) below.push(`${path_}: ${id} (${audit.score}) ${audit.title}`);
  }
  console.error(rows.at(-1));
}
chrome.kill();
server.close();
console.log(rows.join("\n"));
if (below.length > 0) console.log(`\nAudits below 1:\n${[...new Set(below)].slice(0, 60).join("\n")}`);
