/**
 * Stage 9 — write: hands the build's files to the writer (output.ts), removes what the last
 * build wrote that is gone, copies `public/`, and commits: the new site is published whole,
 * or, on any failure, not at all.
 */
import type { BuildRecord } from "../../incremental/build-cache.js";
import type { ContentError } from "../../lib/errors.js";
import type { SiteWriter } from "./writers.js";

export interface WriteInput {
  /** The assets bundled in this build (none when the last build's were taken). */
  assets: Iterable<[string, Uint8Array]>;
  /** The pages and site files, made as they are read. */
  pages: Iterable<[string, string]>;
  /** Images and social cards: content-hashed names, so one the last build wrote holds these bytes. */
  media: ReadonlyMap<string, Uint8Array>;
  /** The folder copied into the site as it is. */
  publicDir: string;
  /** What the output held: its files that this build does not make are removed. */
  previous: BuildRecord;
  /** What this build makes (its pages complete once `pages` has been read). */
  next: BuildRecord;
  /** Run once every file is written, before the commit: errors there abort the build (links as rendered). */
  verify?: () => ContentError[];
}

/**
 * Writes and commits the site; returns the files whose bytes changed or that were removed, or
 * the errors `verify` found (nothing is committed then).
 */
export async function writeStage(writer: SiteWriter, { assets, pages, media, publicDir, previous, next, verify }: WriteInput): Promise<{ changed: string[] } | { errors: ContentError[] }> {
  try {
    let changed = await writeFiles(writer, assets);
    // concat, not push(...): a site of 100,000 pages is more arguments than a call can take.
    changed = changed.concat(await writeFiles(writer, pages));
    const fresh: [string, Uint8Array][] = [];
    for (const [file, bytes] of media) if (!(await writer.reuse(file, bytes.length))) fresh.push([file, bytes]);
    changed = changed.concat(await writeFiles(writer, fresh));
    await writer.copyDir(publicDir);
    const errors = verify?.() ?? [];
    if (errors.length > 0) {
      await writer.abort();
      return { errors };
    }
    const made = new Set([...Object.values(next.pages).map((p) => p.outFile), ...(next.assets?.files ?? []), ...media.keys(), ...(next.redirects ?? [])]);
    const before = [...Object.values(previous.pages).map((p) => p.outFile), ...(previous.assets?.files ?? []), ...previous.media, ...(previous.redirects ?? [])];
    const gone = [...new Set(before)].filter((file) => !made.has(file));
    for (const file of gone) await writer.remove(file);
    await writer.commit();
    return { changed: changed.concat(gone) };
  } catch (error) {
    await writer.abort();
    throw error;
  }
}

/**
 * Hands files to the writer, a few dozen at a time (rendering is CPU work, writing is I/O:
 * the next page renders while the last ones are written). Returns the files whose bytes changed.
 */
async function writeFiles(writer: SiteWriter, files: Iterable<[string, string | Uint8Array]>): Promise<string[]> {
  const changed: string[] = [];
  const inFlight: Promise<void>[] = [];
  for (const [file, data] of files) {
    inFlight.push(writer.write(file, data).then((wrote) => void (wrote && changed.push(file))));
    if (inFlight.length >= 64) await inFlight.shift();
  }
  await Promise.all(inFlight);
  return changed;
}
