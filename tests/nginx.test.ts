/**
 * deploy/nginx.conf in a real nginx (Debian's package; .ci/run installs it) on loopback,
 * serving the built site: exact routes, the 404 page with status 404, cache and security
 * headers.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chmod, lstat, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createHash } from "node:crypto";
import { buildSite } from "../engine/pipeline/site-builder.js";
import { CSP_LINE } from "../deploy/write-nginx-csp.js";
import { projectRoot, SPEC_ARTICLE_ROUTES } from "./helpers.js";
import { theme } from "../templates/theme.js";
import { redirectFiles } from "../engine/stages/routes/redirect-files.js";
import type { Redirect } from "../engine/stages/routes/aliases.js";
import { MAX_ROUTE_LENGTH } from "../engine/stages/routes/routes.js";
import { buildRealSite, longestAddress, OLD_ADDRESSES, rawRequest, requireNginx, startNginx, type RunningNginx } from "./nginx-server.js";

const haveNginx = requireNginx("The nginx test");

let nginx: RunningNginx | undefined;
let base = "";
let headersFile = "";
/** The site's folder as nginx's `root` names it: a link to the build folder, as `dist` is. */
let site = "";

beforeAll(async () => {
  if (!haveNginx) return;
  site = await buildRealSite();
  // A file beside the site's folder, which no request may reach.
  await writeFile(path.join(path.dirname(site), "secret.txt"), "do not serve");
  // Links out of the site, as a mistake or an attacker with write access to it would leave them.
  await symlink("/etc", path.join(site, "etcdir"));
  await symlink(path.join(path.dirname(site), "secret.txt"), path.join(site, "secret-link.txt"));
  headersFile = await readFile(path.join(site, "_headers"), "utf8");
  nginx = await startNginx(site);
  base = nginx.base;
});
afterAll(async () => {
  await nginx?.stop();
});

const ROUTES = ["/", ...SPEC_ARTICLE_ROUTES];

