/**
 * `npm run dev`: a real dev server on a copy of the fixture site. Edits rebuild only what
 * they affect and reach open pages as server-sent events; broken edits report errors and
 * the server keeps going.
 */
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rename, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import http from "node:http";
import { startDev, type DevServer } from "../engine/servers/dev-server.js";
import { busyFor, devTheme, editedFixture, processState, projectCopy, projectRoot, STUCK_ARTICLE } from "./helpers.js";

let dev: DevServer;
let content = "";
let outDir = "";
const logs: string[] = [];
type ServerEvent = { event: string; data: { routes?: string[]; errors?: { location: string; message: string; hint?: string; frame?: string }[] } };
const events: ServerEvent[] = [];
let stream: AbortController;

/** Opens a live-reload channel as an open page does (resolves once it is open), then reads each event into `into` until `signal` aborts it; a failure before that goes to `failed`. */
async function listen(url: string, signal: AbortSignal, into: ServerEvent[], failed: (error: unknown) => void = () => {}): Promise<void> {
  const res = await fetch(url, { signal });
  void (async () => {
    const decoder = new TextDecoder();
    let buffer = "";
    for await (const chunk of res.body!) {
      buffer += decoder.decode(chunk as Uint8Array, { stream: true });
      let end;
      while ((end = buffer.indexOf("\n\n")) >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const event = /^event: (.*)$/m.exec(block)?.[1];
        const data = /^data: (.*)$/m.exec(block)?.[1];
        if (event && data) into.push({ event, data: JSON.parse(data) });
      }
    }
  })().catch((error: unknown) => {
    if (!signal.aborted) failed(error);
  });
}

beforeAll(async () => {
  content = await editedFixture("basic", {});
  outDir = path.join(await mkdtemp(path.join(tmpdir(), "cafe-dev-")), "out");
  dev = await startDev({ projectRoot, contentDir: content, outDir, port: 0, host: "127.0.0.1", ...devTheme, log: (l) => logs.push(l) });
  stream = new AbortController();
  await listen(`${dev.url}/__cafe/events`, stream.signal, events, (error) => logs.push(`event stream failed: ${error}`));
}, 60_000);
afterAll(async () => {
  stream?.abort();
  await dev?.close();
});

/** Waits for the next event after `from`. */
async function nextEvent(from: number, timeout = 15_000) {
  const start = Date.now();
  while (events.length <= from) {
    if (Date.now() - start > timeout) throw new Error(`no event after ${from}; events: ${JSON.stringify(events).slice(0, 300)}\nlogs:\n${logs.slice(-6).join("\n")}`);
    await new Promise((r) => setTimeout(r, 20));
  }
  return events[from]!;
}
const page = (route: string) => fetch(dev.url + route).then(async (r) => ({ status: r.status, html: await r.text() }));

