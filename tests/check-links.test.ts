/**
 * `npm run check:links` against servers on this machine (it has no internet): 200, 301,
 * 308, 302, 404, 410, 429 with Retry-After, 503, a HEAD refused, a slow answer, a reset
 * connection and a host that does not exist; the answers kept for a day; the report's
 * file:line; the command's exit codes.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { execFile } from "node:child_process";
import http from "node:http";
import net from "node:net";
import { mkdtemp, mkdir, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { externalLinks, LinkChecker, linkReport, locateLinks, retryAfterMs, type LinkAnswer } from "../engine/tools/link-checker.js";
import { localRange } from "../engine/tools/local-addresses.js";
import { editedFixture, projectRoot } from "./helpers.js";
import { freePort } from "./nginx-server.js";

let server: http.Server;
let base = "";
/** A second server, on 127.0.0.2: what a redirect to "an internal service" would reach. */
let internal: http.Server;
let internalBase = "";
const internalSeen: string[] = [];
/** Connections tried to anything but this machine's loopback (none may be: the guard below stops them before they are made). */
const contacted: string[] = [];
const hopCount = new Map<string, number>();
/** Requests the server received: method and path, in order. */
const seen: { method: string; path: string; at: number }[] = [];
let inFlight = 0;
let maxInFlight = 0;
const busyCount = new Map<string, number>();

beforeAll(async () => {
  // Tests ask only servers on 127.0.0.0/8: a connection to any other address fails here, before any packet, and is noted.
  const connect = net.Socket.prototype.connect;
  vi.spyOn(net.Socket.prototype, "connect").mockImplementation(function (this: net.Socket, ...args: unknown[]) {
    const first = (Array.isArray(args[0]) ? args[0][0] : args[0]) as { host?: string } | number;
    const host = typeof first === "object" ? first.host ?? "localhost" : String(args[1] ?? "localhost");
    if (!/^(127\.\d+\.\d+\.\d+|localhost|::1|::ffff:127\.\d+\.\d+\.\d+|.*\.invalid)$/.test(host)) {
      contacted.push(host);
      throw new Error(`the tests must not contact ${host}`);
    }
    return (connect as (...a: unknown[]) => net.Socket).apply(this, args);
  });
  internal = http.createServer((req, res) => {
    internalSeen.push(`${req.method} ${req.url}`);
    res.end("internal");
  });
  await new Promise<void>((resolve) => internal.listen(0, "127.0.0.2", resolve));
  internalBase = `http://127.0.0.2:${(internal.address() as { port: number }).port}`;
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
    if (url === "/to-admin") return send(302, { Location: `${internalBase}/admin/reboot` });
    if (url === "/to-metadata") return send(302, { Location: "http://169.254.169.254/latest/meta-data/" });
    if (url === "/to-private") return send(301, { Location: "https://10.1.2.3/router" });
    if (url === "/to-mapped") return send(307, { Location: `http://[::ffff:169.254.169.254]/` });
    const waitThenMove = /^\/wait-then-move\/(\d+)$/.exec(url);
    if (waitThenMove) {
      // Each hop first answers 503 asking to wait a second, then moves on for good to the next.
      const n = (hopCount.get(url) ?? 0) + 1;
      hopCount.set(url, n);
      return n === 1 ? send(503, { "Retry-After": "1" }) : send(301, { Location: `/wait-then-move/${Number(waitThenMove[1]) + 1}` });
    }
    const hop = /^\/hop\/(\d+)$/.exec(url);
    if (hop) {
      // Every hop first asks to wait a second, then sends on to the next: 11 hops.
      const n = (hopCount.get(url) ?? 0) + 1;
      hopCount.set(url, n);
      if (n % 2 === 1) return send(429, { "Retry-After": "1" });
      return Number(hop[1]) < 11 ? send(302, { Location: `/hop/${Number(hop[1]) + 1}` }) : send(200);
    }
    send(500);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});
afterAll(async () => {
  vi.restoreAllMocks();
  for (const s of [server, internal]) {
    s.closeAllConnections();
    await new Promise((resolve) => s.close(resolve));
  }
});

const checker = (options = {}) => new LinkChecker({ timeoutMs: 500, backoffMs: 50, allowPrivate: ["127.0.0.1"], ...options });
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

