/**
 * The local static server of `preview` and `dev`: serves the built folder the way a static
 * host does. Every route answers at its exact path (`/artigo-transicao` from
 * `artigo-transicao.html`), anything else gets 404.html with status 404, and nothing
 * outside the folder is ever served (sirv resolves paths inside its root only).
 */
import http from "node:http";
import { readFile } from "node:fs/promises";
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

export function createSiteHandler(options: Pick<ServeOptions, "root" | "dev">) {
  const root = path.resolve(options.root);
  const assets = sirv(root, {
    dev: options.dev ?? false,
    etag: true,
    extensions: ["html"],
    dotfiles: false,
    setHeaders(res, pathname) {
      if (!options.dev && pathname.startsWith("/assets/")) {
        res.setHeader("Cache-Control", "public, max-age=31536000, immutable");
      }
    },
  });
  const notFound = async (res: http.ServerResponse) => {
    const body = await readFile(path.join(root, "404.html")).catch(() => Buffer.from("404 Not Found"));
    res.writeHead(404, { "Content-Type": "text/html; charset=utf-8", "Content-Length": body.length });
    res.end(body);
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
    if (pathname.includes("\0") || pathname.includes("\\") || isAlias(pathname)) {
      void notFound(res);
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