describe("npm run dev", () => {
  it("serves the site with the live-reload client, on 127.0.0.1", async () => {
    expect(dev.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const { status, html } = await page("/primeiro");
    expect(status).toBe(200);
    expect(html).toContain('<script type="module" src="/__cafe/dev-client.js"></script></body>');
    expect((await fetch(`${dev.url}/__cafe/dev-client.js`)).headers.get("content-type")).toMatch(/javascript/);
  });

  it("rebuilds only what an edit affects and tells the open pages which routes changed", async () => {
    const file = path.join(content, "articles/guia/so-titulo.md");
    const mtimeOf = async (f: string) => (await import("node:fs/promises")).stat(path.join(outDir, f)).then((s) => s.mtimeMs);
    const homeBefore = await mtimeOf("index.html");
    const from = events.length;
    await writeFile(file, "---\ntitle: Só título\n---\n\nUm artigo mínimo, agora editado.\n");
    const event = await nextEvent(from);
    // What the build said, when it is not ok (once in a full run on a busy machine, session 29: the save's truncation seen alone?).
    expect(event.event, JSON.stringify(event.data)).toBe("ok");
    expect(event.data.routes).toEqual(["/guia/so-titulo"]);
    expect((await page("/guia/so-titulo")).html).toContain("agora editado");
    expect(await mtimeOf("index.html")).toBe(homeBefore);
  });

  it("reports a broken edit with file, line, column, code frame and hint, keeps serving, and recovers on the fix", async () => {
    const file = path.join(content, "articles/primeiro.md");
    const good = await readFile(file, "utf8");
    let from = events.length;
    await writeFile(file, good.replace("readTime: 5", "readTme: 5"));
    const broken = await nextEvent(from);
    expect(broken.event).toBe("build-error");
    const [error] = broken.data.errors!;
    expect(error!.location).toMatch(/articles\/primeiro\.md:5:1$/);
    expect(error!.message).toBe("unknown front-matter key `readTme`");
    expect(error!.hint).toBe("did you mean `readTime`?");
    expect(error!.frame).toContain("> 5 | readTme: 5");
    expect(logs.join("\n")).toContain("did you mean `readTime`?");
    expect((await page("/primeiro")).status).toBe(200);

    from = events.length;
    await writeFile(file, good.replace("um [link externo]", "um [link de fora]"));
    const fixed = await nextEvent(from);
    expect(fixed.event).toBe("ok");
    expect((await page("/primeiro")).html).toContain("link de fora");
  });

  it("picks up new, renamed and deleted files", async () => {
    const dir = path.join(content, "articles");
    let from = events.length;
    await writeFile(path.join(dir, "novo.md"), "---\ntitle: Novo artigo\n---\n\nTexto novo.\n");
    expect((await nextEvent(from)).data.routes).toContain("/novo");
    expect((await page("/novo")).status).toBe(200);

    from = events.length;
    await rename(path.join(dir, "novo.md"), path.join(dir, "renomeado.md"));
    await nextEvent(from);
    await expect.poll(async () => (await page("/renomeado")).status, { timeout: 10_000 }).toBe(200);
    await expect.poll(async () => (await page("/novo")).status, { timeout: 10_000 }).toBe(404);

    from = events.length;
    await rm(path.join(dir, "renomeado.md"));
    await nextEvent(from);
    await expect.poll(async () => (await page("/renomeado")).status, { timeout: 10_000 }).toBe(404);
  });

  it("the share preview lists a page a save added, after saves that added none, until a save deletes it", async () => {
    const added = path.join(content, "articles/compartilhado.md");
    const edited = path.join(content, "articles/guia/so-titulo.md");
    const preview = async () => (await page("/__cafe/share")).html;
    const save = async (change: () => Promise<void>) => {
      const from = events.length;
      await change();
      expect((await nextEvent(from)).event).toBe("ok");
    };
    await save(() => writeFile(edited, "---\ntitle: Só título\n---\n\nAntes do novo.\n"));
    expect(await preview()).not.toContain("Para compartilhar");
    await save(() => writeFile(added, "---\ntitle: Para compartilhar\n---\n\nTexto.\n"));
    expect(await preview()).toContain("Para compartilhar");
    await save(() => writeFile(edited, "---\ntitle: Só título\n---\n\nDepois do novo.\n"));
    expect(await preview()).toContain("Para compartilhar");
    await save(() => rm(added));
    expect(await preview()).not.toContain("Para compartilhar");
  });

  it("renaming a published article shows the vanished address in the overlay, with where it went; renaming it back clears it", async () => {
    const dir = path.join(content, "articles/guia");
    let from = events.length;
    await rename(path.join(dir, "so-titulo.md"), path.join(dir, "titulo-novo.md"));
    const published = (e: (typeof events)[number]) => e.data.errors?.some((error) => error.message.includes("was published"));
    let event = await nextEvent(from);
    while (!published(event)) event = await nextEvent(++from);
    // An editor's rename may arrive as two changes (the old name gone, then the new one there),
    // each its own build: the first already reports the vanished address, without the new file
    // to guess from. Take the last such build once the server has been quiet for 2 s: it saw both.
    for (;;) {
      const seen = events.length;
      await new Promise((r) => setTimeout(r, 2_000));
      if (events.length === seen) break;
    }
    event = events.slice(from).findLast(published)!;
    expect(event.event).toBe("build-error");
    const vanished = event.data.errors!.find((e) => e.message === "/guia/so-titulo was published and nothing answers it now")!;
    expect(vanished.location).toMatch(/published-routes\.txt:\d+:1$/);
    expect(vanished.hint).toMatch(/moved to \/guia\/titulo-novo \(.*titulo-novo\.md has the same text\): add `aliases: \[\/guia\/so-titulo\]`/);
    expect(vanished.frame).toContain("| /guia/so-titulo");
    // The links to it say where it went.
    const link = event.data.errors!.find((e) => e.message === "broken link: no page has the route /guia/so-titulo")!;
    expect(link.hint).toMatch(/moved to \/guia\/titulo-novo/);
    expect(logs.join("\n")).toContain("/guia/so-titulo was published and nothing answers it now");

    from = events.length;
    await rename(path.join(dir, "titulo-novo.md"), path.join(dir, "so-titulo.md"));
    await expect.poll(async () => (await nextEvent(from++)).event, { timeout: 15_000 }).toBe("ok");
    expect((await page("/guia/so-titulo")).status).toBe(200);
  });

  it("survives an editor's atomic save (write to a temporary file, then rename over)", async () => {
    const file = path.join(content, "articles/guia/so-titulo.md");
    const from = events.length;
    await writeFile(`${file}.tmp~`, "---\ntitle: Só título\n---\n\nSalvo de forma atômica.\n");
    await rename(`${file}.tmp~`, file);
    await expect.poll(async () => (await page("/guia/so-titulo")).html, { timeout: 10_000 }).toContain("Salvo de forma atômica.");
    // The page is on disk a moment before the build's result reaches the event stream.
    await expect.poll(() => events.slice(from).some((e) => e.event === "ok"), { timeout: 10_000 }).toBe(true);
  });

  it("shows drafts, which a build leaves out", async () => {
    const from = events.length;
    await writeFile(path.join(content, "articles/rascunho.md"), "---\ntitle: Rascunho\ndraft: true\n---\n\nAinda não.\n");
    await nextEvent(from);
    await expect.poll(async () => (await page("/rascunho")).status, { timeout: 10_000 }).toBe(200);
  });

  it.each([
    "/../package.json",
    "/%2e%2e/package.json",
    "/%252e%252e/package.json",
    "/..%2fpackage",
    "/..%5c..%5cpackage",
    "/primeiro%00",
    `/${"a/".repeat(2000)}x`,
  ])("never serves a file outside its root: %s", async (attack) => {
    const { hostname, port } = new URL(dev.url);
    const res = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = http.request({ hostname, port, path: attack }, (r) => {
        let body = "";
        r.on("data", (c: Buffer) => (body += c));
        r.on("end", () => resolve({ status: r.statusCode ?? 0, body }));
      });
      req.on("error", reject);
      req.end();
    });
    expect([400, 404]).toContain(res.status);
    expect(res.body).not.toContain('"name": "cafe-com-a-cris"');
  });

  it("a settings edit rebuilds every page", async () => {
    const file = path.join(content, "site.yaml");
    const from = events.length;
    await writeFile(file, (await readFile(file, "utf8")).replace("Inscrever-se", "Quero receber"));
    const event = await nextEvent(from);
    expect(event.event).toBe("ok");
    expect(event.data.routes).toEqual(expect.arrayContaining(["/", "/primeiro", "/guia/so-titulo"]));
    expect((await page("/")).html).toContain("Quero receber");
  });
});

