/**
 * Watch mode's watcher (engine/servers/watch.ts): every save, new file, removal and new or
 * removed folder under the watched folders is reported, and a save costs what it changed: the
 * other files of its folder are not looked at (a folder of 4000 articles, once a save).
 */
import { afterEach, describe, expect, it } from "vitest";
import fs from "node:fs";
import { syncBuiltinESMExports } from "node:module";
import { mkdir, mkdtemp, rename, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { watchFolders, type FolderWatch } from "../engine/servers/watch.js";

const open: FolderWatch[] = [];
afterEach(async () => {
  for (const w of open.splice(0)) await w.close();
});

async function folder(files: Record<string, string> = {}): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), "cafe-watch-"));
  for (const [name, text] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(dir, name)), { recursive: true });
    await writeFile(path.join(dir, name), text);
  }
  return dir;
}

/** Watches `paths`; `seen` collects what is reported, `until` waits for every one of `files` to be. */
async function watching(paths: string[], ignored = (file: string) => path.basename(file).startsWith(".")) {
  const seen = new Set<string>();
  const w = await watchFolders(paths, { ignored, onChange: (file) => seen.add(file), onError: (folder, error) => seen.add(`error ${folder} ${error.code}`) });
  open.push(w);
  const until = async (...files: string[]) => {
    await expect.poll(() => files.filter((f) => !seen.has(f)), { timeout: 10_000 }).toEqual([]);
  };
  return { seen, until, close: () => w.close() };
}

/** Waits until the watcher has had time to do what a save makes it do (a rescan is started at once). */
const settle = () => new Promise((r) => setTimeout(r, 300));