(haveNginx ? describe : describe.skip)("deploy/nginx.conf in a real nginx", () => {
  it.each(ROUTES)("serves %s with 200 at its exact path, no redirect", async (route) => {
    const res = await fetch(base + route, { redirect: "manual" });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/html/);
    expect(res.headers.get("cache-control")).toBe("no-cache");
    expect(await res.text()).toMatch(/^<!DOCTYPE html>/);
  });

  it.each(["/nao-existe", "/artigo-transicao.html", "/index.html", "/index", "/artigo-transicao/", "/artigo/", "/_headers", "/404", "/etc/passwd", "/assets../secret.txt"])(
    "answers %s with the 404 page and status 404",
    async (route) => {
      const res = await rawRequest(base, route);
      expect(res.status).toBe(404);
      expect(res.body.toString()).toContain("Oops! Page not found");
    },
  );

  // Sent as written (fetch() would have sent /etc/passwd and /secret.txt): nginx sees the dot
  // segments climb out of the root and refuses the request, instead of looking for a file.
  it.each(["/../../etc/passwd", "/%2e%2e/%2e%2e/etc/passwd", "/../secret.txt", "/%2e%2e/secret.txt", "/%2E%2E/secret.txt", "/.%2e/secret.txt", "/..%2fsecret.txt", "/assets/..%2f..%2fsecret.txt", "/assets/../../secret.txt"])(
    "refuses %s, which climbs out of the root, with 400 and serves nothing from outside",
    async (attack) => {
      const res = await rawRequest(base, attack);
      expect(res.status).toBe(400);
      expect(res.body.toString()).not.toMatch(/root:|do not serve/);
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

  it.each(Object.values(OLD_ADDRESSES))("answers the old address $from with a permanent redirect to $to, the query string kept", async ({ from, to }) => {
    for (const method of ["GET", "HEAD"]) {
      const res = await fetch(base + from, { method, redirect: "manual" });
      expect(res.status).toBe(301);
      expect(res.headers.get("location")).toBe(to);
    }
    const tracked = await fetch(`${base}${from}?utm_source=whatsapp&x=%C3%A9`, { redirect: "manual" });
    expect(tracked.status).toBe(301);
    expect(tracked.headers.get("location")).toBe(`${to}?utm_source=whatsapp&x=%C3%A9`);
    // ...and the browser lands on the page.
    const followed = await fetch(base + from);
    expect(followed.status).toBe(200);
    expect(new URL(followed.url).pathname).toBe(to);
  });

  it("answers only the old address itself: its .html, trailing-slash twin and the redirect files are 404", async () => {
    const { from } = OLD_ADDRESSES.alias;
    for (const path of [`${from}.html`, `${from}/`, "/_redirects", "/_redirects.map", "/%5Fredirects"]) {
      const res = await fetch(base + path, { redirect: "manual" });
      expect(res.status, path).toBe(404);
    }
  });

  it("answers an old address as long as an alias may be: the map holds it", () => {
    expect(OLD_ADDRESSES.alias.from).toHaveLength(MAX_ROUTE_LENGTH);
  });

  it("follows no symlink out of the site, while the site itself is served through the link that names it", async () => {
    expect((await lstat(site)).isSymbolicLink()).toBe(true);
    for (const attack of ["/etcdir/passwd", "/etcdir/hostname", "/secret-link.txt", "/secret-link"]) {
      const res = await rawRequest(base, attack);
      expect(res.status, attack).not.toBe(200);
      expect(res.body.toString(), attack).not.toMatch(/root:|do not serve/);
    }
    expect((await fetch(`${base}/artigo-transicao`)).status).toBe(200);
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

(haveNginx ? describe : describe.skip)("deploy/nginx.conf's map of old addresses", () => {
  it("loads 10,000 aliases of the longest allowed length (what the README promises), with no warning, and answers each", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "cafe-nginx-map-"));
    await chmod(dir, 0o755);
    // Addresses as varied as real ones (a repeated stem hashes into few buckets' worth of collisions and hid the warning until 10,000).
    const slug = (i: number) => createHash("sha256").update(String(i)).digest("hex").replace(/(.{12})/g, "$1-");
    const redirects = Array.from({ length: 10_000 }, (_, i) => ({ from: longestAddress(`/${slug(i)}`), to: "/" }) as Redirect);
    expect(new Set(redirects.map((r) => r.from)).size).toBe(10_000);
    expect(redirects.every((r) => r.from.length === MAX_ROUTE_LENGTH)).toBe(true);
    const files = redirectFiles(redirects, { siteUrl: "https://cafe.test", language: "pt-BR", titleOf: () => "Café" });
    await writeFile(path.join(dir, "_redirects.map"), files.get("_redirects.map")!);
    await writeFile(path.join(dir, "index.html"), "<!DOCTYPE html><title>Café</title>");
    await mkdir(path.join(dir, "assets"));
    const server = await startNginx(dir);
    try {
      expect(server.checked).not.toMatch(/\[(warn|emerg)\]/);
      for (const { from } of [redirects[0]!, redirects[4999]!, redirects[9999]!]) {
        const res = await fetch(server.base + from, { redirect: "manual" });
        expect(res.status, from).toBe(301);
        expect(res.headers.get("location")).toBe("/");
      }
    } finally {
      await server.stop();
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe("deploy/nginx.conf", () => {
  it("carries the current Content-Security-Policy (run `npm run deploy:nginx` after changing client/boot.ts)", async () => {
    const conf = await readFile(path.join(projectRoot, "deploy/nginx.conf"), "utf8");
    const writer = new (await import("../engine/stages/write/writers.js")).MemoryWriter();
    await buildSite({ contentDir: path.join(projectRoot, "content"), projectRoot, theme, writer });
    const built = /Content-Security-Policy: (.*)/.exec(writer.text("_headers"))![1];
    expect(CSP_LINE.exec(conf)?.[2]).toBe(built);
  });
});