/**
 * The dev server on a copy of the project and of the basic fixture: an edit to the theme is
 * real, and the project's own templates are not touched. Gives what it prints, line by line.
 */
async function devOnCopy({ cache = false } = {}) {
  const project = await projectCopy();
  const site = await editedFixture("basic", {});
  const dir = await mkdtemp(path.join(tmpdir(), "cafe-dev-theme-"));
  const lines: string[] = [];
  const server = await startDev({
    projectRoot: project,
    contentDir: site,
    outDir: path.join(dir, "out"),
    ...(cache ? { cacheDir: path.join(dir, "cache") } : {}),
    port: 0,
    host: "127.0.0.1",
    themeModule: path.join(project, "templates/theme.tsx"),
    themeFolders: devTheme.themeFolders,
    log: (l) => lines.push(l),
  });
  return { project, site, server, lines };
}

describe("npm run dev on a theme being edited", () => {
  it("a template edit restarts the builder with fresh code and rebuilds", async () => {
    const { project, server, lines } = await devOnCopy();
    try {
      expect(await (await fetch(`${server.url}/primeiro`)).text()).not.toContain("Rodapé novo");
      const template = path.join(project, "templates/footer.tsx");
      await writeFile(template, (await readFile(template, "utf8")).replace("</footer>", "<p>Rodapé novo</p></footer>"));
      await expect.poll(async () => (await fetch(`${server.url}/primeiro`)).text(), { timeout: 30_000 }).toContain("<p>Rodapé novo</p></footer>");
      // The pages are written before the builder answers, and the line is printed once it has: wait for it too.
      await expect.poll(() => lines.some((l) => l.startsWith("templates/footer.tsx: 4 pages updated")), { timeout: 10_000 }).toBe(true);
    } finally {
      await server.close();
    }
  }, 60_000);
});

