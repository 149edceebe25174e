/**
 * The folders behind `<out>` (output.ts's FolderWriter builds through them): two build folders,
 * `<out>.builds/a` and `<out>.builds/b`, used in turn. `<out>` is the live one (a symlink to it,
 * or, where no link can be made, the folder itself, moved there by renames); the other is the
 * standby, one build behind, that the next build brings up to date and publishes.
 *
 * Beside each folder, `<out>.builds/<slot>.json` records what it holds: each file's hash, and
 * the size, modification time and inode it had when the build made it, so a file edited or
 * replaced by hand since no longer matches its record and is written again (a build is never
 * fooled into keeping it). A record is deleted before its folder is first changed and written
 * again once the folder is coherent, so a folder without one is unknown and emptied.
 *
 * Plain functions over the file system, each told what it needs.
 */
import { randomBytes } from "node:crypto";
import { lstatSync, readdirSync, rmSync } from "node:fs";
import { isRunning, startOf } from "../../lib/processes.js";
import { lstat, mkdir, readdir, readFile, readlink, rename, rm, rmdir, stat, unlink, writeFile } from "node:fs/promises";
import { writeFileAtomic } from "../../lib/files.js";
import path from "node:path";

export type Slot = "a" | "b";
export const SLOTS: readonly Slot[] = ["a", "b"];
export const otherSlot = (slot: Slot): Slot => (slot === "a" ? "b" : "a");

/** What a build folder holds, file by file: the hash of its bytes and the state the build left it in. */
export interface HeldFile {
  hash: string;
  size: number;
  mtimeMs: number;
  ino: number;
}

export interface FolderRecord {
  slot: Slot;
  /** Unique to the build that wrote the folder: the cache names its output by it. */
  id: string;
  /** Counts builds: when `<out>` is missing, the newest complete folder is published again. */
  generation: number;
  /** False when a build was stopped half-way (the folder holds what the record says, but not a whole site). */
  complete: boolean;
  /** The folder itself: a record names the folder it was written for, wherever that was moved. */
  dir: { dev: number; ino: number };
  files: Map<string, HeldFile>;
}

/**
 * 2: the files in one flat list, five values a file (its path, hash, size, modification time and
 * inode): a record of 100,000 pages read in 44 ms and written in 35, against 136 and 110 as an
 * object of a list each (format 1), and a rebuild reads two.
 */
const FORMAT = 2;
/** The values of a file in a record's flat list. */
const STORED = 5;

export const recordPath = (builds: string, slot: Slot) => path.join(builds, `${slot}.json`);

/**
 * The record of a slot, or undefined when it is missing, damaged or of another format. `like`:
 * the other folder's files, read first: a file this record holds with the very same hash and
 * state (a page both folders hold as one build left it, linked) is given its object, one for
 * both records, not two (at 100,000 pages the two records were ~36 MB of a rebuild's heap).
 */
export async function readRecord(builds: string, slot: Slot, like?: ReadonlyMap<string, HeldFile>): Promise<FolderRecord | undefined> {
  try {
    const stored = JSON.parse(await readFile(recordPath(builds, slot), "utf8"));
    const ok =
      stored?.format === FORMAT &&
      stored.slot === slot &&
      typeof stored.id === "string" &&
      Number.isInteger(stored.generation) &&
      typeof stored.complete === "boolean" &&
      typeof stored.dir?.dev === "number" &&
      typeof stored.dir?.ino === "number" &&
      Array.isArray(stored.files) &&
      stored.files.length % STORED === 0;
    if (!ok) return undefined;
    const files = new Map<string, HeldFile>();
    const list = stored.files as unknown[];
    for (let i = 0; i < list.length; i += STORED) {
      const [file, hash, size, mtimeMs, ino] = [list[i], list[i + 1], list[i + 2], list[i + 3], list[i + 4]];
      if (typeof file !== "string" || typeof hash !== "string" || typeof size !== "number" || typeof mtimeMs !== "number" || typeof ino !== "number") return undefined;
      const other = like?.get(file);
      files.set(file, other && other.hash === hash && other.size === size && other.mtimeMs === mtimeMs && other.ino === ino ? other : { hash, size, mtimeMs, ino });
    }
    return { slot, id: stored.id, generation: stored.generation, complete: stored.complete, dir: stored.dir, files };
  } catch {
    return undefined;
  }
}

