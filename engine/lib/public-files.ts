/**
 * The files of `public/`, copied into the site as they are (a favicon, a PDF). Any of them
 * is a valid link target (`[o relatório](/relatorio.pdf)`); one whose path is also a page or
 * a generated file would be served in its place, or replace it, so that is an error.
 */
import { listFiles } from "./files.js";
import path from "node:path";

/**
 * Every file of `public/`, as site paths without the leading slash (`favicon.svg`,
 * `docs/a.pdf`), each with the file its bytes are read from. The one listing both the link
 * checks and the writers use, so a file is a link target exactly when it is published: hidden
 * files included, a symlink to a file as that file (its bytes are published, never the link),
 * a link to a folder or to nothing not at all.
 */
export function publicFiles(dir: string): Map<string, string> {
  return new Map(listFiles(dir, { hidden: true, links: true }).map((file) => [path.relative(dir, file).split(path.sep).join("/"), file]));
}

/** The site paths of `public/`'s files (publicFiles). */
export function listPublicFiles(dir: string): Set<string> {
  return new Set(publicFiles(dir).keys());
}

/** A file of `public/` a link points at (`/relatorio.pdf#page=2`), if it is one. */
export function isPublicFile(files: ReadonlySet<string>, urlPath: string): boolean {
  if (files.size === 0 || !urlPath.startsWith("/")) return false;
  let decoded: string;
  try {
    decoded = decodeURIComponent(urlPath);
  } catch {
    return false;
  }
  return files.has(decoded.slice(1));
}