describe("the dev server's watcher", () => {
  it("reports a file saved, added, renamed and removed", async () => {
    const dir = await folder({ "a.md": "a", "sub/b.md": "b" });
    const { seen, until } = await watching([dir]);
    await writeFile(path.join(dir, "sub/b.md"), "b2");
    await until(path.join(dir, "sub/b.md"));
    await writeFile(path.join(dir, "c.md"), "c");
    await until(path.join(dir, "c.md"));
    await rename(path.join(dir, "c.md"), path.join(dir, "sub/d.md"));
    await until(path.join(dir, "c.md"), path.join(dir, "sub/d.md"));
    seen.clear();
    await rm(path.join(dir, "a.md"));
    await until(path.join(dir, "a.md"));
  });

  it("reports the files of a folder moved in, and then their saves; and each file of a folder removed", async () => {
    const dir = await folder({ "a.md": "a" });
    const outside = await folder({ "guia/x.md": "x", "guia/fundo/y.md": "y" });
    const { seen, until } = await watching([dir]);
    await rename(path.join(outside, "guia"), path.join(dir, "guia"));
    await until(path.join(dir, "guia/x.md"), path.join(dir, "guia/fundo/y.md"));
    seen.clear();
    await writeFile(path.join(dir, "guia/fundo/y.md"), "y2");
    await until(path.join(dir, "guia/fundo/y.md"));
    await mkdir(path.join(dir, "nova"));
    await writeFile(path.join(dir, "nova/z.md"), "z");
    await until(path.join(dir, "nova/z.md"));
    seen.clear();
    await rm(path.join(dir, "guia"), { recursive: true });
    await until(path.join(dir, "guia/x.md"), path.join(dir, "guia/fundo/y.md"));
  });

  it("follows a folder replaced by another of the same name (the first moved away, the second moved in)", async () => {
    const dir = await folder({ "guia/x.md": "x" });
    const outside = await folder({ "guia/y.md": "y" });
    const { seen, until } = await watching([dir]);
    await rename(path.join(dir, "guia"), path.join(outside, "velho"));
    await rename(path.join(outside, "guia"), path.join(dir, "guia"));
    await until(path.join(dir, "guia/x.md"), path.join(dir, "guia/y.md"));
    seen.clear();
    await writeFile(path.join(dir, "guia/y.md"), "y2");
    await until(path.join(dir, "guia/y.md"));
    // The folder moved away is not watched as if it were still here.
    await writeFile(path.join(outside, "velho/x.md"), "x2");
    await settle();
    expect([...seen]).toEqual([path.join(dir, "guia/y.md")]);
  });

  it("watches a single file without reporting the others beside it; never reports an ignored name", async () => {
    const dir = await folder({ "theme.tsx": "1", "other.tsx": "1", "content/a.md": "a" });
    const { seen, until } = await watching([path.join(dir, "theme.tsx"), path.join(dir, "content")]);
    await writeFile(path.join(dir, "other.tsx"), "2");
    await writeFile(path.join(dir, "content/.a.md.swp"), "swap");
    await writeFile(path.join(dir, "theme.tsx"), "2");
    await writeFile(path.join(dir, "content/a.md"), "a2");
    await until(path.join(dir, "theme.tsx"), path.join(dir, "content/a.md"));
    await settle();
    expect([...seen].sort()).toEqual([path.join(dir, "content/a.md"), path.join(dir, "theme.tsx")]);
  });

  it("watches a folder named before it is made, from when it is made", async () => {
    const dir = await folder({ "a.md": "a" });
    const { until } = await watching([path.join(dir, "public")]);
    await mkdir(path.join(dir, "public/img"), { recursive: true });
    await writeFile(path.join(dir, "public/img/logo.svg"), "<svg/>");
    await until(path.join(dir, "public/img/logo.svg"));
  });

  it("watches a folder named to watch again once it is removed and made again", async () => {
    const dir = await folder({ "public/a.css": "a" });
    const { until } = await watching([path.join(dir, "public")]);
    await rm(path.join(dir, "public"), { recursive: true });
    await until(path.join(dir, "public/a.css"));
    await mkdir(path.join(dir, "public"));
    await writeFile(path.join(dir, "public/b.css"), "b");
    await until(path.join(dir, "public/b.css"));
  });

  it("says which folder the system would not watch (its limit of watched folders reached), and watches the others", async () => {
    const dir = await folder({ "a/x.md": "x", "b/y.md": "y" });
    const real = fs.watch;
    fs.watch = ((at: string, ...rest: unknown[]) => {
      if (at === path.join(dir, "b")) throw Object.assign(new Error("ENOSPC: System limit for number of file watchers reached"), { code: "ENOSPC" });
      return (real as (...args: unknown[]) => fs.FSWatcher)(at, ...rest);
    }) as typeof fs.watch;
    syncBuiltinESMExports();
    try {
      const { seen, until } = await watching([dir]);
      expect([...seen]).toEqual([`error ${path.join(dir, "b")} ENOSPC`]);
      await writeFile(path.join(dir, "a/x.md"), "x2");
      await until(path.join(dir, "a/x.md"));
    } finally {
      fs.watch = real;
      syncBuiltinESMExports();
    }
  });

  it("reports nothing once closed", async () => {
    const dir = await folder({ "a.md": "a" });
    const { seen, close } = await watching([dir]);
    await close();
    await writeFile(path.join(dir, "a.md"), "a2");
    await settle();
    expect([...seen]).toEqual([]);
  });

  it("a save looks at no other file of its folder (a folder of thousands of articles is not listed again at each save)", async () => {
    const files = Object.fromEntries(Array.from({ length: 300 }, (_, i) => [`${i}.md`, `texto ${i}`]));
    const dir = await folder(files);
    const { until } = await watching([dir]);
    const saved = path.join(dir, "7.md");
    // Every stat, lstat and listing of a path in the folder, by any module, in either API.
    const looked: string[] = [];
    const restore: (() => void)[] = [];
    for (const api of [fs, fs.promises] as unknown as Record<string, (...args: unknown[]) => unknown>[]) {
      for (const name of ["stat", "lstat", "readdir", "statSync", "lstatSync", "readdirSync", "opendir", "opendirSync"]) {
        const real = api[name];
        if (typeof real !== "function") continue;
        api[name] = function (this: unknown, ...args: unknown[]) {
          const at = String(args[0]);
          if (at.startsWith(dir) && at !== saved) looked.push(`${name} ${at}`);
          return real.apply(this, args);
        };
        restore.push(() => (api[name] = real));
      }
    }
    syncBuiltinESMExports();
    try {
      await writeFile(saved, "texto novo");
      await until(saved);
      await settle();
    } finally {
      for (const undo of restore) undo();
      syncBuiltinESMExports();
    }
    expect(looked).toEqual([]);
  });
});
