/**
 * Cold runs from the same file-system state. On ext4 a file made within a few minutes of many
 * deletions costs more the more inodes were freed lately: the allocator skips each recently
 * deleted inode (`recently_deleted` in `ext4_create`/`ext4_mkdir`, seen with `perf` on the
 * project machine), for 60 s once its inode is written back, six minutes before. Deleting a
 * run's 4000 pages before the next run made every run slower than the one before: Hugo alone,
 * 0.61 → 4.5 s in eight runs, all of it system time (bench/README.md, "Session 9"). So the
 * benchmarks delete nothing while they time: a run's output and caches are moved into one
 * folder, deleted when the series ends, and a series starts once what was deleted before it
 * has aged out of that window.
 */
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, rename, rm, writeFile } from "node:fs/promises";
import path from "node:path";

/** One folder beside the tools' folders where outputs wait, out of the way, until the series ends. */
export class Aside {
  private moved = 0;
  private constructor(private readonly dir: string) {}

  /** Empties `work/aside` (a series stopped early may have left it full). */
  static async in(work: string): Promise<Aside> {
    const dir = path.join(work, "aside");
    await rm(dir, { recursive: true, force: true });
    await mkdir(dir, { recursive: true });
    return new Aside(dir);
  }

  /** Moves each path that exists out of the way (a rename: no file is deleted). */
  async move(paths: readonly string[]): Promise<void> {
    for (const p of paths) if (existsSync(p)) await rename(p, path.join(this.dir, String(this.moved++)));
  }

  /** Deletes what was moved: when nothing is timed any more. */
  async clear(): Promise<void> {
    await rm(this.dir, { recursive: true, force: true });
    await mkdir(this.dir, { recursive: true });
  }
}

/**
 * Waits until the inodes deleted before now are past the recently-deleted window (written back,
 * then 61 s), then drops the kernel's file cache when allowed (root): whether it was dropped.
 * The first (warm-up) run after it reads the inputs back.
 */
export async function settle(): Promise<boolean> {
  execFileSync("sync");
  await new Promise((resolve) => setTimeout(resolve, 61_000));
  try {
    await writeFile("/proc/sys/vm/drop_caches", "1");
    return true;
  } catch {
    return false;
  }
}
