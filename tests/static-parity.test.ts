/**
 * The preview server serves what a static host would: on the same built folder, it gives
 * the same answers as deploy/nginx.conf in a real nginx, path by path, whatever the client's
 * Accept-Encoding. Status codes always; for a 200 the same bytes and the same content type;
 * for a 404 the same 404 page. The paths include every route and asset kind, and the ones
 * an attacker or a broken link would send.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type http from "node:http";
import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { inputFingerprint, recordBuild } from "../engine/incremental/fingerprint.js";
import { serve } from "../engine/servers/static-server.js";
import { projectRoot, SPEC_ARTICLE_ROUTES } from "./helpers.js";
import { buildRealSite, OLD_ADDRESSES, rawRequest, requireNginx, startNginx, type RawAnswer, type RunningNginx } from "./nginx-server.js";

const haveNginx = requireNginx("The preview-against-nginx test");

let nginx: RunningNginx | undefined;
let preview: http.Server | undefined;
let previewBase = "";
let site = "";
let notFoundPage: Buffer;
const assets: string[] = [];

beforeAll(async () => {
  if (!haveNginx) return;
  site = await buildRealSite();
  // As `npm run build` leaves it: with the build's record, a dotfile.
  await recordBuild(site, (await inputFingerprint(projectRoot, path.join(projectRoot, "content"), ["templates", "client", "engine", "public"], "{}")).value);
  // And what an editor may leave in public/: dotfiles in a subfolder, a hidden folder.
  await writeFile(path.join(site, "assets/.DS_Store"), "editor leftovers");
  await mkdir(path.join(site, ".git"));
  await writeFile(path.join(site, ".git/config"), "[core]");
  notFoundPage = await readFile(path.join(site, "404.html"));
  for (const dir of ["assets", "assets/chunks", "assets/fonts"]) {
    const files = (await readdir(path.join(site, dir), { withFileTypes: true })).filter((e) => e.isFile() && !e.name.startsWith("."));
    // Two of each kind of file the folder has (a script and a stylesheet of assets/, whatever other scripts sort first).
    const kinds = [...new Set(files.map((e) => path.extname(e.name)))];
    assets.push(...kinds.flatMap((kind) => files.filter((e) => path.extname(e.name) === kind).slice(0, 2)).map((e) => `/${dir}/${e.name}`));
  }
  nginx = await startNginx(site);
  const started = await serve({ root: site, port: 0, host: "127.0.0.1" });
  preview = started.server;
  previewBase = started.url;
}, 120_000);
afterAll(async () => {
  await nginx?.stop();
  await new Promise((resolve) => (preview ? preview.close(resolve) : resolve(undefined)));
});

type Answer = RawAnswer;
const request = rawRequest;

/** The media type, with the names nginx's mime.types and mrmime give one type under two spellings made one. */
const SYNONYMS: Record<string, string> = { "application/javascript": "text/javascript", "application/xml": "text/xml" };
const mediaType = (type: string) => {
  const essence = type.split(";")[0]!.trim().toLowerCase();
  return SYNONYMS[essence] ?? essence;
};

/** A path as test names show it: a long one by its length, not in full. */
const shown = (p: string) => (p.length > 60 ? `${p.slice(0, 12)}… (${p.length} characters)` : p);

const ROUTES = ["/", ...SPEC_ARTICLE_ROUTES];
const FILES = ["/favicon.svg", "/feed.xml", "/sitemap.xml", "/robots.txt"];
const { alias, gone, elsewhere } = OLD_ADDRESSES;
/** Old addresses (an alias, redirects of site.yaml) and their near misses. */
const OLD = [
  alias.from,
  gone.from,
  elsewhere.from,
  `${alias.from}?utm_source=whatsapp`,
  `${alias.from}?a=1&b=%20x`,
  `${alias.from}?`,
  `${gone.from}?q=1`,
  `${alias.from}#frag`,
  `${alias.from}.html`,
  `${alias.from}/`,
  `/artigo//${alias.from.split("/").pop()}`,
  `/artigo/%74ransicao-de-carreira`,
  `/x/..${alias.from}`,
  alias.from.toUpperCase(),
  `${gone.from}.html`,
  "/_redirects",
  "/_redirects.map",
  "/%5Fredirects",
  "/_redirects?x=1",
];
const HOSTILE = [
  // climbing out of the root, plain and encoded
  "/../etc/passwd",
  "/../../../../etc/passwd",
  "/%2e%2e/",
  "/%2e%2e/%2e%2e/etc/passwd",
  "/%2E%2E/",
  "/.%2e/",
  "/..",
  "/%2e%2e",
  "/..%2f..%2fetc/passwd",
  "/assets/..%2f..%2f..%2fetc/passwd",
  "/a/b/c/../../../..",
  "/..%5c..%5cetc/passwd",
  "/%252e%252e/%252e%252e/etc/passwd",
  "/%C0%AE%C0%AE/",
  // ...and dot segments that stay inside it
  "/a/../artigo-transicao",
  "/a/%2e%2e/artigo-transicao",
  "/./artigo-transicao",
  "/artigo/..",
  "/artigo-transicao/..",
  "/.",
  "/%2e",
  "/artigo/.",
  // files for the host, not for readers
  "/.cafe-build.json",
  "/%2ecafe-build.json",
  "/%2e%63afe-build.json",
  "/assets/.DS_Store",
  "/.git/config",
  "/.git/",
  "/_headers",
  "/%5Fheaders",
  "/_headers?x=1",
  "/assets/../_headers",
  "/assets/..%2f_headers",
  // pages under a second name
  "/x.html",
  "/index.html",
  "/404.html",
  "/artigo-transicao.html",
  "/artigo/setores-crescimento-crise.html",
  "/artigo-transicao/",
  "/artigo-transicao%2F",
  "/artigo/",
  "/artigo",
  "/index",
  "/artigo/index",
  "/404",
  "/artigo-transicao.htm",
  "/index.htm",
  "/ARTIGO-TRANSICAO",
  "/artigo-transicao.",
  "/artigo-transicao%20",
  "/artigo-transicao;x",
  // slashes, doubled and encoded
  "//artigo-transicao",
  "///artigo/setores-crescimento-crise",
  "/artigo//setores-crescimento-crise",
  "/artigo%2Fsetores-crescimento-crise",
  "/artigo%2fsetores-crescimento-crise",
  "/%2Fartigo-transicao",
  "/%61rtigo-transicao",
  // folders
  "/assets/",
  "/assets",
  "/assets/chunks/",
  "/assets/fonts",
  // query strings and fragments
  "/?q=1",
  "/?",
  "/artigo-transicao?x=../../etc/passwd",
  "/artigo-transicao?x=%00",
  "/artigo-transicao#frag",
  "/artigo-transicao%23frag",
  "/artigo-transicao%3Fx",
  // broken and odd percent-encoding, NUL bytes
  "/%",
  "/%zz",
  "/%2",
  "/%u002e",
  "/artigo-transicao%",
  "/%00",
  "/artigo-transicao%00",
  "/artigo-transicao%00.html",
  "/%ff",
  "/%C3%A9",
  "/%0d%0a",
  "/%20",
  "/+",
  // very long paths (nginx takes request lines up to 8 KB; Node reads 16 KB of head)
  `/${"a".repeat(4000)}`,
  `/${"a/".repeat(2000)}x`,
  `/${"a".repeat(9000)}`,
  `/${"a".repeat(20000)}`,
  // not a path
  "*",
  "artigo-transicao",
  "http://127.0.0.1/artigo-transicao",
];

