/**
 * Bench: the preview server under load. Builds the real site and serves it as `npm run
 * preview` does (engine/launch.mjs, in a process of its own), then autocannon sends 200
 * concurrent connections for 10 s on 127.0.0.1, every route, file and asset mixed with
 * hostile paths (climbing out of the root, dotfiles, `_headers`, broken percent-encoding,
 * NUL bytes, very long paths, a foreign Host), half of them asking for gzip. (No HEAD:
 * autocannon waits for a body after a HEAD answer and stalls the connection.)
 *
 * Fails (exit 1) on any connection error or timeout, any 5xx, or a route that does not
 * answer 200. Prints the latency percentiles, p99 among them.
 *
 *   npm run bench:load [-- --connections 200 --duration 10]
 */
import { execFileSync, spawn } from "node:child_process";
import http from "node:http";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import autocannon from "autocannon";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const { values } = parseArgs({ options: { connections: { type: "string", default: "200" }, duration: { type: "string", default: "10" } } });
const connections = Number(values.connections);
const duration = Number(values.duration);

// The site, built as `npm run build` builds it (with its .cafe-build.json).
const dir = await mkdtemp(path.join(tmpdir(), "cafe-loadbench-"));
const site = path.join(dir, "site");
execFileSync(process.execPath, ["engine/launch.mjs", "build", "--out", site], { cwd: root, stdio: ["ignore", "ignore", "inherit"] });

// The server, as `npm run preview` starts it.
const server = spawn(process.execPath, ["engine/launch.mjs", "preview", "--out", site, "--port", "0"], { cwd: root, stdio: ["ignore", "pipe", "inherit"] });
const base = await new Promise<string>((resolve, reject) => {
  let printed = "";
  server.stdout!.on("data", (c: Buffer) => {
    printed += c;
    const url = /at (http:\/\/127\.0\.0\.1:\d+)/.exec(printed)?.[1];
    if (url) resolve(url);
  });
  server.on("exit", (code) => reject(new Error(`preview exited (${code}): ${printed}`)));
});
const stop = async () => {
  if (server.exitCode === null && server.pid) process.kill(server.pid, "SIGTERM");
  await rm(dir, { recursive: true, force: true });
};

const filesUnder = async (sub: string) => (await readdir(path.join(site, sub), { withFileTypes: true })).filter((e) => e.isFile() && !e.name.startsWith(".")).map((e) => `/${sub}/${e.name}`);
const pages = (await readdir(site, { recursive: true })).filter((f) => f.endsWith(".html") && f !== "404.html").map((f) => (f === "index.html" ? "/" : `/${f.slice(0, -".html".length)}`));
const routes = [...pages, "/favicon.svg", "/feed.xml", "/sitemap.xml", "/robots.txt", ...(await filesUnder("assets")), ...(await filesUnder("assets/chunks")), ...(await filesUnder("assets/fonts"))];
const hostile = [
  "/nao-existe",
  "/../etc/passwd",
  "/%2e%2e/%2e%2e/etc/passwd",
  "/..%2f..%2fetc/passwd",
  "/.cafe-build.json",
  "/%2ecafe-build.json",
  "/_headers",
  "/x.html",
  "/index",
  "/404",
  "/404.html",
  "/artigo-transicao/",
  "//artigo-transicao",
  "/artigo%2Fsetores-crescimento-crise",
  "/assets/",
  "/artigo-transicao?utm_source=x",
  "/%",
  "/%zz",
  "/%00",
  "/artigo-transicao%00.html",
  `/${"a".repeat(4000)}`,
  `/${"a".repeat(9000)}`,
];
const port = new URL(base).port;
const requests: autocannon.Request[] = [];
for (const p of [...routes, ...hostile]) {
  requests.push({ method: "GET", path: p });
  requests.push({ method: "GET", path: p, headers: { "accept-encoding": "gzip, deflate, br" } });
}
requests.push({ method: "GET", path: "/artigo-transicao", headers: { host: `rebind.attacker.example:${port}` } });

/** One request as autocannon sends it (raw path, same headers): its status. */
const statusOf = (r: autocannon.Request) =>
  new Promise<number>((resolve, reject) => {
    const req = http.request({ host: "127.0.0.1", port, method: r.method, path: r.path, headers: r.headers, agent: false }, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode ?? 0));
    });
    req.on("error", reject);
    req.end();
  });

let failed = false;
try {
  // Each request once first: routes answer 200, nothing answers 5xx.
  const seen = new Map<number, number>();
  for (const r of requests) {
    const status = await statusOf(r);
    seen.set(status, (seen.get(status) ?? 0) + 1);
    const isRoute = routes.includes(r.path!) && !r.headers?.host;
    if ((isRoute && status !== 200) || status >= 500) {
      console.error(`${r.method} ${r.path!.slice(0, 60)}: ${status}`);
      failed = true;
    }
  }
  const summary = [...seen].sort(([a], [b]) => a - b).map(([s, n]) => `${n}× ${s}`).join(", ");
  console.log(`${requests.length} requests in the mix (${routes.length} routes, files and assets, ${hostile.length} hostile paths, each with and without gzip; a foreign Host): ${summary}`);

  const result = await autocannon({ url: base, connections, duration, requests });
  const statuses = Object.entries(result.statusCodeStats ?? {})
    .map(([s, v]) => `${s}: ${v.count ?? 0}`)
    .join(", ");
  const l = result.latency;
  console.log(`
autocannon, ${connections} connections, ${duration} s, on ${base}
  requests      ${result.requests.total} (${Math.round(result.requests.average)}/s on average)
  latency (ms)  p50 ${l.p50}  p90 ${l.p90}  p99 ${l.p99}  max ${l.max}  mean ${l.average.toFixed(1)}
  statuses      ${statuses}
  errors        ${result.errors} (timeouts ${result.timeouts})
  5xx           ${result["5xx"]}`);
  if (result.errors > 0 || result.timeouts > 0 || result["5xx"] > 0) failed = true;
} finally {
  await stop();
}
console.log(failed ? "\nFAILED: errors, timeouts, 5xx or a route not answering 200 (above)" : "\nOK: 0 errors, no 5xx");
process.exit(failed ? 1 : 0);
