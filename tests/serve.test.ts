/** The preview server serves the built site as a static host would. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdir, mkdtemp, readdir, readFile, symlink, writeFile } from "node:fs/promises";
import { networkInterfaces, tmpdir } from "node:os";
import path from "node:path";
import http from "node:http";
import { gunzipSync } from "node:zlib";
import { buildSite } from "../engine/pipeline/site-builder.js";
import { FolderWriter } from "../engine/stages/write/writers.js";
import { allowedHostnames, serve } from "../engine/servers/static-server.js";
import { fixture, projectRoot } from "./helpers.js";
import { theme } from "../templates/theme.js";

let base = "";
let server: http.Server;
let outDir = "";

beforeAll(async () => {
  const parent = await mkdtemp(path.join(tmpdir(), "cafe-serve-"));
  outDir = path.join(parent, "dist");
  await writeFile(path.join(parent, "secret.txt"), "do not serve");
  const writer = new FolderWriter(outDir);
  await writer.begin();
  const result = await buildSite({ contentDir: fixture("basic"), projectRoot, theme, writer });
  expect(result.ok).toBe(true);
  // What a real build leaves beside the pages: the build's record, the headers file for
  // other hosts, and a link someone put in public/ that points out of the folder.
  await writeFile(path.join(outDir, ".cafe-build.json"), '{"inputs":"secret-inputs"}\n');
  await symlink(path.join(parent, "secret.txt"), path.join(outDir, "leak.txt"));
  ({ url: base, server } = await serve({ root: outDir, port: 0, host: "127.0.0.1", allowedHosts: ["cafe.test"] }));
});
afterAll(() => server?.close());

/** A raw GET, so paths reach the server exactly as written (fetch would normalise them). */
function get(rawPath: string, headers: http.OutgoingHttpHeaders = {}): Promise<{ status: number; type: string; body: string; headers: http.IncomingHttpHeaders }> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const req = http.request({ hostname, port, path: rawPath, method: "GET", headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => {
        const raw = Buffer.concat(chunks);
        const body = (res.headers["content-encoding"] === "gzip" ? gunzipSync(raw) : raw).toString("utf8");
        resolve({ status: res.statusCode ?? 0, type: String(res.headers["content-type"]), body, headers: res.headers });
      });
    });
    req.on("error", reject);
    req.end();
  });
}

