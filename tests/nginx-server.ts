/**
 * deploy/nginx.conf in a real nginx (Debian's package; .ci/run installs it) on loopback, for
 * the tests: tests/nginx.test.ts checks it, tests/static-parity.test.ts compares the preview
 * server with it.
 *
 * Without nginx the tests that need it are skipped with a printed reason; with
 * REQUIRE_NGINX=1 (as .ci/run sets) a missing nginx is a failure instead.
 */
import { execFileSync, spawn } from "node:child_process";
import http from "node:http";
import { gunzipSync } from "node:zlib";
import { existsSync } from "node:fs";
import { appendFile, chmod, cp, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { projectRoot } from "./helpers.js";
import { MAX_ROUTE_LENGTH } from "../engine/stages/routes/routes.js";

export const nginxBin = ["/usr/sbin/nginx", "/usr/bin/nginx"].find((p) => existsSync(p));

/**
 * Call at the top of a test file: throws when nginx is missing and REQUIRE_NGINX is set,
 * prints why the file is skipped when it is not. True when nginx is there.
 */
export function requireNginx(what: string): boolean {
  if (nginxBin) return true;
  const message = `${what} needs nginx: install it with \`apt-get install -y nginx-light\`.`;
  if (process.env.REQUIRE_NGINX) throw new Error(`${message} REQUIRE_NGINX is set, so this is a failure.`);
  console.warn(`\n${message} Skipping it (set REQUIRE_NGINX=1 to make this a failure).\n`);
  return false;
}

export const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });

export interface RunningNginx {
  /** http://127.0.0.1:PORT */
  base: string;
  port: number;
  /** What `nginx -t` printed about the configuration (warnings included). */
  checked: string;
  stop(): Promise<void>;
}

/**
 * Starts nginx with deploy/nginx.conf's server block (listen, root and the redirect map's path rewritten) serving
 * `site`, and resolves once it answers. `site` and its parents must be readable by nginx's
 * workers.
 */
