/**
 * Watch mode's watcher: reports the files saved, added or removed under some folders (and
 * single files), one `fs.watch` a folder.
 *
 * A save costs what it changed. The system names the file in its event; the watcher then
 * looks at that one path (a `stat` when the event may be an addition or a removal, nothing
 * when it is a save of a file it knows). chokidar, used before, listed the whole folder and
 * looked at every file in it again at each event, to find additions: at 4000 articles in one
 * folder, ~0.1–0.5 s of CPU a save beside the builder, and the save's reload ~0.6× as fast
 * without it (bench/README.md, session 28). The folders' listings are read once, at the start,
 * and followed from the events: a file added or removed, a folder moved in (its files reported)
 * or removed (each file it held reported), a folder replaced by another of the same name.
 *
 * Nothing is missed silently: an event without a name lists its folder again, and a watcher
 * the system drops (its folder removed or renamed) is replaced while the folder is there.
 */
import { watch, type FSWatcher } from "node:fs";
import { readdir, realpath, stat } from "node:fs/promises";
import path from "node:path";

export interface FolderWatch {
  close(): Promise<void>;
}

export interface WatchOptions {
  /** A path not to report (an editor's swap or backup file): asked of every path, folders too (an ignored folder is not watched). */
  ignored: (file: string) => boolean;
  /** Called with each path that changed (absolute): saved, added or removed. */
  onChange: (file: string) => void;
  /** A folder the system would not watch (its limit of watched folders reached, its rights): its saves are not seen. */
  onError: (folder: string, error: NodeJS.ErrnoException) => void;
}

interface Folder {
  watcher: FSWatcher;
  /** The names of its files and of its folders, as the events left them. */
  files: Set<string>;
  dirs: Set<string>;
  /** Watched for these names alone (a single file watched, or a folder not there yet): its parent's other entries are not reported. */
  only?: Set<string>;
  /** Its real path and its inode (a folder watched whole): a folder of the same name moved in is another. */
  canonical?: string;
  ino?: number;
}