describe("the preview server", () => {
  it("binds 127.0.0.1 by default", () => {
    expect(base).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });

  it.each(["/", "/primeiro", "/guia/so-titulo"])("answers %s with 200 and HTML at its exact path", async (route) => {
    const res = await get(route);
    expect(res.status).toBe(200);
    expect(res.type).toMatch(/^text\/html/);
    expect(res.body).toMatch(/^<!DOCTYPE html>/);
  });

  it.each(["/nao-existe", "/primeiro/", "/primeiro.html", "/index.html", "/index", "/404", "/guia", "/guia/"])(
    "answers %s with the 404 page and status 404",
    async (route) => {
      const res = await get(route);
      expect(res.status).toBe(404);
      expect(res.type).toMatch(/^text\/html/);
      expect(res.body).toContain("Oops! Page not found");
    },
  );

  it("serves hashed assets with their content type and long-lived caching", async () => {
    const html = (await get("/")).body;
    const css = /href="(\/assets\/styles-[^"]+\.css)"/.exec(html)![1]!;
    const js = /src="(\/assets\/main-[^"]+\.js)"/.exec(html)![1]!;
    const cssRes = await get(css);
    expect(cssRes.status).toBe(200);
    expect(cssRes.type).toMatch(/^text\/css/);
    expect(cssRes.headers["cache-control"]).toContain("immutable");
    expect((await get(js)).type).toMatch(/javascript/);
    expect((await get("/favicon.svg")).type).toMatch(/^image\/svg\+xml/);
    const font = (await readdir(path.join(outDir, "assets/fonts")))[0]!;
    expect((await get(`/assets/fonts/${font}`)).type).toBe("font/woff2");
    expect((await get("/feed.xml")).type).toMatch(/xml/);
  });

  it("answers a repeated request for an unchanged file with 304", async () => {
    const first = await get("/primeiro");
    const etag = String(first.headers.etag);
    expect(etag).toMatch(/^W\/"/);
    expect((await get("/primeiro", { "If-None-Match": etag })).status).toBe(304);
    expect((await get("/guia/so-titulo", { "If-None-Match": etag })).status).toBe(200);
  });

  it("compresses text for clients that accept gzip, as static hosts do", async () => {
    const res = await fetch(`${base}/primeiro`, { headers: { "Accept-Encoding": "gzip" } });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-encoding")).toBe("gzip");
    expect(res.headers.get("content-type")).toMatch(/^text\/html/);
    expect(await res.text()).toContain("Primeiro artigo");
    const missing = await fetch(`${base}/nada`, { headers: { "Accept-Encoding": "gzip" } });
    expect(missing.status).toBe(404);
    expect(await missing.text()).toContain("Oops! Page not found");
  });

  it("serves a file's new content once it changes (a rebuild while the preview runs)", async () => {
    const file = path.join(outDir, "guia/so-titulo.html");
    const before = await readFile(file, "utf8");
    for (const headers of [{}, { "Accept-Encoding": "gzip" }]) expect((await get("/guia/so-titulo", headers)).body).toBe(before);
    await writeFile(file, before.replace("</body>", "<p>reconstruído</p></body>"));
    for (const headers of [{}, { "Accept-Encoding": "gzip" }]) expect((await get("/guia/so-titulo", headers)).body).toContain("reconstruído");
    await writeFile(file, before);
  });

  it.each(["/.cafe-build.json", "/%2ecafe-build.json", "/_headers", "/%5Fheaders", "/_headers?x"])(
    "answers %s with the 404 page, whatever the client's Accept-Encoding: it is for the host, not for readers",
    async (route) => {
      for (const headers of [{}, { "Accept-Encoding": "gzip" }, { "Accept-Encoding": "gzip, deflate, br" }, { "Accept-Encoding": "identity" }]) {
        const res = await get(route, headers);
        expect(res.status).toBe(404);
        expect(res.body).toContain("Oops! Page not found");
        expect(res.body).not.toMatch(/secret-inputs|Content-Security-Policy:/);
      }
    },
  );

  it.each([
    "/leak.txt",
    "/../secret.txt",
    "/%2e%2e/secret.txt",
    "/%252e%252e/secret.txt",
    "/assets/..%2f..%2fsecret.txt",
    "/..%5csecret.txt",
    "/primeiro%00.html",
    `/${"a/".repeat(2000)}x`,
  ])("never serves a file outside its root: %s", async (attack) => {
    for (const headers of [{}, { "Accept-Encoding": "gzip" }]) {
      const res = await get(attack, headers);
      expect([400, 404]).toContain(res.status);
      expect(res.body).not.toContain("do not serve");
    }
  });
});

describe("long URLs", () => {
  it("answers a request line over 8 KB with 414, as nginx does, and a long one under it as any other path", async () => {
    expect((await get(`/${"a".repeat(4000)}`)).status).toBe(404);
    expect((await get(`/${"a".repeat(8200)}`)).status).toBe(414);
    // Over the 16 KB Node reads of a request's head: answered before any handler runs.
    expect((await get(`/${"a".repeat(20_000)}`)).status).toBe(414);
  });
});

/** An address of this machine other than loopback, or undefined when it has none. */
const interfaceAddress = Object.values(networkInterfaces())
  .flat()
  .find((a) => a && a.family === "IPv4" && !a.internal)?.address;
if (!interfaceAddress) console.warn("\nThis machine has no network address besides loopback: the test of a server bound to 0.0.0.0 answering on one is skipped.\n");

describe.skipIf(!interfaceAddress)("a server bound to 0.0.0.0", () => {
  it(`answers on this machine's own address (${interfaceAddress}), under that name`, async () => {
    const { url, server: everywhere } = await serve({ root: outDir, port: 0, host: "0.0.0.0" });
    try {
      const port = new URL(url).port;
      const res = await new Promise<{ status: number; body: string }>((resolve, reject) => {
        // Host: <address>:<port>, as a browser on another machine would send it.
        const req = http.request({ host: interfaceAddress, port, path: "/primeiro", agent: false }, (r) => {
          let body = "";
          r.on("data", (c: Buffer) => (body += c));
          r.on("end", () => resolve({ status: r.statusCode ?? 0, body }));
        });
        req.on("error", reject);
        req.end();
      });
      expect(res.status).toBe(200);
      expect(res.body).toContain("Primeiro artigo");
    } finally {
      everywhere.close();
    }
  });
});

