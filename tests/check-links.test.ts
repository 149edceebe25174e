/**
 * `npm run check:links` against servers on this machine (it has no internet): 200, 301,
 * 308, 302, 404, 410, 429 with Retry-After, 503, a HEAD refused, a slow answer, a reset
 * connection and a host that does not exist; the answers kept for a day; the report's
 * file:line; the command's exit codes.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { execFile } from "node:child_process";
import http from "node:http";
import { mkdtemp, mkdir, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { externalLinks, LinkChecker, linkReport, locateLinks, retryAfterMs, type LinkAnswer } from "../engine/tools/link-checker.js";
import { editedFixture, projectRoot } from "./helpers.js";

let server: http.Server;
let base = "";
/** Requests the server received: method and path, in order. */
const seen: { method: string; path: string; at: number }[] = [];
let inFlight = 0;
let maxInFlight = 0;
const busyCount = new Map<string, number>();

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const url = req.url ?? "/";
    seen.push({ method: req.method ?? "", path: url, at: Date.now() });
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    res.on("close", () => inFlight--);
    const send = (status: number, headers: http.OutgoingHttpHeaders = {}) => {
      res.writeHead(status, headers);
      res.end(req.method === "HEAD" ? undefined : `status ${status}`);
    };
    if (url.startsWith("/ok")) return send(200);
    if (url === "/moved") return send(301, { Location: "/ok" });
    if (url === "/moved-twice") return send(301, { Location: `${base}/temporary` });
    if (url === "/temporary") return send(302, { Location: "/ok?final" });
    if (url === "/permanent") return send(308, { Location: "/ok" });
    if (url === "/moved-to-gone") return send(301, { Location: "/gone" });
    if (url === "/missing") return send(404);
    if (url === "/gone") return send(410);
    if (url === "/no-head") return req.method === "HEAD" ? send(405, { Allow: "GET" }) : send(200);
    if (url.startsWith("/busy-once")) {
      const n = (busyCount.get(url) ?? 0) + 1;
      busyCount.set(url, n);
      return n === 1 ? send(429, { "Retry-After": "1" }) : send(200);
    }
    if (url === "/busy") return send(429, { "Retry-After": "1" });
    if (url === "/unavailable") return send(503, { "Retry-After": "0" });
    if (url === "/slow") return void setTimeout(() => send(200), 3000);
    if (url.startsWith("/slowish")) return void setTimeout(() => send(200), 150);
    if (url === "/reset") return void req.socket.destroy();
    send(500);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const checker = (options = {}) => new LinkChecker({ timeoutMs: 500, backoffMs: 50, ...options });
const ask = async (route: string, options = {}): Promise<LinkAnswer> => (await checker(options).check([`${base}${route}`])).get(`${base}${route}`)!.answer;