/** Writes a slot's record aside and renames it into place. */
export async function writeRecord(builds: string, record: FolderRecord): Promise<void> {
  const files: (string | number)[] = [];
  for (const [file, f] of record.files) files.push(file, f.hash, f.size, f.mtimeMs, f.ino);
  const { slot, id, generation, complete, dir } = record;
  const target = recordPath(builds, slot);
  await writeFileAtomic(target, JSON.stringify({ format: FORMAT, slot, id, generation, complete, dir, files }), { mkdirs: false });
}

export const newBuildId = () => randomBytes(8).toString("hex");

/** The state of a file as a record keeps it (not following a link), or undefined. */
export function stateOf(file: string): Omit<HeldFile, "hash"> | undefined {
  const s = lstatSync(file, { throwIfNoEntry: false });
  return s?.isFile() ? { size: s.size, mtimeMs: s.mtimeMs, ino: s.ino } : undefined;
}

/** True when the file is still exactly as its record says the build left it. */
export function intact(file: string, held: HeldFile): boolean {
  const s = stateOf(file);
  return s !== undefined && s.size === held.size && s.mtimeMs === held.mtimeMs && s.ino === held.ino;
}

/**
 * Makes `<out>` name `target` (a complete build folder): a new symlink renamed over the old
 * one, atomically; or, when no link can be made (`symlink` fails with EPERM and the like),
 * by two renames: the folder at `<out>` moves aside to `aside`, then `target` to `<out>`
 * (a short moment without `<out>`). Returns where the previous `<out>` went when it was moved.
 */
export async function switchOut(
  out: string,
  target: string,
  { aside, symlink, onLinked = () => {} }: { aside: string; symlink: SymlinkFn; onLinked?: () => void },
): Promise<string | undefined> {
  const link = `${out}.link-${process.pid}`;
  await rm(link, { force: true });
  let linked = true;
  try {
    await symlink(path.relative(path.dirname(out), target), link);
  } catch (error) {
    if (!cannotLink(error)) throw error;
    linked = false;
  }
  onLinked();
  const current = await lstat(out).catch(() => undefined);
  let moved: string | undefined;
  if (current && !current.isSymbolicLink()) {
    await rm(aside, { recursive: true, force: true });
    await rename(out, aside);
    moved = aside;
  } else if (current && !linked) {
    await rm(out);
  }
  try {
    await rename(linked ? link : target, out);
  } catch (error) {
    // The previous site goes back (on Windows, a program holding one of its files open can make a rename fail).
    if (moved) await rename(moved, out).catch(() => {});
    throw error;
  }
  return moved;
}

export type SymlinkFn = (target: string, file: string) => Promise<void>;

/** The errors of a system or a file system where no symlink can be made. */
function cannotLink(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException)?.code;
  return code === "EPERM" || code === "EACCES" || code === "ENOSYS" || code === "ENOTSUP" || code === "EOPNOTSUPP";
}

export interface Layout {
  /** The published folder (what `<out>` names), and its record when it has one. */
  live?: { dir: string; record?: FolderRecord };
  /** The folder this build brings up to date, and what it holds (nothing when it had no record). */
  standby: { slot: Slot; dir: string; record?: FolderRecord };
  /** The next build's number. */
  generation: number;
}

/**
 * Finds the live and the standby folder, after putting right what a killed build left:
 * `<out>` missing between two renames (the newest complete folder is published again), the
 * standby without a record (emptied), leftover links and folders (removed), files in the
 * standby that its record does not name (removed).
 */
