/**
 * Stage 9 — write: hands the build's files to the writer (writers.ts) as the render stage
 * yields them, copies `public/`; then, once the pages as rendered are checked, commits:
 * removes what the last build wrote that is gone and publishes the new site whole, or, on
 * any failure, nothing at all.
 */
import type { RenderedFile } from "../render/render.js";
import type { PageEntry } from "../checks/rendered-links.js";
import type { SiteWriter } from "./writers.js";
import { readFile } from "node:fs/promises";
import { publicFiles } from "../../lib/public-files.js";

export interface WriteInput {
  /** The assets bundled in this build (none when the last build's were taken). */
  assets: Iterable<[string, Uint8Array]>;
  /** Images: content-hashed names, so one the last build wrote holds these bytes (the social cards are written by their stage as each is had). */
  media: ReadonlyMap<string, Uint8Array>;
  /** The folder copied into the site as it is. */
  publicDir: string;
}

export interface Written {
  /** The files whose bytes changed. */
  changed: string[];
  /** Every page's record, by route: made now or kept from the last build. */
  pages: Record<string, PageEntry>;
  /** How many pages were rendered (the others were kept). */
  rendered: number;
  /** The routes of the pages rendered, in order. */
  made: string[];
  /** The old addresses' files (`_redirects`, a page at each old address). */
  redirectFiles: string[];
}

/** Writes the site's files, nothing committed yet; on a failure of the writer the build is aborted and the error thrown. */
export async function writeStage(writer: SiteWriter, files: AsyncIterable<RenderedFile>, { assets, media, publicDir }: WriteInput): Promise<Written> {
  try {
    const pages: Record<string, PageEntry> = {};
    const redirectFiles: string[] = [];
    const made: string[] = [];
    let changed = await writeFiles(writer, assets);
    // concat, not push(...): a site of 100,000 pages is more arguments than a call can take.
    changed = changed.concat(
      await writeFiles(
        writer,
        (async function* () {
          for await (const file of files) {
            if (file.kind === "kept") {
              for (const [route, entry] of file.pages) pages[route] = entry;
              continue;
            }
            if (file.kind === "page") {
              pages[file.route] = file.entry;
              made.push(file.route);
            } else if (file.redirect) redirectFiles.push(file.file);
            yield [file.file, file.html] as [string, string];
          }
        })(),
      ),
    );
    changed = changed.concat(await writeMedia(writer, media));
    // public/, file by file as public-files.ts lists it (a link to a file is that file): a writer keeps what it holds already.
    for (const [file, source] of publicFiles(publicDir)) await writer.write(file, await readFile(source));
    return { changed, pages, rendered: made.length, made, redirectFiles };
  } catch (error) {
    await writer.abort();
    throw error;
  }
}

/**
 * Files written after the pages were written and checked and the social cards had: the feed
 * (which states the cards' lengths). Nothing committed yet; on a failure of the writer the
 * build is aborted and the error thrown. Returns the files whose bytes changed.
 */
export async function writeLater(writer: SiteWriter, files: Iterable<[string, string]>): Promise<string[]> {
  try {
    return await writeFiles(writer, files);
  } catch (error) {
    await writer.abort();
    throw error;
  }
}

/** Media files (content-hashed or key-named): one the last build wrote is taken from it, the others written. */
async function writeMedia(writer: SiteWriter, media: ReadonlyMap<string, Uint8Array>): Promise<string[]> {
  const taken = await writer.reuse(new Map([...media].map(([file, bytes]) => [file, bytes.length])));
  return writeFiles(writer, [...media].filter(([file]) => !taken.has(file)));
}

/** The files a build wrote: its pages, its assets, its media and its old addresses' files. */
export interface WrittenFiles {
  pages: Readonly<Record<string, { outFile: string }>>;
  assets?: { files: readonly string[] };
  media: readonly string[];
  redirects?: readonly string[];
}

/** Every file a build wrote, in order (its pages', then its assets, media and old addresses'), without an array of them. */
function* filesOf(written: WrittenFiles): Generator<string> {
  for (const route in written.pages) yield written.pages[route]!.outFile;
  yield* otherFilesOf(written);
}

/** The files a build wrote that are not its pages': its assets, media and old addresses' files. */
function* otherFilesOf({ assets, media, redirects }: WrittenFiles): Generator<string> {
  yield* assets?.files ?? [];
  yield* media;
  yield* redirects ?? [];
}

/**
 * Publishes what was written: removes the last build's files this one does not make, then
 * commits. Returns the files removed, and how many of the last build's pages it went over.
 * `samePages`: this build has a page at each route of the last one, at the same file (its
 * routes are the last build's: `KeptPages.sameRoutes`), so none of them went and the last
 * build's pages are not gone over.
 */
export async function commitStage(writer: SiteWriter, { previous, next, samePages = false }: { previous: WrittenFiles; next: WrittenFiles; samePages?: boolean }): Promise<{ gone: string[]; walked: number }> {
  try {
    // A page of the last build that this one has at the same file (its very record, or made
    // again) is not looked up: only the last build's pages are walked, once (a save of one page
    // in thousands). Its other files are looked up among this build's other files, and a
    // file found in neither (a page that went, an asset renamed: rare) among every file of it.
    const made = new Set(otherFilesOf(next));
    let every: Set<string> | undefined;
    const makes = (file: string) => made.has(file) || (every ??= new Set(filesOf(next))).has(file);
    // In the last build's order, each once: what this one does not make.
    const gone = new Set<string>();
    let walked = 0;
    if (!samePages) {
      for (const route in previous.pages) {
        walked++;
        const entry = previous.pages[route]!;
        const now = Object.hasOwn(next.pages, route) ? next.pages[route] : undefined;
        if (now !== entry && now?.outFile !== entry.outFile && !makes(entry.outFile)) gone.add(entry.outFile);
      }
    }
    for (const file of otherFilesOf(previous)) if (!makes(file)) gone.add(file);
    for (const file of gone) await writer.remove(file);
    await writer.commit();
    return { gone: [...gone], walked };
  } catch (error) {
    await writer.abort();
    throw error;
  }
}

/**
 * Hands files to the writer, a few dozen at a time (rendering is CPU work, writing is I/O:
 * the next page renders while the last ones are written). Returns the files whose bytes changed.
 */
async function writeFiles(writer: SiteWriter, files: Iterable<[string, string | Uint8Array]> | AsyncIterable<[string, string | Uint8Array]>): Promise<string[]> {
  const changed: string[] = [];
  const inFlight: Promise<void>[] = [];
  for await (const [file, data] of files) {
    inFlight.push(writer.write(file, data).then((wrote) => void (wrote && changed.push(file))));
    if (inFlight.length >= 64) await inFlight.shift();
  }
  await Promise.all(inFlight);
  return changed;
}
