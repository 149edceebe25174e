/**
 * The local static server of `preview` and `dev`: serves the built folder the way a static
 * host does, and gives the same answers as deploy/nginx.conf in nginx (tests/static-parity.test.ts
 * compares the two on the same folder). Every route answers at its exact path
 * (`/artigo-transicao` from `artigo-transicao.html`); anything else gets 404.html with status
 * 404: page files under a second name (`/x.html`, `/index`, `/404`, trailing-slash twins),
 * dotfiles (`/.cafe-build.json`) and `_headers`, which are for the host, not for readers.
 * A path is read the way nginx reads it: percent-decoded, slashes merged, `.` and `..`
 * resolved; one that climbs above the root, or holds a NUL or a broken escape, is a 400. No
 * file outside the root is ever served, symbolic links included.
 *
 * Both servers are for one person's machine: they answer only requests whose Host header
 * names this machine (localhost, 127.0.0.1, [::1], the --host they listen on, and every
 * --allowed-host) and refuse any other with 403. Without that, a page on another site could
 * point a name it controls at 127.0.0.1 (DNS rebinding) and read drafts and error frames.
 */
import http from "node:http";
import { createReadStream, readFileSync, realpathSync, statSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { pipeline } from "node:stream";
import { networkInterfaces } from "node:os";
import path from "node:path";
import { gzipSync } from "node:zlib";
import { lookup } from "mrmime";
import { parseRedirects } from "../stages/routes/redirect-files.js";

export interface ServeOptions {
  root: string;
  port: number;
  host: string;
  /** Names (or addresses) also accepted in the Host header: `--allowed-host`, repeatable. */
  allowedHosts?: readonly string[];
  /** dev: no caching headers (files are rebuilt in place under the same names). */
  dev?: boolean;
  /** Extra handler tried first (dev mode's live-reload endpoint), after the Host check. */
  before?: (req: http.IncomingMessage, res: http.ServerResponse) => boolean;
  /** Rewrites every HTML page served (dev mode adds its live-reload script). */
  injectHtml?: (html: string) => string;
  /** A build not yet published whose pages are served meanwhile (`cafe start`, while the social cards are drawn). */
  finishing?: Finishing;
}

/**
 * A build whose pages are written and checked but that is not yet published (its social
 * cards are being drawn). Until `done` settles, a file this build wrote, whole, is served
 * from its folder; any other request (a card not drawn yet, the feed) waits for `done`, then
 * is answered from the root as always: nothing half-written and nothing of an older build
 * is served.
 */
export interface Finishing {
  /** The folder the build writes into. */
  dir: string;
  /** Whether the build wrote `file` (relative to `dir`, `/` between folders), whole. */
  holds(file: string): boolean;
  /** Settles once the build is published (or failed). */
  done: Promise<unknown>;
}

// ---------------------------------------------------------------------------------------
// Host and Origin

/**
 * The canonical host name of a Host header value (`name`, `name:port`, `[v6]:port`),
 * lower-cased, IPv4 and IPv6 addresses in their usual form; undefined when it is not one.
 */
function hostnameOf(value: string): string | undefined {
  // Nothing a URL would read as a path, user or second host: only the name and a port.
  if (value === "" || /[\s/\\?#@%]/.test(value)) return undefined;
  try {
    return new URL(`http://${value}`).hostname || undefined;
  } catch {
    return undefined;
  }
}

/** How a host given on the command line is written in a Host header (IPv6 in brackets). */
function asHostHeader(name: string): string {
  return (name.match(/:/g) ?? []).length > 1 && !name.startsWith("[") ? `[${name}]` : name;
}

const WILDCARDS = new Set(["0.0.0.0", "::", "[::]"]);

/**
 * The host names a server answers to: this machine's loopback names, the host it listens on
 * (every address of this machine when that is a wildcard such as 0.0.0.0) and the extra
 * ones. A name that is not a host name at all throws, naming it.
 */
export function allowedHostnames(host: string, extra: readonly string[] = []): Set<string> {
  const names = new Set(["localhost", "127.0.0.1", "[::1]"]);
  const given = [host, ...extra];
  if (WILDCARDS.has(host)) {
    for (const addresses of Object.values(networkInterfaces())) {
      for (const address of addresses ?? []) if (!address.address.includes("%")) given.push(address.address);
    }
  }
  for (const name of given) {
    if (WILDCARDS.has(name)) continue;
    const canonical = hostnameOf(asHostHeader(name));
    if (!canonical) throw new Error(`'${name}' is not a host name`);
    names.add(canonical);
  }
  return names;
}

/** Why a request's Host is refused, in one line; undefined when it is accepted. */
export function refusedHost(req: http.IncomingMessage, allowed: ReadonlySet<string>): string | undefined {
  // An absolute-form request target (`GET http://name/path`) names the host that counts.
  const absolute = /^https?:\/\/([^/?#]*)/i.exec(req.url ?? "");
  const value = absolute ? absolute[1]! : req.headers.host;
  if (value === undefined) return "Forbidden: the request has no Host header.";
  const name = hostnameOf(value);
  if (name && allowed.has(name)) return undefined;
  const shown = JSON.stringify(value.length > 100 ? `${value.slice(0, 100)}…` : value);
  if (!name) return `Forbidden: the Host header ${shown} is not a host name.`;
  return `Forbidden: this server answers only to ${[...allowed].join(", ")}, not to host ${shown}; to open it under that name, restart it with --allowed-host ${name}.`;
}

/**
 * True when the request carries an Origin other than the page's own (`http://` + its Host):
 * a page of another site, or an opaque origin ("null"). A request without Origin is a
 * same-origin one (browsers send none on same-origin GETs) or not from a browser at all.
 */
export function isForeignOrigin(req: http.IncomingMessage): boolean {
  const origin = req.headers.origin;
  if (origin === undefined) return false;
  const host = req.headers.host;
  if (host === undefined || !hostnameOf(host)) return true;
  try {
    const from = new URL(origin);
    if (from.protocol !== "http:" && from.protocol !== "https:") return true;
    return from.host !== new URL(`${from.protocol}//${host}`).host;
  } catch {
    return true;
  }
}

/** A plain-text answer of one line: refusals and errors. */
export const refuse = (res: http.ServerResponse, status: number, reason: string) => {
  const body = `${reason}\n`;
  res.writeHead(status, { "Content-Type": "text/plain; charset=utf-8", "Content-Length": Buffer.byteLength(body), "Cache-Control": "no-store" });
  res.end(body);
};

// ---------------------------------------------------------------------------------------
// Paths: what nginx does with a request target, and deploy/nginx.conf's locations

/** The request lines nginx accepts by default (large_client_header_buffers 4 8k). */
const MAX_REQUEST_LINE = 8 * 1024;

type Resolved = { status: 200; urlPath: string } | { status: 400 | 404 | 414 };

/**
 * The path a request target names, as nginx reads it: the path of an absolute-form target,
 * cut at `?` and `#`, percent-decoded (a broken escape or a NUL is a 400; bytes that are not
 * UTF-8 name no file), slashes merged, `.` and `..` resolved (climbing above the root is a
 * 400).
 */
export function requestPath(target: string): { status: 200; urlPath: string } | { status: 400 | 404 } {
  let raw = target;
  const absolute = /^https?:\/\/[^/?#]*/i.exec(raw);
  if (absolute) raw = raw.slice(absolute[0].length) || "/";
  if (!raw.startsWith("/")) return { status: 400 };
  raw = raw.split(/[?#]/, 1)[0]!;
  const bytes: number[] = [];
  for (let i = 0; i < raw.length; i++) {
    const code = raw.charCodeAt(i);
    if (code === 0x25 /* % */) {
      const hex = raw.slice(i + 1, i + 3);
      if (!/^[0-9a-fA-F]{2}$/.test(hex)) return { status: 400 };
      bytes.push(parseInt(hex, 16));
      i += 2;
    } else if (code > 0xff) {
      return { status: 400 }; // Node's parser lets no such character through
    } else {
      bytes.push(code);
    }
  }
  if (bytes.includes(0)) return { status: 400 };
  let decoded: string;
  try {
    decoded = new TextDecoder("utf-8", { fatal: true }).decode(Uint8Array.from(bytes));
  } catch {
    return { status: 404 };
  }
  const segments = decoded.split("/").slice(1);
  const out: string[] = [];
  for (const [i, segment] of segments.entries()) {
    const last = i === segments.length - 1;
    if (segment === "" && !last) continue; // merged slashes
    if (segment === ".") {
      if (last) out.push("");
    } else if (segment === "..") {
      if (out.length === 0) return { status: 400 };
      out.pop();
      if (last) out.push("");
    } else {
      out.push(segment);
    }
  }
  return { status: 200, urlPath: `/${out.join("/")}` };
}

/**
 * deploy/nginx.conf's locations: the path of the file a URL path serves (relative to the
 * root, to be looked up in order), or 404.
 */
function candidates(urlPath: string): string[] | undefined {
  if (urlPath === "/") return ["/index.html"];
  if (/\/\./.test(urlPath)) return undefined; // dotfiles: not for readers
  if (urlPath === "/_headers" || urlPath === "/_redirects" || urlPath === "/_redirects.map") return undefined; // files for hosts
  if (/\.html$/.test(urlPath)) return undefined; // a page only at its route, not as x.html
  if (/^\/.+\/$/.test(urlPath)) return undefined; // ...nor its trailing-slash twin
  if (/(^|\/)(index|404)$/.test(urlPath)) return undefined; // ...nor /index or /404
  return [urlPath, `${urlPath}.html`];
}

function resolve(req: http.IncomingMessage): Resolved {
  const target = req.url ?? "/";
  const line = `${req.method} ${target} HTTP/1.1\r\n`;
  if (line.length > MAX_REQUEST_LINE) return { status: 414 };
  return requestPath(target);
}

// ---------------------------------------------------------------------------------------
// Files

/** Types static hosts compress (and add a charset to). */
const TEXT = /^(text\/|application\/(javascript|json|xml|rss\+xml|atom\+xml|manifest\+json)|image\/svg\+xml)/;

function typeOf(file: string): string {
  const type = lookup(path.extname(file).slice(1)) ?? "application/octet-stream";
  return TEXT.test(type) ? `${type}; charset=utf-8` : type;
}

/** Whether the client takes gzip (`gzip;q=0` says it does not). */
function acceptsGzip(req: http.IncomingMessage): boolean {
  const header = String(req.headers["accept-encoding"] ?? "");
  for (const part of header.split(",")) {
    const [coding, ...params] = part.trim().split(";");
    if (coding?.trim().toLowerCase() !== "gzip" && coding?.trim() !== "*") continue;
    const q = params.map((p) => /^\s*q=([\d.]+)\s*$/i.exec(p)?.[1]).find((v) => v !== undefined);
    return q === undefined || Number(q) > 0;
  }
  return false;
}

/** Files above this size are streamed as they are, never read whole, rewritten or compressed. */
const MAX_TRANSFORMED = 8 * 1024 * 1024;
/** Bytes of page bodies (rewritten, compressed) kept between requests. */
const CACHE_BYTES = 64 * 1024 * 1024;

interface Body {
  key: string;
  plain: Buffer;
  gzip?: Buffer;
}

export function createSiteHandler(options: Pick<ServeOptions, "root" | "dev" | "injectHtml" | "finishing">) {
  const root = path.resolve(options.root);
  // Set before any request waits on `done`: a request that waited finds it gone.
  let finishing = options.finishing;
  const finished = () => void (finishing = undefined);
  finishing?.done.then(finished, finished);
  const inject = options.injectHtml;
  const cacheControl = (urlPath: string) =>
    !options.dev && urlPath.startsWith("/assets/") ? "public, max-age=31536000, immutable" : "no-cache";

  // Rewritten and compressed bodies, by file, valid while its size and mtime are the same;
  // the least recently used go first once they pass CACHE_BYTES.
  const bodies = new Map<string, Body>();
  let cached = 0;
  const sizeOf = (body: Body) => body.plain.length + (body.gzip?.length ?? 0);
  const remember = (file: string, body: Body) => {
    const old = bodies.get(file);
    if (old) {
      bodies.delete(file);
      cached -= sizeOf(old);
    }
    bodies.set(file, body);
    cached += sizeOf(body);
    for (const [oldest, entry] of bodies) {
      if (cached <= CACHE_BYTES || oldest === file) break;
      bodies.delete(oldest);
      cached -= sizeOf(entry);
    }
  };
  const load = async (file: string, key: string, html: boolean, gzip: boolean): Promise<Body> => {
    const known = bodies.get(file);
    let body: Body;
    if (known?.key === key) {
      body = { ...known };
    } else {
      const raw = await readFile(file);
      body = { key, plain: html && inject ? Buffer.from(inject(raw.toString("utf8"))) : raw };
    }
    if (gzip && !body.gzip) body.gzip = gzipSync(body.plain);
    remember(file, body);
    return body;
  };
  // Requests that arrive together for a file not yet in memory share one read and one gzip.
  const inflight = new Map<string, Promise<Body>>();
  const bodyOf = (file: string, key: string, html: boolean, gzip: boolean): Promise<Body> => {
    const id = `${file}\0${key}\0${gzip}`;
    let pending = inflight.get(id);
    if (!pending) {
      pending = load(file, key, html, gzip).finally(() => inflight.delete(id));
      inflight.set(id, pending);
    }
    return pending;
  };

  /**
   * A regular file inside the root (after following links), with its size and mtime.
   * Synchronous on purpose: a stat of a local file takes microseconds, less than a trip
   * through libuv's four-thread pool, which many connections at once queue on.
   */
  let realRoot = root;
  const inside = (real: string, base: string) => real.startsWith(base + path.sep);
  const findFile = (relative: string) => {
    const building = finishing;
    // Before the build is published: only what it wrote, from its own folder.
    if (building && !building.holds(relative.replace(/^\/+/, ""))) return undefined;
    const file = path.join(building?.dir ?? root, relative);
    try {
      const info = statSync(file, { throwIfNoEntry: false });
      if (!info?.isFile()) return undefined;
      const real = realpathSync.native(file);
      if (building) return inside(real, realpathSync.native(building.dir)) ? { file, info } : undefined;
      if (!inside(real, realRoot)) {
        realRoot = realpathSync.native(root); // the root itself may be (or have become) a link
        if (!inside(real, realRoot)) return undefined;
      }
      return { file, info };
    } catch {
      return undefined; // ENOTDIR, ENAMETOOLONG, EACCES...: no such file for a reader
    }
  };

  const send = async (
    req: http.IncomingMessage,
    res: http.ServerResponse,
    status: 200 | 404,
    found: { file: string; info: { size: number; mtimeMs: number; ino: number } },
    cache: string,
  ) => {
    const { file, info } = found;
    const type = typeOf(file);
    const text = TEXT.test(type) && info.size <= MAX_TRANSFORMED;
    const html = type.startsWith("text/html");
    const etag = `W/"${info.size.toString(16)}-${Math.round(info.mtimeMs * 1000).toString(16)}"`;
    const headers: http.OutgoingHttpHeaders = { "Content-Type": type, "Cache-Control": cache };
    if (text) headers.Vary = "Accept-Encoding";
    if (status === 200) {
      headers.ETag = etag;
      if (req.headers["if-none-match"]?.split(",").some((t) => t.trim() === etag || t.trim() === "*")) {
        res.writeHead(304, headers).end();
        return;
      }
    }
    if (!text) {
      headers["Content-Length"] = info.size;
      res.writeHead(status, headers);
      if (req.method === "HEAD") return void res.end();
      // pipeline closes the file when the client goes away mid-way, and the answer on a read error.
      pipeline(createReadStream(file), res, () => {});
      return;
    }
    const gzip = acceptsGzip(req) && info.size >= 20;
    const body = await bodyOf(file, `${etag}:${info.ino}`, html, gzip);
    const bytes = gzip ? body.gzip! : body.plain;
    if (gzip) headers["Content-Encoding"] = "gzip";
    headers["Content-Length"] = bytes.length;
    res.writeHead(status, headers);
    res.end(req.method === "HEAD" ? undefined : bytes);
  };

  // Old addresses: the `_redirects` file the build writes, read again whenever it changes.
  let redirects: { key: string; rules: ReturnType<typeof parseRedirects> } = { key: "", rules: new Map() };
  const redirectOf = (urlPath: string): string | undefined => {
    const found = findFile("_redirects");
    const key = found ? `${found.info.size}-${found.info.mtimeMs}-${found.info.ino}` : "";
    if (key !== redirects.key) {
      let rules: ReturnType<typeof parseRedirects> = new Map();
      try {
        if (found) rules = parseRedirects(readFileSync(found.file, "utf8"));
      } catch {
        // unreadable: no redirects, as a host would have none
      }
      redirects = { key, rules };
    }
    // As nginx's map matches strings: in any case (old addresses are lowercase routes).
    const rule = redirects.rules.get(urlPath.toLowerCase());
    return rule && rule.status === 301 ? rule.to : undefined;
  };
  /** A permanent redirect, as deploy/nginx.conf gives it: the Location a path, the query string kept. */
  const redirect = (req: http.IncomingMessage, res: http.ServerResponse, to: string) => {
    const target = req.url ?? "";
    const at = target.indexOf("?");
    const query = at < 0 ? "" : target.slice(at + 1).split("#", 1)[0]!;
    const location = query ? `${to}?${query}` : to;
    const body = `<!DOCTYPE html><title>301 Moved Permanently</title><p>Moved to <a href="${location.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`)}">${to}</a></p>\n`;
    res.writeHead(301, { Location: location, "Content-Type": "text/html; charset=utf-8", "Content-Length": Buffer.byteLength(body), "Cache-Control": "no-cache" });
    res.end(req.method === "HEAD" ? undefined : body);
  };

  const notFound = async (req: http.IncomingMessage, res: http.ServerResponse) => {
    const page = findFile("404.html");
    if (page) return send(req, res, 404, page, "no-cache");
    refuse(res, 404, "Not Found");
  };

  const answer = async (req: http.IncomingMessage, res: http.ServerResponse) => {
    const resolved = resolve(req);
    if (resolved.status !== 200) {
      if (resolved.status === 404) return notFound(req, res);
      return refuse(res, resolved.status, resolved.status === 400 ? "Bad Request" : "URI Too Long");
    }
    const to = redirectOf(resolved.urlPath);
    if (to) return redirect(req, res, to);
    const files = candidates(resolved.urlPath);
    let found;
    for (const relative of files ?? []) if ((found = findFile(relative))) break;
    if (!found && files && finishing) {
      // Not written yet (a card being drawn, the feed): answered once the build is published.
      await finishing.done.catch(() => {});
      return answer(req, res);
    }
    if (!found) return notFound(req, res);
    if (req.method !== "GET" && req.method !== "HEAD") {
      res.setHeader("Allow", "GET, HEAD");
      return refuse(res, 405, "Method Not Allowed");
    }
    return send(req, res, 200, found, cacheControl(resolved.urlPath));
  };

  return (req: http.IncomingMessage, res: http.ServerResponse) => {
    answer(req, res).catch(() => {
      if (res.headersSent) res.destroy();
      else refuse(res, 500, "Internal Server Error");
    });
  };
}

/** Starts the server and resolves with its URL once it listens. */
export function serve(options: ServeOptions): Promise<{ url: string; server: http.Server }> {
  const allowed = allowedHostnames(options.host, options.allowedHosts);
  const handler = createSiteHandler(options);
  const server = http.createServer((req, res) => {
    const refused = refusedHost(req, allowed);
    if (refused) return refuse(res, 403, refused);
    if (options.before?.(req, res)) return;
    handler(req, res);
  });
  // A request line longer than Node reads (16 KB of head) is a 414, as in nginx; the rest
  // get what Node answers by itself (431 for too many headers, 408 for a slow client, 400).
  server.on("clientError", (error: NodeJS.ErrnoException & { rawPacket?: Buffer }, socket) => {
    if (!socket.writable) return void socket.destroy();
    const lineEnd = error.rawPacket?.indexOf("\r\n") ?? -1;
    const status =
      error.code === "HPE_HEADER_OVERFLOW"
        ? lineEnd === -1 || lineEnd > MAX_REQUEST_LINE
          ? "414 URI Too Long"
          : "431 Request Header Fields Too Large"
        : error.code === "ERR_HTTP_REQUEST_TIMEOUT"
          ? "408 Request Timeout"
          : "400 Bad Request";
    socket.end(`HTTP/1.1 ${status}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : options.port;
      const host = options.host.includes(":") ? `[${options.host}]` : options.host;
      resolve({ url: `http://${host}:${port}`, server });
    });
  });
}