/** Watches `paths` (folders, whole, and single files); resolves once every folder is being watched: a save from then on is reported. */
export async function watchFolders(paths: readonly string[], { ignored, onChange, onError }: WatchOptions): Promise<FolderWatch> {
  const folders = new Map<string, Folder>();
  let closed = false;

  const open = (dir: string): Folder | undefined => {
    const existing = folders.get(dir);
    if (existing) return existing;
    let watcher: FSWatcher;
    try {
      watcher = watch(dir, (type, name) => event(dir, type, name));
    } catch (error) {
      // Gone in the meantime: its removal is reported by its parent's watcher.
      if ((error as NodeJS.ErrnoException).code !== "ENOENT" && !closed) onError(dir, error as NodeJS.ErrnoException);
      return undefined;
    }
    watcher.on("error", () => void recover(dir));
    const folder: Folder = { watcher, files: new Set(), dirs: new Set() };
    folders.set(dir, folder);
    return folder;
  };

  /**
   * Watches `dir` and every folder under it: the watcher first, then its listing (nothing
   * added in between is missed). `report`: each file found is reported (a folder moved in).
   * A link to a folder already watched (or a loop of links) is not followed.
   */
  const add = async (dir: string, report: boolean): Promise<void> => {
    const known = folders.get(dir);
    if (known && !known.only) return;
    const canonical = await realpath(dir).catch(() => undefined);
    if (canonical === undefined || closed || [...folders.values()].some((f) => f.canonical === canonical)) return;
    const folder = open(dir);
    if (!folder) return;
    folder.only = undefined;
    folder.canonical = canonical;
    folder.ino = (await stat(dir).catch(() => undefined))?.ino;
    const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
    const subfolders: string[] = [];
    for (const entry of entries) {
      const full = path.join(dir, entry.name);
      if (ignored(full)) continue;
      const isDir = entry.isDirectory() || (entry.isSymbolicLink() && (await stat(full).catch(() => undefined))?.isDirectory() === true);
      if (isDir) {
        folder.dirs.add(entry.name);
        subfolders.push(full);
      } else {
        folder.files.add(entry.name);
        if (report && !closed) onChange(full);
      }
    }
    for (const sub of subfolders) await add(sub, report);
  };

  /**
   * Watches the folder of `file` for that name alone: a single file, or a folder watched
   * whole, so that it is watched again once removed and made again (or made at all).
   */
  const addOnly = (file: string, isDir: boolean) => {
    const dir = path.dirname(file);
    const known = folders.get(dir);
    if (known && !known.only) return;
    const folder = known ?? open(dir);
    if (!folder) return;
    folder.only ??= new Set();
    folder.only.add(path.basename(file));
    (isDir ? folder.dirs : folder.files).add(path.basename(file));
  };

  const event = (dir: string, type: string, name: string | null) => {
    const folder = folders.get(dir);
    if (!folder || closed) return;
    if (name === null) return void relist(dir);
    if (folder.only && !folder.only.has(name)) return;
    const full = path.join(dir, name);
    if (ignored(full)) return;
    // A save of a file it knows: reported as it is, nothing looked at.
    if (type === "change" && folder.files.has(name)) return onChange(full);
    void look(dir, name);
  };

  /** An entry added, removed or replaced: what it is now. A file that is there is reported. */
  const look = async (dir: string, name: string) => {
    const full = path.join(dir, name);
    const now = await stat(full).catch(() => undefined);
    const folder = folders.get(dir);
    if (!folder || closed) return;
    if (now?.isDirectory()) {
      folder.files.delete(name);
      folder.dirs.add(name);
      // Another folder than the one watched at this path (that one moved away, this one moved in): the first's files are gone from here.
      const watched = folders.get(full);
      if (watched && !watched.only && watched.ino !== now.ino) gone(full);
      await add(full, true);
    } else if (now) {
      if (folder.dirs.delete(name)) gone(full);
      folder.files.add(name);
      onChange(full);
    } else if (folder.dirs.delete(name) || folders.has(full)) {
      gone(full);
    } else if (folder.files.delete(name)) {
      onChange(full);
    }
  };

  /** A folder removed: its watchers closed, each file it held reported. */
  const gone = (dir: string) => {
    for (const [at, folder] of [...folders]) {
      if (at !== dir && !at.startsWith(dir + path.sep)) continue;
      folder.watcher.close();
      folders.delete(at);
      for (const name of folder.files) onChange(path.join(at, name));
    }
  };

  /** An event without a name (some systems, when events overflow): each entry of the folder looked at again, so each of its files is reported. */
  const relist = async (dir: string) => {
    const folder = folders.get(dir);
    if (!folder) return;
    const names = await readdir(dir).catch(() => [] as string[]);
    for (const name of new Set([...names, ...folder.files, ...folder.dirs])) {
      if ((!folder.only || folder.only.has(name)) && !ignored(path.join(dir, name))) await look(dir, name);
    }
  };

  /** The system dropped a folder's watcher (its folder removed or moved, on some systems): watched again while it is there, else its files reported gone. */
  const recover = async (dir: string) => {
    const folder = folders.get(dir);
    if (!folder || closed) return;
    const here = (await stat(dir).catch(() => undefined))?.isDirectory() === true;
    if (!here) return gone(dir);
    folder.watcher.close();
    folders.delete(dir);
    if (folder.only) for (const name of folder.only) addOnly(path.join(dir, name), folder.dirs.has(name));
    else await add(dir, false);
    // What went while it was not watched.
    const now = folders.get(dir);
    for (const name of folder.files) if (!now?.files.has(name)) onChange(path.join(dir, name));
  };

  // Folders first: a single file inside one of them is watched with it.
  const kinds = await Promise.all(paths.map(async (p) => ({ at: path.resolve(p), dir: (await stat(p).catch(() => undefined))?.isDirectory() === true })));
  for (const { at } of kinds.filter((k) => k.dir)) await add(at, false);
  for (const { at, dir } of kinds) addOnly(at, dir);

  return {
    async close() {
      closed = true;
      for (const folder of folders.values()) folder.watcher.close();
      folders.clear();
    },
  };
}