describe.skipIf(!haveNginx)("the preview server against deploy/nginx.conf in nginx, on the same folder", () => {
  it("compares an asset of every kind the build writes: stylesheet, script, chunk, font", () => {
    expect(assets.find((a) => /^\/assets\/styles-[^/]+\.css$/.test(a)), "a stylesheet").toBeDefined();
    expect(assets.find((a) => /^\/assets\/[^/]+\.js$/.test(a)), "a script").toBeDefined();
    expect(assets.find((a) => /^\/assets\/chunks\/[^/]+\.js$/.test(a)), "a chunk").toBeDefined();
    expect(assets.find((a) => /^\/assets\/fonts\/[^/]+\.woff2$/.test(a)), "a font").toBeDefined();
  });

  const check = async (rawPath: string, method = "GET") => {
    for (const encoding of [undefined, "gzip", "gzip, deflate, br", "identity"]) {
      const headers = encoding ? { "Accept-Encoding": encoding } : {};
      const [fromNginx, fromPreview] = await Promise.all([request(nginx!.base, rawPath, method, headers), request(previewBase, rawPath, method, headers)]);
      const label = `${method} ${shown(rawPath)} (Accept-Encoding: ${encoding ?? "none"})`;
      expect(fromPreview.status, label).toBe(fromNginx.status);
      if (fromNginx.status === 301) expect(fromPreview.location, `${label}: Location`).toBe(fromNginx.location);
      if (fromNginx.status === 200) {
        expect(mediaType(fromPreview.type), label).toBe(mediaType(fromNginx.type));
        if (method !== "HEAD") expect(fromPreview.body.equals(fromNginx.body), `${label}: same bytes`).toBe(true);
      }
      if (fromNginx.status === 404 && method !== "HEAD") {
        expect(fromNginx.body.equals(notFoundPage), `${label}: nginx sends the 404 page`).toBe(true);
        expect(fromPreview.body.equals(notFoundPage), `${label}: the preview sends the 404 page`).toBe(true);
      }
    }
  };

  it.each(ROUTES)("GET %s: same answer", (route) => check(route));
  it.each(FILES)("GET %s: same answer", (file) => check(file));
  it("GET every kind of asset: same answer", async () => {
    for (const asset of assets) await check(asset);
  });
  it.each(HOSTILE.map((p) => [shown(p), p]))("GET %s: same answer", (_, rawPath) => check(rawPath));
  it.each(OLD)("old address GET %s: same answer (a 301 with the same Location, or the same 404)", (rawPath) => check(rawPath));
  it("the old addresses are redirects on both, not pages", async () => {
    for (const base of [nginx!.base, previewBase]) {
      const res = await request(base, `${alias.from}?x=1`);
      expect(res.status, base).toBe(301);
      expect(res.location, base).toBe(`${alias.to}?x=1`);
    }
  });
  it.each(["/", "/artigo-transicao", "/nao-existe", "/_headers", "/.cafe-build.json", "/%2e%2e/", alias.from, gone.from])("HEAD and POST %s: same answer", async (rawPath) => {
    await check(rawPath, "HEAD");
    await check(rawPath, "POST");
  });

  it("serves nothing from outside the folder, nor the folder's dotfiles, on either", async () => {
    for (const base of [nginx!.base, previewBase]) {
      for (const attack of ["/../etc/passwd", "/%2e%2e/%2e%2e/etc/passwd", "/.cafe-build.json", "/.git/config", "/_headers"]) {
        const res = await request(base, attack);
        expect([400, 404], `${base}${attack}`).toContain(res.status);
        expect(res.body.toString()).not.toMatch(/root:|"inputs"|\[core\]|Content-Security-Policy:/);
      }
    }
  });
});