describe("npm run dev across a template's save, with a page open", () => {
  it("renders the open page first and reloads it as soon as it is written, then the others, each page reloaded once", async () => {
    // With a cache folder, as `npm run dev` has: the new builder keeps the assets (without one it writes them again, and every page reloads for them).
    const { project, server, lines } = await devOnCopy({ cache: true });
    const stream = new AbortController();
    try {
      // An open page's live-reload channel, as the dev client opens it: the last route in the site's order.
      const received: ServerEvent[] = [];
      await listen(`${server.url}/__cafe/events?page=${encodeURIComponent("/primeiro")}`, stream.signal, received);
      const events = () => received.filter((e) => e.event === "ok").map((e) => e.data.routes!);
      await new Promise((r) => setTimeout(r, 100));
      const template = path.join(project, "templates/footer.tsx");
      await writeFile(template, (await readFile(template, "utf8")).replace("</footer>", "<p>Rodapé novo</p></footer>"));
      await expect.poll(() => lines.some((l) => l.startsWith("templates/footer.tsx: 4 pages updated")), { timeout: 30_000 }).toBe(true);
      await expect.poll(() => events().length, { timeout: 5_000 }).toBe(2);
      expect(events()[0]).toEqual(["/primeiro"]);
      expect(events()[1]!.sort()).toEqual(["/", "/404", "/guia/so-titulo"]);
      expect(await (await fetch(`${server.url}/primeiro`)).text()).toContain("<p>Rodapé novo</p></footer>");
    } finally {
      stream.abort();
      await server.close();
    }
  }, 60_000);
});

describe("npm run dev across a template's save", () => {
  it("renders again only the pages whose template reaches the saved module, starting from the last builder's work", async () => {
    // With a cache folder, as `npm run dev` has.
    const { project, site, server, lines } = await devOnCopy({ cache: true });
    try {
      // The featured article saved first (its page and the home page): the builder about to be replaced has not written it to its cache yet.
      const featured = path.join(site, "articles/primeiro.md");
      await writeFile(featured, (await readFile(featured, "utf8")).replace("O começo", "O início"));
      await expect.poll(async () => (await fetch(`${server.url}/`)).text(), { timeout: 15_000 }).toContain("O início");
      const template = path.join(project, "templates/pages/article-page.tsx");
      await writeFile(template, (await readFile(template, "utf8")).replace('className="back-link"', 'className="back-link" data-saved="1"'));
      await expect.poll(async () => (await fetch(`${server.url}/primeiro`)).text(), { timeout: 30_000 }).toContain('data-saved="1"');
      // The two article pages: not the 404, and not the home page, which the article's save rendered already.
      await expect.poll(() => lines.find((l) => l.startsWith("templates/pages/article-page.tsx:")), { timeout: 10_000 }).toMatch(/^templates\/pages\/article-page\.tsx: 2 pages updated in \d+ ms \(2 of 4 rendered, the others kept\)$/);
      expect(await (await fetch(`${server.url}/`)).text()).toContain("O início");
    } finally {
      await server.close();
    }
  }, 90_000);
});

describe("npm run dev on content that does not build", () => {
  it("answers every page with the errors and the overlay instead of waiting or a bare 404; the fix brings the site", async () => {
    const broken = await editedFixture("basic", { "site.yaml": (s) => s.replace(/^name: .*$/m, "name: [sem fechar") });
    const out = path.join(await mkdtemp(path.join(tmpdir(), "cafe-dev-broken-")), "out");
    const lines: string[] = [];
    const server = await startDev({ projectRoot, contentDir: broken, outDir: out, port: 0, host: "127.0.0.1", ...devTheme, log: (l) => lines.push(l) });
    try {
      for (const route of ["/", "/primeiro"]) {
        const res = await fetch(server.url + route);
        expect(res.status).toBe(500);
        const html = await res.text();
        // In the site's language (this blog's: Portuguese), as the overlay is.
        expect(html).toContain('<html lang="pt">');
        expect(html).toContain("O site não pôde ser construído");
        expect(html).toMatch(/site\.yaml:\d+:\d+: invalid YAML/);
        expect(html).toContain('<script type="module" src="/__cafe/dev-client.js"></script>');
      }
      expect(lines.join("\n")).toMatch(/site\.yaml:\d+:\d+: invalid YAML/);
      await writeFile(path.join(broken, "site.yaml"), await readFile(path.join(projectRoot, "tests/fixtures/basic/site.yaml"), "utf8"));
      await expect.poll(async () => (await fetch(server.url + "/primeiro")).status, { timeout: 15_000 }).toBe(200);
    } finally {
      await server.close();
    }
  }, 60_000);
});