export async function openLayout(out: string, builds: string, symlink: SymlinkFn): Promise<Layout> {
  await mkdir(builds, { recursive: true });
  const records = new Map<Slot, FolderRecord>();
  for (const slot of SLOTS) {
    const record = await readRecord(builds, slot, records.get(otherSlot(slot))?.files);
    if (record) records.set(slot, record);
  }
  const folderOf = async (slot: Slot) => {
    const record = records.get(slot);
    const s = await stat(path.join(builds, slot)).catch(() => undefined);
    return record && s?.isDirectory() && s.ino === record.dir.ino && s.dev === record.dir.dev ? record : undefined;
  };

  let outStat = await stat(out).catch(() => undefined);
  if (!outStat) {
    // `<out>` is missing (killed between the two renames of a switch) or names nothing.
    const complete = (await Promise.all(SLOTS.map(folderOf))).filter((r) => r?.complete) as FolderRecord[];
    const newest = complete.sort((x, y) => y.generation - x.generation)[0];
    const moved = (await readdir(builds).catch(() => [] as string[])).find((name) => /^previous-\d+$/.test(name));
    if (newest) await switchOut(out, path.join(builds, newest.slot), { aside: path.join(builds, `previous-${process.pid}`), symlink });
    else if (moved && !(await lstat(out).then(() => true, () => false))) await rename(path.join(builds, moved), out);
    outStat = await stat(out).catch(() => undefined);
  }

  let live: Layout["live"];
  if (outStat?.isDirectory()) {
    const target = await readlink(out).catch(() => undefined);
    const dir = target === undefined ? out : path.resolve(path.dirname(out), target);
    const record = [...records.values()].find((r) => r.complete && r.dir.ino === outStat.ino && r.dir.dev === outStat.dev);
    live = { dir, record };
  }
  const slot: Slot = live?.record ? otherSlot(live.record.slot) : live?.dir === path.join(builds, "a") ? "b" : "a";
  const dir = path.join(builds, slot);
  const record = await folderOf(slot);
  if (!record) await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });

  const keep = new Set<string>([slot, "lock"]);
  if (record) keep.add(`${slot}.json`);
  if (live?.record) keep.add(`${live.record.slot}.json`);
  if (live && path.dirname(live.dir) === builds) keep.add(path.basename(live.dir));
  await sweep(out, builds, keep);
  if (record) removeUnknown(dir, record.files);
  const generation = Math.max(0, ...[...records.values()].map((r) => r.generation)) + 1;
  return { live, standby: { slot, dir, record }, generation };
}

/**
 * Removes what no build needs: entries of `builds` not in `keep` (folders of killed builds,
 * records aside, an older version's build folders) and links beside `out` that never
 * replaced it, but not those named after a process still running (another version's build).
 */
async function sweep(out: string, builds: string, keep: ReadonlySet<string>): Promise<void> {
  const parent = path.dirname(out);
  const linkPrefix = `${path.basename(out)}.link-`;
  const leftovers = [
    ...(await readdir(builds).catch(() => [] as string[])).filter((name) => !keep.has(name)).map((name) => path.join(builds, name)),
    ...(await readdir(parent).catch(() => [] as string[])).filter((n) => n.startsWith(linkPrefix)).map((n) => path.join(parent, n)),
  ];
  for (const leftover of leftovers) {
    const pid = Number(/-(\d+)$/.exec(leftover)?.[1]);
    if (pid !== process.pid && isRunning(pid)) continue;
    await rm(leftover, { recursive: true, force: true });
  }
}

/**
 * Removes from a build folder every entry its record does not name (a file added by hand, the
 * up-to-date check's note, a folder left empty): one listing per folder the record knows.
 * Files are named with "/" (as the engine names them) on every system.
 */
function removeUnknown(root: string, files: ReadonlyMap<string, HeldFile>): void {
  const dirs = new Set<string>([""]);
  for (const file of files.keys()) {
    for (let dir = path.posix.dirname(file); dir !== "." && !dirs.has(dir); dir = path.posix.dirname(dir)) dirs.add(dir);
  }
  for (const dir of dirs) {
    let entries;
    try {
      entries = readdirSync(path.join(root, dir), { withFileTypes: true });
    } catch {
      continue;
    }
    for (const entry of entries) {
      const rel = dir === "" ? entry.name : `${dir}/${entry.name}`;
      const known = entry.isDirectory() ? dirs.has(rel) : entry.isFile() && files.has(rel);
      if (!known) rmTree(path.join(root, rel));
    }
  }
}

function rmTree(target: string): void {
  try {
    // Synchronous on purpose: rare, and the listing above is too.
    rmSync(target, { recursive: true, force: true });
  } catch {
    // Left for the next build: the record does not name it, so it is never taken for part of a site.
  }
}