export async function startNginx(site: string): Promise<RunningNginx> {
  if (!nginxBin) throw new Error("nginx is not installed");
  const dir = await mkdtemp(path.join(tmpdir(), "cafe-nginx-"));
  await chmod(dir, 0o755); // nginx's workers run as an unprivileged user
  const port = await freePort();
  const server = (await readFile(path.join(projectRoot, "deploy/nginx.conf"), "utf8"))
    .replace(/listen 80;/, `listen 127.0.0.1:${port};`)
    .replace(/root [^;]+;/, `root ${site};`)
    .replace(/include [^;]*\/_redirects\.map;/, `include ${site}/_redirects.map;`);
  await mkdir(path.join(dir, "tmp"), { recursive: true });
  const conf = `
worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 256; }
http {
  include /etc/nginx/mime.types;
  default_type application/octet-stream;
  access_log off;
  client_body_temp_path ${dir}/tmp/body;
  proxy_temp_path ${dir}/tmp/proxy;
  fastcgi_temp_path ${dir}/tmp/fastcgi;
  uwsgi_temp_path ${dir}/tmp/uwsgi;
  scgi_temp_path ${dir}/tmp/scgi;
  ${server}
}`;
  const confPath = path.join(dir, "nginx.conf");
  await writeFile(confPath, conf);
  // nginx -t prints to stderr even when the configuration is fine; with 2>&1 its warnings are kept.
  let checked: string;
  try {
    checked = execFileSync("sh", ["-c", `"$0" -t -c "$1" -p "$2" 2>&1`, nginxBin, confPath, dir], { encoding: "utf8" });
  } catch (error) {
    throw new Error(`nginx -t refused the configuration:\n${(error as { stdout?: string }).stdout ?? (error as Error).message}`);
  }
  const nginx = spawn(nginxBin, ["-c", confPath, "-p", dir, "-g", "daemon off;"], { stdio: "ignore" });
  const base = `http://127.0.0.1:${port}`;
  let up = false;
  for (let i = 0; i < 50 && !up; i++) {
    up = await fetch(base).then(() => true, () => false);
    if (!up) await new Promise((r) => setTimeout(r, 100));
  }
  if (!up) {
    nginx.kill("SIGTERM");
    throw new Error(`nginx did not answer at ${base}:\n${await readFile(path.join(dir, "error.log"), "utf8").catch(() => "")}`);
  }
  return {
    base,
    port,
    checked,
    async stop() {
      if (nginx.exitCode === null) {
        const exited = new Promise((resolve) => nginx.once("exit", resolve));
        nginx.kill("SIGTERM");
        await exited;
      }
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/**
 * An address of exactly `length` characters (the longest a route may have, unless told),
 * made of the words of `stem`: what nginx's map must hold.
 */
export function longestAddress(stem: string, length = MAX_ROUTE_LENGTH): string {
  let address = stem;
  while (address.length < length) address += `-${stem.slice(1).replace(/\//g, "-")}`;
  address = address.slice(0, length);
  return address.endsWith("-") ? `${address.slice(0, -1)}x` : address;
}

/**
 * Old addresses the servers' tests ask for: an alias of /artigo-transicao (in its front
 * matter) as long as an alias may be, and two redirects of site.yaml, to / and to an article.
 */
export const OLD_ADDRESSES = {
  alias: { from: longestAddress("/artigo/transicao-de-carreira"), to: "/artigo-transicao" },
  gone: { from: "/pagina-removida", to: "/" },
  elsewhere: { from: "/artigo/tarifas", to: "/artigo/tarifas-trump-mercado-trabalho" },
};

/** The real content with OLD_ADDRESSES added, in a temporary folder. */
export async function contentWithOldAddresses(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), "cafe-content-"));
  await cp(path.join(projectRoot, "content"), dir, { recursive: true });
  const article = path.join(dir, "articles/artigo-transicao.md");
  const text = await readFile(article, "utf8");
  await writeFile(article, text.replace(/^---\n/, `---\naliases: [${OLD_ADDRESSES.alias.from}]\n`));
  const { gone, elsewhere } = OLD_ADDRESSES;
  await appendFile(path.join(dir, "site.yaml"), `redirects:\n  ${gone.from}: ${gone.to}\n  ${elsewhere.from}: ${elsewhere.to}\n`);
  return dir;
}

/**
 * Builds the real site (with OLD_ADDRESSES, unless `plain`) into a fresh folder nginx's
 * workers can read; resolves with its path.
 */
export async function buildRealSite({ plain = false } = {}): Promise<string> {
  const { buildSite } = await import("../engine/pipeline/site-builder.js");
  const { FolderWriter } = await import("../engine/stages/write/writers.js");
  const dir = await mkdtemp(path.join(tmpdir(), "cafe-site-"));
  await chmod(dir, 0o755);
  const site = path.join(dir, "site");
  const writer = new FolderWriter(site);
  await writer.begin();
  const { theme } = await import("../templates/theme.js");
  const contentDir = plain ? path.join(projectRoot, "content") : await contentWithOldAddresses();
  const result = await buildSite({ contentDir, projectRoot, theme, writer });
  if (!result.ok) throw new Error(`the real site did not build: ${JSON.stringify(result.errors).slice(0, 500)}`);
  return site;
}

export interface RawAnswer {
  status: number;
  type: string;
  body: Buffer;
  location?: string;
}

/**
 * A raw request, so the path reaches the server exactly as written: fetch() would remove dot
 * segments (`/../`, `/%2e%2e/`) before sending, and no traversal would ever be tried.
 */
export function rawRequest(base: string, rawPath: string, method = "GET", headers: http.OutgoingHttpHeaders = {}): Promise<RawAnswer> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const req = http.request({ hostname, port, path: rawPath, method, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => {
        const raw = Buffer.concat(chunks);
        const body = res.headers["content-encoding"] === "gzip" && raw.length > 0 ? gunzipSync(raw) : raw;
        resolve({ status: res.statusCode ?? 0, type: String(res.headers["content-type"] ?? ""), body, location: res.headers.location });
      });
    });
    req.on("error", reject);
    req.end();
  });
}