describe("asking an address", () => {
  it("200 is alive", async () => {
    expect(await ask("/ok")).toEqual({ kind: "ok", status: 200 });
  });

  it("301 and 308 are reported with the new address; a 302 on the way is followed silently", async () => {
    expect(await ask("/moved")).toEqual({ kind: "moved", status: 301, to: `${base}/ok`, finalStatus: 200 });
    expect(await ask("/permanent")).toMatchObject({ kind: "moved", status: 308, to: `${base}/ok` });
    expect(await ask("/moved-twice")).toMatchObject({ kind: "moved", status: 301, to: `${base}/ok?final` });
    expect(await ask("/temporary")).toEqual({ kind: "ok", status: 200 });
  });

  it("404, 410 and a redirect to a 410 are dead", async () => {
    expect(await ask("/missing")).toMatchObject({ kind: "dead", status: 404, reason: "404 Not Found" });
    expect(await ask("/gone")).toMatchObject({ kind: "dead", status: 410, reason: "410 Gone" });
    expect(await ask("/moved-to-gone")).toMatchObject({ kind: "dead", status: 410, reason: `410 Gone (after redirects, at ${base}/gone)` });
  });

  it("asks with GET where HEAD is refused", async () => {
    const from = seen.length;
    expect(await ask("/no-head")).toEqual({ kind: "ok", status: 200 });
    expect(seen.slice(from).map((r) => r.method)).toEqual(["HEAD", "GET"]);
  });

  it("waits the Retry-After of a 429, then asks again", async () => {
    const from = seen.length;
    expect(await ask("/busy-once")).toEqual({ kind: "ok", status: 200 });
    const requests = seen.slice(from);
    expect(requests.map((r) => r.method)).toEqual(["HEAD", "HEAD"]);
    expect(requests[1]!.at - requests[0]!.at).toBeGreaterThanOrEqual(950);
  });

  it("a site that keeps answering 429 is not verified (not dead), after a bounded number of tries", async () => {
    const from = seen.length;
    const answer = await ask("/busy", { retries: 1 });
    expect(answer).toMatchObject({ kind: "unverified" });
    expect(seen.slice(from)).toHaveLength(2);
    // A Retry-After longer than we are willing to wait is not waited for.
    const started = Date.now();
    expect(await ask("/busy", { maxRetryAfterMs: 100 })).toMatchObject({ kind: "unverified", reason: expect.stringContaining("asked to wait 1 s") });
    expect(Date.now() - started).toBeLessThan(900);
  });

  it("a 503 after its retries is dead", async () => {
    expect(await ask("/unavailable")).toMatchObject({ kind: "dead", status: 503 });
  });

  it("a slow answer times out, a reset connection and a host that does not exist are dead", async () => {
    const started = Date.now();
    expect(await ask("/slow", { timeoutMs: 300 })).toEqual({ kind: "dead", reason: "no answer within 0.3 s (timeout)" });
    expect(Date.now() - started).toBeLessThan(2000);
    expect(await ask("/reset")).toEqual({ kind: "dead", reason: "the connection was reset" });
    const dns = (await checker({ timeoutMs: 5000 }).check(["http://no-such-host.invalid/page"])).get("http://no-such-host.invalid/page")!.answer;
    expect(dns).toMatchObject({ kind: "dead", reason: expect.stringContaining("DNS lookup failed") });
  });

  it("asks one host at most `perHost` times at once", async () => {
    maxInFlight = 0;
    await checker({ perHost: 2 }).check([1, 2, 3, 4, 5, 6].map((n) => `${base}/slowish-${n}`));
    expect(maxInFlight).toBe(2);
  });

  it("reads Retry-After as seconds or as a date", () => {
    expect(retryAfterMs("3")).toBe(3000);
    expect(retryAfterMs(new Date(Date.UTC(2030, 0, 1, 0, 0, 10)).toUTCString(), Date.UTC(2030, 0, 1))).toBe(10_000);
    expect(retryAfterMs("soon")).toBeUndefined();
  });
});

describe("the answers of the last day", () => {
  it("a second run asks nothing the first was answered, and is instant; --force asks again; a day later, too", async () => {
    const cacheFile = path.join(await mkdtemp(path.join(tmpdir(), "cafe-links-")), "answers.json");
    const urls = ["/ok", "/moved", "/missing", "/gone", "/no-head", "/slowish-cache"].map((r) => `${base}${r}`);
    let now = Date.now();
    const first = await checker({ cacheFile, now: () => now }).check(urls);
    expect([...first.values()].every((a) => !a.cached)).toBe(true);

    const from = seen.length;
    const started = performance.now();
    const second = await checker({ cacheFile, now: () => now }).check(urls);
    expect(performance.now() - started).toBeLessThan(100);
    expect(seen.length).toBe(from);
    expect([...second.values()].every((a) => a.cached)).toBe(true);
    expect([...second].map(([u, a]) => [u, a.answer])).toEqual([...first].map(([u, a]) => [u, a.answer]));

    await checker({ cacheFile, now: () => now, readCache: false }).check(urls);
    expect(seen.length).toBeGreaterThan(from);
    const afterForce = seen.length;
    now += 25 * 60 * 60 * 1000;
    const dayLater = await checker({ cacheFile, now: () => now }).check(urls);
    expect([...dayLater.values()].some((a) => a.cached)).toBe(false);
    expect(seen.length).toBeGreaterThan(afterForce);
  });

  it("keeps no network failure: a reset is asked again next time", async () => {
    const cacheFile = path.join(await mkdtemp(path.join(tmpdir(), "cafe-links-")), "answers.json");
    await checker({ cacheFile }).check([`${base}/reset`]);
    const again = await checker({ cacheFile }).check([`${base}/reset`]);
    expect(again.get(`${base}/reset`)!.cached).toBe(false);
  });
});