/**
 * The lock of `builds`: one build at a time writes the standby. The lock is the folder
 * `<builds>/lock`, holding one empty file named after its holder (`<pid>-<start>-<token>`: its
 * process, when that process started, and a random token).
 *
 * Taken by renaming a folder of one's own, holder file inside, to `lock`: the system makes the
 * rename only where no `lock` is, or only an empty one, and does it atomically, so two builds
 * never both succeed. A lock whose holder is gone (killed; a zombie; its number now another
 * process's) is taken over by removing its holder's file by that file's own name: a file no
 * other build's lock ever holds, so a build that took the lock a moment before is never
 * robbed of it (deleting the lock and making a new one, as before, could delete a lock another
 * build had just taken: two builds wrote one site). The emptied folder is then replaced by the
 * rename. Why not proper-lockfile: it judges a lock stale by its age, so a killed build
 * blocks the next one for its whole staleness period, and its takeover removes and re-makes the
 * lock folder, the same race as before (it notices the loss only later, by a timer).
 */
export interface HeldLock {
  /** `<builds>/lock`. */
  dir: string;
  /** The holder's file in it. */
  name: string;
}

/** Takes the lock of `builds`; throws when a running build holds it. */
export async function takeLock(builds: string, shown: string): Promise<HeldLock> {
  await mkdir(builds, { recursive: true });
  const dir = path.join(builds, "lock");
  const name = `${process.pid}-${startOf(process.pid) ?? 0}-${randomBytes(6).toString("hex")}`;
  // Named after this process at the end, so a killed build's leftover is swept and a running one's is not.
  const mine = path.join(builds, `lock.new-${randomBytes(4).toString("hex")}-${process.pid}`);
  await mkdir(mine);
  await writeFile(path.join(mine, name), "");
  try {
    for (let attempt = 0; attempt < 5; attempt++) {
      try {
        await rename(mine, dir);
        return { dir, name };
      } catch (error) {
        if (!LOCK_TAKEN.has((error as NodeJS.ErrnoException).code ?? "")) throw error;
      }
      const found = await lstat(dir).catch(() => undefined);
      if (!found) continue;
      if (!found.isDirectory()) {
        // An older version's lock: a file holding its holder's process number.
        const pid = Number((await readFile(dir, "utf8").catch(() => "")).trim());
        if (pid !== process.pid && isRunning(pid)) throw lockedBy(pid, shown);
        // unlink never removes a folder: a lock another build has just taken stays.
        await unlink(dir).catch(() => {});
        continue;
      }
      const holders = await readdir(dir).catch(() => [] as string[]);
      // An empty lock (its holder was killed as it let go) is replaced by the rename, but not on Windows.
      if (holders.length === 0) await rmdir(dir).catch(() => {});
      for (const holder of holders) {
        const parsed = /^(\d+)-(\d+)-[0-9a-f]+$/.exec(holder);
        if (!parsed) throw new Error(`could not take the lock ${dir}: it holds ${holder}, which no build put there; remove the folder if no build is running`);
        const pid = Number(parsed[1]);
        // This very process (its number and start): another build of it holds the lock, and is refused as any other.
        if (pid === process.pid && (parsed[2] === "0" || parsed[2] === startOf(pid) || startOf(pid) === undefined)) throw lockedBy(pid, shown, true);
        if (pid !== process.pid && isRunning(pid, parsed[2])) throw lockedBy(pid, shown);
        await unlink(path.join(dir, holder)).catch(() => {});
      }
    }
    throw new Error(`could not take the lock ${dir}: remove it if no build is running`);
  } finally {
    await rm(mine, { recursive: true, force: true });
  }
}

/** What a rename onto a lock that is there says (a folder that is not empty; a file; Windows' refusal). */
const LOCK_TAKEN = new Set(["ENOTEMPTY", "EEXIST", "ENOTDIR", "EISDIR", "EPERM"]);

const lockedBy = (pid: number, shown: string, self = false) =>
  new Error(`another build (${self ? `in this process, ${pid}` : `process ${pid}`}) is writing ${shown}: wait for it to finish, or stop it, and build again`);

/** Lets the lock go: its holder file first, then the folder, unless another build took it the moment it was free. */
export async function releaseLock(lock: HeldLock): Promise<void> {
  await unlink(path.join(lock.dir, lock.name)).catch(() => {});
  await rmdir(lock.dir).catch(() => {});
}
