/**
 * The local static server of `preview` and `dev`: serves the built folder the way a static
 * host does. Every route answers at its exact path (`/artigo-transicao` from
 * `artigo-transicao.html`), anything else gets 404.html with status 404, and nothing
 * outside the folder is ever served (sirv resolves paths inside its root only).
 */
import http from "node:http";
import { readFile, stat } from "node:fs/promises";
import { gzipSync } from "node:zlib";
import path from "node:path";
import sirv from "sirv";

export interface ServeOptions {
  root: string;
  port: number;
  host: string;
  /** dev: re-read the folder on every request, no caching headers. */
  dev?: boolean;
  /** Extra handler tried first (dev mode's live-reload endpoint). */
  before?: (req: http.IncomingMessage, res: http.ServerResponse) => boolean;
  /** Rewrites every HTML page served (dev mode adds its live-reload script). */
  injectHtml?: (html: string) => string;
}

/** Paths that would reach a page file under a second name: only the exact route may. */
function isAlias(pathname: string): boolean {
  return (
    /\.html?$/i.test(pathname) ||
    /(^|\/)index$/.test(pathname) ||
    pathname === "/404" ||
    (pathname.length > 1 && pathname.endsWith("/"))
  );
}

export function createSiteHandler(options: Pick<ServeOptions, "root" | "dev" | "injectHtml">) {
  const root = path.resolve(options.root);
  /** Hashed assets may be cached for ever (not in dev, where names are rebuilt in place). */
  const cacheControl = (pathname: string) =>
    !options.dev && pathname.startsWith("/assets/") ? "public, max-age=31536000, immutable" : "no-cache";
  /** The file a URL path serves, only ever inside the root: a route (no extension) is its page. */
  const fileOf = (pathname: string) => {
    const relative = path.extname(pathname) ? pathname : `${pathname === "/" ? "/index" : pathname}.html`;
    const file = path.resolve(root, `.${relative}`);
    return file.startsWith(root + path.sep) ? file : undefined;
  };
  const assets = sirv(root, {
    dev: options.dev ?? false,
    etag: true,
    extensions: ["html"],
    dotfiles: false,
    setHeaders(res, pathname) {
      res.setHeader("Cache-Control", cacheControl(pathname));
    },
  });
  const inject = options.injectHtml;
  const sendHtml = (res: http.ServerResponse, status: number, html: Buffer, gzip = false) => {
    const raw = inject ? Buffer.from(inject(html.toString("utf8"))) : html;
    const body = gzip ? gzipSync(raw) : raw;
    res.writeHead(status, {
      "Content-Type": "text/html; charset=utf-8",
      "Content-Length": body.length,
      "Cache-Control": "no-cache",
      Vary: "Accept-Encoding",
      ...(gzip ? { "Content-Encoding": "gzip" } : {}),
    });
    res.end(body);
  };
  const notFound = async (res: http.ServerResponse, gzip = false) => {
    sendHtml(res, 404, await readFile(path.join(root, "404.html")).catch(() => Buffer.from("404 Not Found")), gzip);
  };
  // Static hosts compress text; so does the preview, so what it shows is what readers get.
  const compressed = new Map<string, { mtimeMs: number; body: Buffer }>();
  const COMPRESSIBLE = /\.(html|css|js|mjs|svg|xml|json|txt)$/;
  const sendCompressed = async (req: http.IncomingMessage, res: http.ServerResponse, pathname: string): Promise<boolean> => {
    const file = fileOf(pathname);
    if (!file || !COMPRESSIBLE.test(file)) return false;
    const info = await stat(file).catch(() => undefined);
    if (!info?.isFile()) return false;
    let entry = compressed.get(file);
    if (!entry || entry.mtimeMs !== info.mtimeMs) {
      entry = { mtimeMs: info.mtimeMs, body: gzipSync(await readFile(file)) };
      compressed.set(file, entry);
    }
    const type = mimeOf(file);
    res.writeHead(200, {
      "Content-Type": type,
      "Content-Encoding": "gzip",
      "Content-Length": entry.body.length,
      Vary: "Accept-Encoding",
      "Cache-Control": cacheControl(pathname),
    });
    res.end(req.method === "HEAD" ? undefined : entry.body);
    return true;
  };

  return (req: http.IncomingMessage, res: http.ServerResponse) => {
    let pathname: string;
    try {
      pathname = decodeURIComponent(new URL(req.url ?? "/", "http://local").pathname);
    } catch {
      res.writeHead(400, { "Content-Type": "text/plain; charset=utf-8" }).end("Bad Request");
      return;
    }
    if (req.method !== "GET" && req.method !== "HEAD") {
      res.writeHead(405, { Allow: "GET, HEAD", "Content-Type": "text/plain; charset=utf-8" }).end("Method Not Allowed");
      return;
    }
    const gzip = /\bgzip\b/.test(String(req.headers["accept-encoding"] ?? ""));
    if (pathname.includes("\0") || pathname.includes("\\") || isAlias(pathname)) {
      void notFound(res, gzip);
      return;
    }
    if (gzip && !inject) {
      void sendCompressed(req, res, pathname).then((sent) => {
        if (!sent) assets(req, res, () => void notFound(res, gzip));
      });
      return;
    }
    if (inject && !path.extname(pathname)) {
      const file = fileOf(pathname);
      if (!file) return void notFound(res);
      void readFile(file).then(
        (html) => sendHtml(res, 200, html),
        () => notFound(res),
      );
      return;
    }
    assets(req, res, () => void notFound(res));
  };
}

/** Starts the server and resolves with its URL once it listens. */
export function serve(options: ServeOptions): Promise<{ url: string; server: http.Server }> {
  const handler = createSiteHandler(options);
  const server = http.createServer((req, res) => {
    if (options.before?.(req, res)) return;
    handler(req, res);
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

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".svg": "image/svg+xml",
  ".xml": "application/xml; charset=utf-8",
  ".json": "application/json; charset=utf-8",
  ".txt": "text/plain; charset=utf-8",
};
const mimeOf = (file: string) => TYPES[path.extname(file)] ?? "application/octet-stream";