describe("the report", () => {
  it("finds the site's external links in its pages, without its own address, fragments or other schemes", () => {
    const page = (body: string) => `<html><head><link rel="canonical" href="https://blog.test/a"></head><body>${body}</body></html>`;
    const links = externalLinks([
      ["/a", page(`<a href="https://x.org/p#frag">x</a><a href="mailto:a@b.c">m</a><a href="/b">b</a><a href="https://blog.test/b">own</a>`)],
      ["/b", page(`<a href="https://x.org/p">x</a><a href="http://y.org/?a=1&amp;b=2">y</a>`)],
    ]);
    expect([...links]).toEqual([
      ["https://x.org/p", ["/a", "/b"]],
      ["http://y.org/?a=1&b=2", ["/b"]],
    ]);
  });

  it("names the file, line and column of each place that cites a dead or moved link, in file order", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "cafe-links-src-"));
    await mkdir(path.join(dir, "articles"));
    await mkdir(path.join(dir, "data"));
    await writeFile(path.join(dir, "articles/a.md"), `---\ntitle: A\nreferences:\n  - url: ${base}/gone\n---\n\nVeja [isto](${base}/gone#parte) e [aquilo](${base}/moved).\nE [outro](${base}/gone-for-good).\n`);
    await writeFile(path.join(dir, "data/tools.json"), `[\n  { "link": "${base}/missing" }\n]\n`);
    await writeFile(path.join(dir, "README.md"), `${base}/gone is documented here, not shown\n`);
    const urls = [`${base}/gone`, `${base}/moved`, `${base}/missing`, `${base}/ok`];
    const links = new Map(urls.map((u) => [u, ["/a"]]));
    const answers = await checker().check(urls);
    const report = linkReport(links, locateLinks(urls, [dir], dir), answers);
    expect(report.lines).toEqual([
      `articles/a.md:4:10: dead link ${base}/gone: 410 Gone`,
      `articles/a.md:7:13: dead link ${base}/gone: 410 Gone`,
      `data/tools.json:2:14: dead link ${base}/missing: 404 Not Found`,
      `articles/a.md:7:${7 + `Veja [isto](${base}/gone#parte) e [aquilo](`.length - 6}: moved permanently (301): ${base}/moved is now ${base}/ok; update the link`,
    ]);
    expect(report.summary).toBe("Checked 4 external links on 1 page: 2 dead, 1 moved permanently.");
  });
});

const run = promisify(execFile);

it("never runs in a build: no module of the engine imports it", async () => {
  const { readdir, readFile } = await import("node:fs/promises");
  const engine = path.join(projectRoot, "engine");
  const importers = [];
  for (const file of await readdir(engine)) {
    if ((await readFile(path.join(engine, file), "utf8")).includes("./check-links.js")) importers.push(file);
  }
  expect(importers).toEqual([]);
});

describe("npm run check:links", () => {
  it("prints each dead link with its file:line and exits 1; --warn-only exits 0", async () => {
    const content = await editedFixture("basic", {
      "site.yaml": (s) => s.replace(/https:\/\/placeholder\.invalid/g, `${base}/ok`),
      "articles/primeiro.md": (s) =>
        s
          .replace("::tool-table{src=\"tools\"}", "")
          .replace("[link externo](https://www.ibge.gov.br)", `[link externo](${base}/gone) e [outro](${base}/moved)`),
    });
    const command = (...flags: string[]) =>
      run(process.execPath, ["engine/launch.mjs", "check-links", "--content", content, "--no-cache", ...flags], {
        cwd: projectRoot,
        env: { ...process.env, NO_COLOR: "1" },
      }).then(
        (r) => ({ code: 0, ...r }),
        (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, stdout: e.stdout, stderr: e.stderr }),
      );
    const failing = await command();
    expect(failing.code).toBe(1);
    const shown = path.relative(projectRoot, path.join(content, "articles/primeiro.md"));
    expect(failing.stdout).toContain(`${shown}:21:29: dead link ${base}/gone: 410 Gone`);
    expect(failing.stdout).toContain(`moved permanently (301): ${base}/moved is now ${base}/ok`);
    expect(failing.stdout).toMatch(/Checked 4 external links on \d+ pages: 1 dead, 1 moved permanently\./);
    expect(failing.stderr).toContain("--warn-only");

    const warned = await command("--warn-only");
    expect(warned.code).toBe(0);
    expect(warned.stdout).toContain(`dead link ${base}/gone`);
  }, 120_000);
});
