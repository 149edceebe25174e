/**
 * deploy/nginx.conf in a real nginx (Debian's package; .ci/run installs it) on loopback,
 * serving the built site: exact routes, the 404 page with status 404, cache and security
 * headers.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { chmod, mkdir, mkdtemp, readFile, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { buildSite } from "../engine/build.js";
import { FolderWriter } from "../engine/output.js";
import { CSP_LINE } from "../deploy/write-nginx-csp.js";
import { projectRoot, SPEC_ARTICLE_ROUTES } from "./helpers.js";
import { theme } from "../templates/theme.js";

const nginxBin = ["/usr/sbin/nginx", "/usr/bin/nginx"].find((p) => existsSync(p));
if (!nginxBin) {
  const message = "The nginx test needs nginx: install it with `apt-get install -y nginx-light`.";
  if (process.env.REQUIRE_BROWSER) throw new Error(`${message} (required on CI)`);
  console.warn(`\n${message} Skipping it.\n`);
}

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });

let nginx: ChildProcess | undefined;
let base = "";
let headersFile = "";

beforeAll(async () => {
  if (!nginxBin) return;
  const dir = await mkdtemp(path.join(tmpdir(), "cafe-nginx-"));
  await chmod(dir, 0o755); // nginx's workers run as an unprivileged user
  const site = path.join(dir, "site");
  const writer = new FolderWriter(site);
  await writer.begin();
  const result = await buildSite({ contentDir: path.join(projectRoot, "content"), projectRoot, theme, writer });
  expect(result.ok).toBe(true);
  headersFile = await readFile(path.join(site, "_headers"), "utf8");

  const port = await freePort();
  const server = (await readFile(path.join(projectRoot, "deploy/nginx.conf"), "utf8"))
    .replace(/listen 80;/, `listen 127.0.0.1:${port};`)
    .replace(/root [^;]+;/, `root ${site};`);
  await mkdir(path.join(dir, "tmp"), { recursive: true });
  const conf = `
worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 64; }
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
  execFileSync(nginxBin, ["-t", "-c", confPath, "-p", dir], { stdio: "pipe" });
  nginx = spawn(nginxBin, ["-c", confPath, "-p", dir, "-g", "daemon off;"], { stdio: "ignore" });
  base = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 50; i++) {
    if (await fetch(base).then(() => true, () => false)) break;
    await new Promise((r) => setTimeout(r, 100));
  }
});
afterAll(() => {
  nginx?.kill("SIGTERM");
});

const ROUTES = ["/", ...SPEC_ARTICLE_ROUTES];

(nginxBin ? describe : describe.skip)("deploy/nginx.conf in a real nginx", () => {
  it.each(ROUTES)("serves %s with 200 at its exact path, no redirect", async (route) => {
    const res = await fetch(base + route, { redirect: "manual" });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/html/);
    expect(res.headers.get("cache-control")).toBe("no-cache");
    expect(await res.text()).toMatch(/^<!DOCTYPE html>/);
  });

  it.each(["/nao-existe", "/artigo-transicao.html", "/index.html", "/index", "/artigo-transicao/", "/artigo/", "/_headers", "/404", "/../../etc/passwd", "/%2e%2e/%2e%2e/etc/passwd"])(
    "answers %s with the 404 page and status 404",
    async (route) => {
      const res = await fetch(base + route, { redirect: "manual" });
      expect(res.status).toBe(404);
      expect(await res.text()).toContain("Oops! Page not found");
    },
  );

  it("caches hashed assets for a year, immutable, with their content type", async () => {
    const html = await (await fetch(base)).text();
    for (const url of [/href="(\/assets\/styles-[^"]+)"/.exec(html)![1]!, /src="(\/assets\/main-[^"]+)"/.exec(html)![1]!]) {
      const res = await fetch(base + url);
      expect(res.status).toBe(200);
      expect(res.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    }
    expect((await fetch(`${base}/feed.xml`)).headers.get("content-type")).toMatch(/xml/);
  });

  it("sends the security headers, with the CSP the build wrote into _headers", async () => {
    const res = await fetch(`${base}/artigo-transicao`);
    const csp = res.headers.get("content-security-policy")!;
    expect(csp).toContain("script-src 'self' 'sha256-");
    expect(csp).not.toMatch(/script-src[^;]*unsafe-inline/);
    expect(headersFile).toContain(`Content-Security-Policy: ${csp}`);
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(res.headers.get("referrer-policy")).toBe("strict-origin-when-cross-origin");
    expect(res.headers.get("x-frame-options")).toBe("DENY");
    const notFound = await fetch(`${base}/nada`);
    expect(notFound.headers.get("content-security-policy")).toBe(csp);
  });
});

describe("deploy/nginx.conf", () => {
  it("carries the current Content-Security-Policy (run `npm run deploy:nginx` after changing client/boot.ts)", async () => {
    const conf = await readFile(path.join(projectRoot, "deploy/nginx.conf"), "utf8");
    const writer = new (await import("../engine/output.js")).MemoryWriter();
    await buildSite({ contentDir: path.join(projectRoot, "content"), projectRoot, theme, writer });
    const built = /Content-Security-Policy: (.*)/.exec(writer.text("_headers"))![1];
    expect(CSP_LINE.exec(conf)?.[2]).toBe(built);
  });
});
