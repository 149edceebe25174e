/**
 * DNS rebinding: a page on another site must not read drafts or error frames from the
 * servers on this machine. `preview` (run as an author runs it, with --allowed-host) and
 * `dev` answer only to this machine's names and the ones allowed, and dev's live-reload
 * channel refuses pages of any other origin.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { execFile, spawn, type ChildProcess } from "node:child_process";
import http from "node:http";
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { buildSite } from "../engine/pipeline/site-builder.js";
import { startDev, type DevServer } from "../engine/servers/dev-server.js";
import { FolderWriter } from "../engine/stages/write/writers.js";
import { devTheme, editedFixture, fixture, projectRoot } from "./helpers.js";
import { theme } from "../templates/theme.js";

/** A raw GET with the headers given (fetch would not let a test set Host or Origin). */
function get(base: string, rawPath: string, headers: http.OutgoingHttpHeaders = {}): Promise<{ status: number; type: string; body: string }> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const req = http.request({ hostname, port, path: rawPath, headers, agent: false }, (res) => {
      const ok = res.headers["content-type"]?.startsWith("text/event-stream");
      let body = "";
      res.on("data", (c: Buffer) => {
        body += c;
        // An accepted event stream never ends: its first line is enough.
        if (ok && body.includes("\n\n")) res.destroy();
      });
      const done = () => resolve({ status: res.statusCode ?? 0, type: String(res.headers["content-type"]), body });
      res.on("end", done);
      res.on("close", done);
    });
    req.on("error", reject);
    req.end();
  });
}

describe("npm run preview -- --allowed-host NAME", () => {
  let child: ChildProcess | undefined;
  let base = "";

  beforeAll(async () => {
    const out = path.join(await mkdtemp(path.join(tmpdir(), "cafe-hosts-")), "site");
    const writer = new FolderWriter(out);
    await writer.begin();
    expect((await buildSite({ contentDir: fixture("basic"), projectRoot, theme, writer })).ok).toBe(true);
    await writeFile(path.join(out, ".cafe-build.json"), "{}\n");
    child = spawn(process.execPath, ["engine/launch.mjs", "preview", "--out", out, "--port", "0", "--allowed-host", "cafe.test", "--allowed-host", "blog.lan"], {
      cwd: projectRoot,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let printed = "";
    base = await new Promise<string>((resolve, reject) => {
      child!.stdout!.on("data", (c: Buffer) => {
        printed += c;
        const url = /at (http:\/\/127\.0\.0\.1:\d+)/.exec(printed)?.[1];
        if (url) resolve(url);
      });
      child!.stderr!.on("data", (c: Buffer) => (printed += c));
      child!.on("exit", (code) => reject(new Error(`preview exited (${code}):\n${printed}`)));
    });
  }, 60_000);
  afterAll(() => {
    if (child?.pid && child.exitCode === null) process.kill(child.pid, "SIGTERM");
  });

  it("serves this machine's names and every --allowed-host, with or without a port", async () => {
    const port = new URL(base).port;
    for (const host of ["localhost", `127.0.0.1:${port}`, `[::1]:${port}`, "cafe.test", `cafe.test:${port}`, `blog.lan:${port}`]) {
      const res = await get(base, "/primeiro", { Host: host });
      expect(res.status, host).toBe(200);
      expect(res.body, host).toContain("Primeiro artigo");
    }
  });

  it("refuses any other Host with 403 and one line saying why", async () => {
    const port = new URL(base).port;
    for (const host of ["attacker.example", `attacker.example:${port}`, `rebind.cafe.test:${port}`]) {
      const res = await get(base, "/primeiro", { Host: host });
      expect(res.status, host).toBe(403);
      expect(res.type).toMatch(/^text\/plain/);
      expect(res.body).toMatch(/^Forbidden: [^\n]*not to host "[^"\n]+"[^\n]*--allowed-host [^\n]+\n$/);
    }
  });

  it("still serves no dotfile to an allowed host", async () => {
    expect((await get(base, "/.cafe-build.json", { Host: "cafe.test", "Accept-Encoding": "gzip" })).status).toBe(404);
  });

  it("rejects an --allowed-host that is not a host name, before listening", async () => {
    const run = promisify(execFile);
    const result = await run(process.execPath, ["engine/launch.mjs", "preview", "--port", "0", "--allowed-host", "evil.example/path"], { cwd: projectRoot }).then(
      () => ({ code: 0, stderr: "" }),
      (e: { code: number; stderr: string }) => e,
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("'evil.example/path' is not a host name");
  }, 30_000);
});

describe("npm run dev: Host and the live-reload channel's Origin", () => {
  let dev: DevServer;

  beforeAll(async () => {
    const content = await editedFixture("basic", {
      "articles/rascunho.md": "---\ntitle: Rascunho secreto\ndraft: true\n---\n\nAinda não publicado.\n",
    });
    const outDir = path.join(await mkdtemp(path.join(tmpdir(), "cafe-dev-hosts-")), "out");
    dev = await startDev({ projectRoot, contentDir: content, outDir, port: 0, host: "127.0.0.1", allowedHosts: ["cafe.test"], ...devTheme, log: () => {} });
  }, 60_000);
  afterAll(async () => {
    await dev?.close();
  });

  it("serves drafts to this machine's names, and refuses them to a rebound name with 403", async () => {
    const port = new URL(dev.url).port;
    expect((await get(dev.url, "/rascunho", { Host: `localhost:${port}` })).body).toContain("Rascunho secreto");
    expect((await get(dev.url, "/rascunho", { Host: `cafe.test:${port}` })).status).toBe(200);
    for (const route of ["/rascunho", "/__cafe/events", "/__cafe/dev-client.js", "/nao-existe"]) {
      const res = await get(dev.url, route, { Host: `attacker.example:${port}` });
      expect(res.status, route).toBe(403);
      expect(res.body).not.toContain("Rascunho secreto");
      expect(res.body).toMatch(/^Forbidden: [^\n]+\n$/);
    }
  });

  it("opens the live-reload channel to its own pages, with or without an Origin header", async () => {
    const port = new URL(dev.url).port;
    for (const headers of [{}, { Origin: `http://127.0.0.1:${port}` }, { Host: `localhost:${port}`, Origin: `http://localhost:${port}` }, { Host: `cafe.test:${port}`, Origin: `http://cafe.test:${port}` }]) {
      const res = await get(dev.url, "/__cafe/events", headers);
      expect(res.status, JSON.stringify(headers)).toBe(200);
      expect(res.type).toBe("text/event-stream");
      expect(res.body).toContain(": connected");
    }
  });

  it("refuses the live-reload channel to a page of any other origin with 403", async () => {
    const port = new URL(dev.url).port;
    for (const origin of ["http://attacker.example", `http://attacker.example:${port}`, `http://localhost:${Number(port) + 1}`, `http://localhost:${port}`, "null", `https://127.0.0.1.attacker.example:${port}`, "file://"]) {
      const res = await get(dev.url, "/__cafe/events", { Origin: origin });
      expect(res.status, origin).toBe(403);
      expect(res.type).toMatch(/^text\/plain/);
      expect(res.body).toMatch(/^Forbidden: the live-reload channel [^\n]+\n$/);
    }
  });
});