describe("npm run dev from the command line", () => {
  it("never writes into the published folder: drafts stay out of dist/", async () => {
    const site = await editedFixture("basic", {
      "articles/rascunho.md": "---\ntitle: Rascunho secreto\ndraft: true\n---\n\nAinda não publicado.\n",
    });
    const cwd = await mkdtemp(path.join(tmpdir(), "cafe-dev-cli-"));
    const child = spawn(process.execPath, [path.join(projectRoot, "engine/launch.mjs"), "dev", "--content", site, "--port", "0"], { cwd, stdio: ["ignore", "pipe", "pipe"] });
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let out = "";
        child.stdout!.on("data", (chunk: Buffer) => {
          out += chunk.toString();
          const found = /dev server: (http:\/\/\S+)/.exec(out);
          if (found) resolve(found[1]!);
        });
        child.on("exit", () => reject(new Error(`dev exited: ${out}`)));
      });
      expect(await (await fetch(`${url}/rascunho`)).text()).toContain("Ainda não publicado.");
      expect(existsSync(path.join(cwd, "dist"))).toBe(false);
      expect(existsSync(path.join(projectRoot, "dist", "rascunho.html"))).toBe(false);
    } finally {
      child.kill("SIGTERM");
    }
  }, 60_000);
});

describe("stopping npm run dev", () => {
  it.each(["SIGINT", "SIGTERM"] as const)(
    "%s stops it at once while its builder parses an article that would take minutes, and leaves no builder running",
    async (signal) => {
      const site = await editedFixture("basic", { "articles/lento.md": STUCK_ARTICLE });
      const cwd = await mkdtemp(path.join(tmpdir(), "cafe-dev-stop-"));
      const child = spawn(process.execPath, [path.join(projectRoot, "engine/launch.mjs"), "dev", "--content", site, "--port", "0"], { cwd, stdio: ["ignore", "pipe", "pipe"] });
      let output = "";
      child.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString()));
      child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
      const exited = new Promise<void>((resolve) => child.on("close", () => resolve()));
      // The builder process the dev server started (Linux's /proc lists a process's children).
      const builderPid = async () => {
        for (;;) {
          const children = (await readFile(`/proc/${child.pid}/task/${child.pid}/children`, "utf8").catch(() => "")).split(" ").filter(Boolean).map(Number);
          for (const pid of children) {
            if ((await readFile(`/proc/${pid}/cmdline`, "utf8").catch(() => "")).includes("--dev-builder")) return pid;
          }
          if (child.exitCode !== null || child.signalCode !== null) throw new Error(`dev ended before it started its builder:\n${output}`);
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      };
      const builder = await builderPid();
      onTestFinished(() => {
        for (const pid of [child.pid!, builder]) {
          try {
            process.kill(pid, "SIGKILL");
          } catch {
            // Gone already.
          }
        }
      });
      // Its thread is busy parsing (nothing else in a four-article build takes three seconds of work).
      await busyFor(builder, 3);
      // To the dev server alone, as `kill` or a process manager sends it (Ctrl+C in a terminal reaches every process of the group).
      child.kill(signal);
      await exited;
      // Were the builder left running, it would parse for minutes yet (the test's time runs out first).
      for (let state = await processState(builder); state && state.state !== "Z"; state = await processState(builder)) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(output).not.toMatch(/pages ready/);
    },
    120_000,
  );
});

describe("npm run dev on a site it has built before", () => {
  it("starts from its cache: no page that nothing changed is rendered again", async () => {
    const site = await editedFixture("basic", {});
    const dir = await mkdtemp(path.join(tmpdir(), "cafe-dev-cache-"));
    const start = async () => {
      const lines: string[] = [];
      const server = await startDev({ projectRoot, contentDir: site, outDir: path.join(dir, "out"), cacheDir: path.join(dir, "cache"), port: 0, host: "127.0.0.1", ...devTheme, log: (l) => lines.push(l) });
      await server.close();
      // The cache is saved when the builder has been idle a moment.
      await new Promise((resolve) => setTimeout(resolve, 1500));
      // One message for the start, not "16 pages updated" and then "15 pages ready".
      expect(lines.filter((l) => l.startsWith("start:"))).toHaveLength(1);
      return lines.find((l) => l.startsWith("start:") && l.includes("ready")) ?? "";
    };
    expect(await start()).toMatch(/^start: 4 pages ready in \d+ ms$/);
    expect(await start()).toMatch(/^start: 4 pages ready in \d+ ms \(4 unchanged since the last session, from the cache\)$/);
    await writeFile(path.join(site, "articles/guia/so-titulo.md"), "---\ntitle: Só título\n---\n\nOutro texto.\n");
    expect(await start()).toMatch(/\(3 unchanged since the last session, from the cache\)$/);
  }, 90_000);
});