describe("loopback, private and link-local addresses", () => {
  it("are not asked, nor followed from a redirect, unless allowed: refused before any connection", async () => {
    const notFollowed = (to: string, what: string) => ({ kind: "unverified", reason: `redirects to ${to}, not followed: ${what} (--allow-private asks such addresses)` });
    expect(await ask("/to-admin")).toEqual(notFollowed(`${internalBase}/admin/reboot`, "127.0.0.2 is a loopback address"));
    // A host name is refused for the address it resolves to, at the moment of connecting.
    const seenBefore = seen.length;
    const byName = base.replace("127.0.0.1", "localhost");
    expect((await checker({ allowPrivate: false }).check([`${byName}/ok`])).get(`${byName}/ok`)!.answer).toMatchObject({
      kind: "unverified",
      reason: expect.stringMatching(/^not asked: localhost is (127\.0\.0\.1|::1), a loopback address \(--allow-private asks such addresses\)$/),
    });
    expect(seen.length).toBe(seenBefore);
    expect(await ask("/to-metadata")).toEqual(notFollowed("http://169.254.169.254/latest/meta-data/", "169.254.169.254 is a link-local address"));
    expect(await ask("/to-private")).toEqual(notFollowed("https://10.1.2.3/router", "10.1.2.3 is a private address"));
    expect(await ask("/to-mapped")).toMatchObject({ kind: "unverified", reason: expect.stringContaining("a link-local address") });
    const direct = `${internalBase}/admin/reboot`;
    expect((await checker().check([direct])).get(direct)!.answer).toEqual({ kind: "unverified", reason: "not asked: 127.0.0.2 is a loopback address (--allow-private asks such addresses)" });
    expect(internalSeen).toEqual([]);
    expect(contacted).toEqual([]);
  });

  it("are asked with --allow-private", async () => {
    expect(await ask("/to-admin", { allowPrivate: true })).toEqual({ kind: "ok", status: 200 });
    expect(internalSeen).toEqual(["HEAD /admin/reboot"]);
    internalSeen.length = 0;
  });

  it.each([
    ["127.0.0.2", "loopback"],
    ["::1", "loopback"],
    ["[::ffff:127.0.0.1]", "loopback"],
    ["169.254.169.254", "link-local"],
    ["fe80::1", "link-local"],
    ["10.0.0.1", "private"],
    ["172.16.5.4", "private"],
    ["192.168.1.1", "private"],
    ["100.64.0.1", "private"],
    ["fd12:3456::1", "private"],
    ["0.0.0.0", "unspecified"],
    ["172.32.0.1", undefined],
    ["8.8.8.8", undefined],
    ["2001:db8::1", undefined],
    ["example.org", undefined],
  ])("%s is %s", (address, range) => {
    expect(localRange(address)).toBe(range);
  });
});

describe("the time a link is given", () => {
  it("bounds a link that asks to wait on each of its 11 hops: not verified, in about the time given", async () => {
    const started = performance.now();
    const answer = await ask("/hop/1", { linkBudgetMs: 2000 });
    expect(performance.now() - started).toBeLessThan(3500);
    expect(answer).toEqual({ kind: "unverified", status: 429, reason: "no final answer within the 2 s a link is given (429 with Retry-After: 1); try again later" });
  });

  it("a link whose hops answer 503 with Retry-After then 301 is not verified once its time runs out (never a crash)", async () => {
    // The time left for a request is a fraction of a millisecond past a whole number once a wait was served.
    const answer = await ask("/wait-then-move/1", { linkBudgetMs: 3000, timeoutMs: 2500 });
    expect(answer).toEqual({ kind: "unverified", status: 503, reason: "no final answer within the 3 s a link is given (503 with Retry-After: 1); try again later" });
  });
});