describe("the Host check (DNS rebinding)", () => {
  const port = () => new URL(base).port;

  it.each(["127.0.0.1", `127.0.0.1:${"PORT"}`, "localhost", "LOCALHOST:PORT", "localhost:8080", "[::1]", "[::1]:PORT", "cafe.test", "cafe.test:PORT"])(
    "serves the site to Host: %s",
    async (host) => {
      const res = await get("/primeiro", { Host: host.replace("PORT", port()) });
      expect(res.status).toBe(200);
      expect(res.body).toContain("Primeiro artigo");
    },
  );

  it.each([
    "evil.example",
    "evil.example:PORT",
    "127.0.0.1.nip.io:PORT",
    "localhost.evil.example",
    "sub.cafe.test",
    "cafe.test.evil.example",
    "localhost@evil.example",
    "evil.example/localhost",
    "[::2]:PORT",
    "10.0.0.1",
  ])("refuses Host: %s with 403 and a one-line reason, before serving anything", async (host) => {
    for (const route of ["/primeiro", "/nao-existe", "/../secret.txt"]) {
      const res = await get(route, { Host: host.replace("PORT", port()) });
      expect(res.status).toBe(403);
      expect(res.type).toMatch(/^text\/plain/);
      expect(res.body).toMatch(/^Forbidden: [^\n]+\n$/);
      expect(res.body).not.toContain("<!DOCTYPE html>");
    }
  });

  it("names the refused host and the flag that would allow it", async () => {
    const res = await get("/", { Host: `evil.example:${port()}` });
    expect(res.body).toContain('"evil.example:');
    expect(res.body).toContain("--allowed-host evil.example");
  });

  it("checks the host of an absolute-form request target too", async () => {
    expect((await get(`http://evil.example:${port()}/primeiro`)).status).toBe(403);
    expect((await get(`http://localhost:${port()}/primeiro`)).status).toBe(200);
  });

  it("a server bound to every interface also answers to this machine's own addresses", () => {
    const names = allowedHostnames("0.0.0.0", ["cafe.test"]);
    expect(names).toContain("localhost");
    expect(names).toContain("cafe.test");
    expect(names).not.toContain("0.0.0.0");
    expect(allowedHostnames("127.0.0.1")).toEqual(new Set(["localhost", "127.0.0.1", "[::1]"]));
    expect(allowedHostnames("::1", ["Cafe.Test:8080"])).toEqual(new Set(["localhost", "127.0.0.1", "[::1]", "cafe.test"]));
    expect(() => allowedHostnames("127.0.0.1", ["evil/x"])).toThrow("'evil/x' is not a host name");
  });
});

describe("serving a build before it is published (cafe start, while the social cards are drawn)", () => {
  it("serves only what the build wrote, from its folder; anything else waits for the build, then comes from the published folder", async () => {
    const parent = await mkdtemp(path.join(tmpdir(), "cafe-finishing-"));
    const building = path.join(parent, "building");
    const published = path.join(parent, "dist");
    await mkdir(building);
    await mkdir(published);
    // The build's folder holds its new page and an older build's feed, not yet replaced.
    await writeFile(path.join(building, "novo.html"), "<!DOCTYPE html><title>novo</title>");
    await writeFile(path.join(building, "feed.xml"), "<rss>old</rss>");
    let publish!: () => void;
    const done = new Promise<void>((resolve) => (publish = resolve));
    const { url, server: early } = await serve({ root: published, port: 0, host: "127.0.0.1", finishing: { dir: building, holds: (file) => file === "novo.html", done } });
    try {
      expect(await (await fetch(`${url}/novo`)).text()).toContain("<title>novo</title>");
      let answered = false;
      const feed = fetch(`${url}/feed.xml`).then(async (res) => ((answered = true), await res.text()));
      // Asked before the build is published, the feed is not answered with the older one...
      await new Promise((resolve) => setImmediate(resolve));
      await fetch(`${url}/novo`);
      expect(answered).toBe(false);
      // ...but with the published one, once the build is.
      await writeFile(path.join(published, "feed.xml"), "<rss>new</rss>");
      publish();
      expect(await feed).toBe("<rss>new</rss>");
    } finally {
      early.close();
    }
  });
});
