/**
 * The files of `public/`, copied into the site as they are (a favicon, a PDF). Any of them
 * is a valid link target (`[o relatório](/relatorio.pdf)`); one whose path is also a page or
 * a generated file would be served in its place, or replace it, so that is an error.
 */
import { listFiles } from "../../lib/files.js";
import path from "node:path";
import { ContentError } from "../../lib/errors.js";
import type { RouteTable } from "../routes/routes.js";

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

/**
 * Files of `public/` that collide with what the build writes: a page (`404.html`, or a bare
 * `artigo-transicao` that hosts would serve at the page's address), a file the build
 * generates (`feed.xml`…), or anything under `assets/`, the generated, cached-for-ever folder.
 */
export function publicFileErrors(files: ReadonlySet<string>, table: RouteTable, generated: readonly string[]): ContentError[] {
  const pages = new Map<string, string>();
  for (const route of table.routes) {
    pages.set(route.outFile, route.path);
    if (route.path !== "/") pages.set(route.path.slice(1), route.path);
  }
  const errors: ContentError[] = [];
  for (const file of [...files].sort()) {
    const page = pages.get(file);
    const clash = page
      ? `the page ${page}`
      : generated.includes(file)
        ? `the ${file} the build writes`
        : file.startsWith("assets/")
          ? "the generated assets/ folder"
          : undefined;
    if (!clash) continue;
    errors.push(
      new ContentError({
        file: `public/${file}`,
        message: `public/${file} has the same address as ${clash}`,
        hint: file.startsWith("assets/")
          ? "assets/ is the build's own: move the file to another folder of public/"
          : "rename the file (or move it to a folder of public/), or give the page another route",
      }),
    );
  }
  return errors;
}