describe("offline", () => {
  it("no site answering at all is said in one line, with no link reported dead", () => {
    const failed: LinkAnswer = { kind: "dead", reason: "the host does not exist (DNS lookup failed)" };
    const urls = ["https://a.example/x", "https://a.example/y", "https://b.example/z"];
    const answers = new Map(urls.map((u) => [u, { answer: failed, cached: false }]));
    const report = linkReport(new Map(urls.map((u) => [u, ["/a"]])), new Map(), answers);
    expect(report.offline).toBe(true);
    expect(report.lines).toEqual([]);
    expect(report.dead).toBe(0);
    expect(report.summary).toBe(
      "No site answered at all: every one of the 3 links to 2 sites failed before any answer (the host does not exist (DNS lookup failed)). Is this machine offline? No link is reported dead; check again once connected.",
    );
    // One site failing alone is that site's problem; a site answering anything means the machine is online.
    const oneSite = new Map(urls.slice(0, 2).map((u) => [u, { answer: failed, cached: false }]));
    expect(linkReport(new Map(), new Map(), oneSite).offline).toBe(false);
    const busy = new Map([...answers, ["https://c.example/", { answer: { kind: "unverified", status: 429, reason: "busy" } as LinkAnswer, cached: false }]]);
    expect(linkReport(new Map(), new Map(), busy).offline).toBe(false);
  });
  it("kept answers count as answers: a run whose sites answered from the last day's checks is not offline", () => {
    const failed: LinkAnswer = { kind: "dead", reason: "the host does not exist (DNS lookup failed)" };
    const urls = ["https://a.example/x", "https://b.example/z"];
    const answers = new Map<string, { answer: LinkAnswer; cached: boolean }>([
      ...urls.map((u) => [u, { answer: failed, cached: false }] as const),
      ["http://127.0.0.1:4000/vivo", { answer: { kind: "ok", status: 200 }, cached: true }],
      ["http://127.0.0.1:4000/morto", { answer: { kind: "dead", status: 410, reason: "410 Gone" }, cached: true }],
    ]);
    const report = linkReport(new Map([...answers.keys()].map((u) => [u, ["/a"]])), new Map(), answers);
    expect(report.offline).toBe(false);
    expect(report.dead).toBe(3);
    expect(report.summary).toMatch(/\(2 answered from the last day's checks\): 3 dead/);
  });

  it("offline, the one line also says how many links to local addresses were not asked", () => {
    const failed: LinkAnswer = { kind: "dead", reason: "the connection was refused" };
    const local: LinkAnswer = { kind: "unverified", reason: "not asked: 127.0.0.1 is a loopback address (--allow-private asks such addresses)" };
    const answers = new Map<string, { answer: LinkAnswer; cached: boolean }>([
      ["https://a.example/x", { answer: failed, cached: false }],
      ["https://b.example/z", { answer: failed, cached: false }],
      ["http://127.0.0.1:4000/a", { answer: local, cached: false }],
      ["http://127.0.0.1:4000/b", { answer: local, cached: false }],
    ]);
    const report = linkReport(new Map(), new Map(), answers);
    expect(report.offline).toBe(true);
    expect(report.summary).toBe(
      "No site answered at all: every one of the 2 links to 2 sites failed before any answer (the connection was refused). Is this machine offline? No link is reported dead; check again once connected. 2 links to local addresses were not asked (--allow-private asks them).",
    );
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

it("never runs in a build: no module of the engine imports it but the command line's check-links", async () => {
  const { readdir, readFile } = await import("node:fs/promises");
  const engine = path.join(projectRoot, "engine");
  const importers = [];
  for (const file of await readdir(engine, { recursive: true })) {
    if (!file.endsWith(".ts") || file.startsWith(path.join("tools", "")) || file === path.join("cli", "main.ts")) continue;
    if ((await readFile(path.join(engine, file), "utf8")).includes("link-checker.js")) importers.push(file);
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
      run(process.execPath, ["engine/launch.mjs", "check-links", "--content", content, "--no-cache", "--allow-private", ...flags], {
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

  it("offline (no site answers at all): says so first, in one line, lists nothing as dead, and exits 3", async () => {
    const closed = await freePort();
    const content = await editedFixture("basic", {
      "site.yaml": (s) => s.replace(/https:\/\/placeholder\.invalid/g, `http://127.0.0.3:${closed}`),
      "articles/primeiro.md": (s) => s.replace("::tool-table{src=\"tools\"}", "").replace("https://www.ibge.gov.br", `http://127.0.0.1:${closed}/ibge`),
    });
    const result = await run(process.execPath, ["engine/launch.mjs", "check-links", "--content", content, "--no-cache", "--allow-private"], {
      cwd: projectRoot,
      env: { ...process.env, NO_COLOR: "1" },
    }).then(
      (r) => ({ code: 0, ...r }),
      (e: { code: number; stdout: string; stderr: string }) => e,
    );
    expect(result.code).toBe(3);
    expect(result.stdout).not.toContain("dead link");
    expect(result.stderr.trim().split("\n")).toEqual([
      "No site answered at all: every one of the 3 links to 2 sites failed before any answer (the connection was refused). Is this machine offline? No link is reported dead; check again once connected.",
    ]);
  }, 120_000);
});
