/**
 * Publishing through two build folders used in turn: whatever came before (edits, killed
 * builds, a hand-edited site, no symlinks), the published `dist` holds exactly what a cold
 * build of the same content writes, byte for byte, and nothing else.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { appendFile, cp, lstat, mkdir, mkdtemp, readdir, readFile, readlink, rename, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { SiteBuilder } from "../engine/pipeline/site-builder.js";
import { FolderWriter, type FolderWriterOptions } from "../engine/stages/write/writers.js";
import { bundledForFile, editedFixture, fixture, projectRoot } from "./helpers.js";
import { bundleContender, plantStaleLock, race, type StaleLock } from "./lock-race.js";
import { theme } from "../templates/theme.js";

/** tests/kill-build.ts, bundled once for this file's killed builds (each a process of its own). */
const killBuild = bundledForFile("tests/kill-build.ts");

/** Every file below `dir` (following `dir` itself when it is a link) with a hash of its bytes, and every folder. */
async function tree(dir: string): Promise<{ files: Record<string, string>; folders: string[] }> {
  const files: [string, string][] = [];
  const folders: string[] = [];
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    const full = path.join(entry.parentPath, entry.name);
    const rel = path.relative(dir, full);
    if (entry.isDirectory()) folders.push(rel);
    else if (entry.name !== ".cafe-build.json") {
      files.push([rel, entry.isFile() ? createHash("sha256").update(await readFile(full)).digest("hex") : "not a plain file"]);
    }
  }
  return { files: Object.fromEntries(files.sort(([a], [b]) => (a < b ? -1 : 1))), folders: folders.sort() };
}

/** A cold build of the content (a new builder, a new output folder): what `dist` must equal. */
async function coldTree(contentDir: string, publicDir?: string) {
  const out = path.join(await mkdtemp(path.join(tmpdir(), "cafe-cold-")), "dist");
  const writer = new FolderWriter(out);
  await writer.begin();
  // The record of published addresses is another test's: here pages come and go freely.
  const result = await new SiteBuilder({ contentDir, projectRoot, theme, publicDir, publishedRoutes: false }).build(writer);
  expect(result.errors).toEqual([]);
  return tree(out);
}

/** A site whose builds keep one builder (as watch mode and the persistent cache do: unchanged pages are reused). */
async function site(name: "basic" | "images", options: FolderWriterOptions = {}) {
  const root = await mkdtemp(path.join(tmpdir(), "cafe-publish-"));
  const contentDir = path.join(root, "content");
  const publicDir = path.join(root, "public");
  if (name === "images") {
    await cp(fixture("images"), root, { recursive: true });
  } else {
    await cp(fixture("basic"), contentDir, { recursive: true });
    await cp(path.join(projectRoot, "public"), publicDir, { recursive: true });
  }
  const out = path.join(root, "dist");
  const builder = new SiteBuilder({ contentDir, projectRoot, theme, publicDir, publishedRoutes: false });
  const build = async (more: FolderWriterOptions = {}) => {
    const writer = new FolderWriter(out, { ...options, ...more });
    await writer.begin();
    const result = await builder.build(writer);
    expect(result.errors).toEqual([]);
    return result;
  };
  const matchesCold = async () => expect(await tree(out)).toEqual(await coldTree(contentDir, publicDir));
  return { root, contentDir, publicDir, out, build, matchesCold };
}

/** The basic site built twice (the second build took every file of the first by a hard link); `inode` says which file a folder holds at primeiro.html. */
async function builtTwice() {
  const made = await site("basic");
  await made.build();
  await made.build();
  const builds = path.join(made.root, "dist.builds");
  // A file by its inode and its birth: an inode number alone may be given again to the next file made.
  const inode = async (slot: string) => lstat(path.join(builds, slot, "primeiro.html")).then((s) => ({ ino: s.ino, born: s.birthtimeMs, links: s.nlink }));
  const live = async () => path.basename(await readlink(made.out));
  return { ...made, builds, inode, live };
}

const newArticle = "---\ntitle: Um artigo novo\ncategory: Guia\ndate: 03/09/2025\nlead: Escrito agora.\n---\n\n## Novo\n\nTexto novo.\n";

describe("publishing through two build folders", () => {
  it("after builds with edits of every kind, dist equals a cold build byte for byte, with no file more or less", async () => {
    const { contentDir, publicDir, out, build, matchesCold } = await site("images");
    await build();
    await build();
    // An article added, an article edited, an image replaced, a public file changed and one added.
    await mkdir(path.join(contentDir, "articles/guia"));
    await writeFile(path.join(contentDir, "articles/guia/novo.md"), newArticle);
    await appendFile(path.join(contentDir, "articles/sem-fotos.md"), "\nUm parágrafo a mais.\n");
    await cp(path.join(contentDir, "articles/com-fotos/equipe.jpg"), path.join(contentDir, "articles/com-fotos/capa.jpg"));
    await writeFile(path.join(publicDir, "regulamento.pdf"), "%PDF-1.4 versão nova\n");
    await writeFile(path.join(publicDir, "humans.txt"), "Cris\n");
    const edited = await build();
    expect(edited.rendered).toBeLessThan(edited.routes.length);
    await matchesCold();
    // The next build writes the other folder, the one two builds behind: it must catch up on both.
    await appendFile(path.join(contentDir, "articles/sem-fotos.md"), "\nOutro parágrafo.\n");
    await build();
    await matchesCold();
    // The article deleted, the public file removed: their files leave the site (and their folders).
    await rm(path.join(contentDir, "articles/guia/novo.md"));
    await rm(path.join(publicDir, "humans.txt"));
    await build();
    await matchesCold();
    await build();
    await matchesCold();
    expect((await lstat(out)).isSymbolicLink()).toBe(true);
  }, 120_000);

  it("a file of the published site edited, replaced or added by hand is put right by the next builds", async () => {
    const { out, build, matchesCold } = await site("basic");
    await build();
    await build();
    // In place (the standby shares the file's bytes by a hard link), replaced, added.
    await appendFile(path.join(out, "index.html"), "<!-- editado -->");
    await rm(path.join(out, "primeiro.html"));
    await writeFile(path.join(out, "primeiro.html"), "editado à mão");
    await writeFile(path.join(out, "extra.html"), "a mais");
    await mkdir(path.join(out, "pasta"));
    await build();
    await matchesCold();
    await build();
    await matchesCold();
  }, 60_000);

  it("a page made again is written over the standby's own copy of it, never into a file the published site shares", async () => {
    const { contentDir, out, build, matchesCold, builds, inode, live } = await builtTwice();
    // The second build took every file of the first by a hard link: the two folders share them.
    const shared = await inode(await live());
    expect(shared.links).toBe(2);
    const publishedBytes = await readFile(path.join(out, "primeiro.html"), "utf8");
    await appendFile(path.join(contentDir, "articles/primeiro.md"), "\nUm parágrafo a mais.\n");
    await build();
    // Shared: a new file in the standby's place, and the published one (now the standby's) left as it was.
    const standby = (await live()) === "a" ? "b" : "a";
    expect(await readFile(path.join(builds, standby, "primeiro.html"), "utf8")).toBe(publishedBytes);
    const own = await inode(standby);
    expect(own.links).toBe(1);
    await appendFile(path.join(contentDir, "articles/primeiro.md"), "\nOutro parágrafo.\n");
    await new Promise((resolve) => setTimeout(resolve, 20));
    await build();
    // The standby's own copy (no other link): the same file, written over.
    expect(await inode(await live())).toEqual(own);
    await matchesCold();
  }, 60_000);

  it("a page carried over the standby's own older copy writes over that copy, so that neither folder shares it with the other", async () => {
    const { contentDir, out, build, matchesCold, inode, live } = await builtTwice();
    await appendFile(path.join(contentDir, "articles/primeiro.md"), "\nUm parágrafo a mais.\n");
    await build();
    // The standby holds the page as it was, a file of its own.
    const standby = (await live()) === "a" ? "b" : "a";
    const older = await inode(standby);
    expect(older.links).toBe(1);
    const publishedBytes = await readFile(path.join(out, "primeiro.html"), "utf8");
    await new Promise((resolve) => setTimeout(resolve, 20));
    // Nothing changed: the page is carried from the live folder into the standby. Written over
    // the standby's own file, not a hard link in its place: the next build that changes the page
    // writes over the other folder's copy as well, where a link would make it unlink the shared
    // file and make a new one (an inode allocated per page: 1.2–3 s more for every article page
    // at 4000 on this machine's ext4).
    await build();
    expect(await live()).toBe(standby);
    expect(await inode(standby)).toEqual(older);
    expect(await readFile(path.join(out, "primeiro.html"), "utf8")).toBe(publishedBytes);
    const other = standby === "a" ? "b" : "a";
    expect((await inode(other)).links).toBe(1);
    await matchesCold();
  }, 60_000);

  it("a standby folder that is missing or damaged is made again", async () => {
    const { root, out, build, matchesCold } = await site("basic");
    await build();
    await build();
    const builds = path.join(root, "dist.builds");
    const live = path.basename(await readlink(out));
    const standby = live === "a" ? "b" : "a";
    await writeFile(path.join(builds, `${standby}.json`), "{ damaged");
    await build();
    await matchesCold();
    await rm(path.join(builds, live), { recursive: true });
    await build();
    await matchesCold();
  }, 60_000);

  it("refuses a second build on the same dist while one runs, and takes over the lock of one that died", async () => {
    const { root, out, build, matchesCold } = await site("basic");
    await build();
    const lock = path.join(root, "dist.builds", "lock");
    const running = spawn(process.execPath, ["-e", "setTimeout(() => {}, 60000)"]);
    try {
      await writeFile(lock, `${running.pid}\n`);
      await expect(new FolderWriter(out).begin()).rejects.toThrow(`another build (process ${running.pid}) is writing ${out}`);
    } finally {
      running.kill();
    }
    await new Promise((resolve) => running.on("exit", resolve));
    await build();
    await matchesCold();
  }, 60_000);

  it("refuses a second build on the same dist in the same process while the first runs; once it is done, the next one goes", async () => {
    const { root, out } = await site("basic");
    const contentDir = path.join(root, "content");
    const first = new FolderWriter(out);
    await first.begin();
    const second = new FolderWriter(out);
    await expect(second.begin()).rejects.toThrow(`another build (in this process, ${process.pid}) is writing ${out}: wait for it to finish`);
    await second.abort();
    const result = await new SiteBuilder({ contentDir, projectRoot, theme, publishedRoutes: false }).build(first);
    expect(result.errors).toEqual([]);
    const next = new FolderWriter(out);
    await next.begin();
    expect((await new SiteBuilder({ contentDir, projectRoot, theme, publishedRoutes: false }).build(next)).errors).toEqual([]);
    expect(await tree(out)).toEqual(await coldTree(contentDir));
  }, 60_000);

  it.each(["staging", "writing", "written", "linked", "swapped", "cleaned"])(
    "a build killed at '%s' after edits, then a normal one, publishes the edited site whole",
    async (step) => {
      const root = await mkdtemp(path.join(tmpdir(), "cafe-publish-kill-"));
      const content = await editedFixture("basic", {});
      const out = path.join(root, "dist");
      const cache = path.join(root, "cache");
      const build = (killAt = "") =>
        new Promise<number | null>((resolve) => {
          const child = spawn(process.execPath, [killBuild(), content, out, killAt, cache], { cwd: projectRoot, stdio: "ignore" });
          child.on("exit", (code, signal) => resolve(signal === "SIGKILL" || code === 137 ? -9 : code));
        });
      expect(await build()).toBe(0);
      expect(await build()).toBe(0);
      await writeFile(path.join(content, "articles/novo.md"), newArticle);
      await appendFile(path.join(content, "articles/guia/so-titulo.md"), "\nUm parágrafo a mais.\n");
      expect(await build(step)).toBe(-9);
      // What the killed build wrote must not outlive it: its new article is gone again.
      await rm(path.join(content, "articles/novo.md"));
      await appendFile(path.join(content, "articles/primeiro.md"), "\nMais um.\n");
      expect(await build()).toBe(0);
      expect(await tree(out)).toEqual(await coldTree(content, path.join(projectRoot, "public")));
      expect(await build()).toBe(0);
      expect(await tree(out)).toEqual(await coldTree(content, path.join(projectRoot, "public")));
    },
    120_000,
  );

  it("where no symlink can be made, dist is a plain folder swapped by renames, complete after every build", async () => {
    const eperm = async () => {
      throw Object.assign(new Error("EPERM: operation not permitted, symlink"), { code: "EPERM" });
    };
    const { root, contentDir, out, build, matchesCold } = await site("basic", { symlink: eperm });
    await build();
    expect((await lstat(out)).isDirectory()).toBe(true);
    await matchesCold();
    await appendFile(path.join(contentDir, "articles/guia/so-titulo.md"), "\nUm parágrafo a mais.\n");
    await build();
    expect((await lstat(out)).isDirectory()).toBe(true);
    await matchesCold();
    await writeFile(path.join(contentDir, "articles/novo.md"), newArticle);
    await build();
    await matchesCold();
    // Links work again (developer mode turned on): the next build links, and the one after falls back again.
    await build({ symlink });
    expect((await lstat(out)).isSymbolicLink()).toBe(true);
    await matchesCold();
    await rm(path.join(contentDir, "articles/novo.md"));
    await build();
    expect((await lstat(out)).isDirectory()).toBe(true);
    await matchesCold();
    // Nothing is left beside dist but its two build folders and their records.
    expect((await readdir(root)).sort()).toEqual(["content", "dist", "dist.builds", "public"]);
    const kept = (await readdir(path.join(root, "dist.builds"))).sort();
    expect(kept.length === 3 && kept.filter((name) => name.endsWith(".json"))).toEqual(["a.json", "b.json"]);
    // Killed between the two renames: no dist, two whole folders. The next build first publishes the newer again.
    const live = kept.find((name) => !name.endsWith(".json")) === "a" ? "b" : "a";
    await rename(out, path.join(root, "dist.builds", live));
    const writer = new FolderWriter(out, { symlink: eperm });
    await writer.begin();
    await matchesCold();
    await writer.abort();
  }, 120_000);
});

describe("the lock of the build folders", () => {
  let contender = "";
  beforeAll(async () => {
    contender = await bundleContender();
  });
  afterAll(async () => {
    await rm(path.dirname(contender), { recursive: true, force: true });
  });

  /** A zombie: a process that has exited and that its parent (a shell that became `sleep`) never waits for. */
  async function zombie(): Promise<{ pid: number; stop: () => void }> {
    const parent = spawn("sh", ["-c", "sleep 0.05 & echo $!; exec sleep 30"], { stdio: ["ignore", "pipe", "ignore"] });
    const pid = Number(await new Promise<string>((resolve) => parent.stdout!.once("data", (d: Buffer) => resolve(d.toString()))));
    for (let i = 0; i < 100; i++) {
      const stat = await readFile(`/proc/${pid}/stat`, "utf8").catch(() => "");
      if (stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z")) return { pid, stop: () => parent.kill() };
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    parent.kill();
    throw new Error(`process ${pid} never became a zombie`);
  }

  it.runIf(process.platform === "linux").each<StaleLock>(["file", "folder"])("takes over at once a lock (%s) whose holder is a zombie: a killed build nobody reaped", async (kind) => {
    const { root, out, build, matchesCold } = await site("basic");
    await build();
    const holder = await zombie();
    try {
      await plantStaleLock(path.join(root, "dist.builds"), kind, holder.pid);
      const started = performance.now();
      await build();
      expect(performance.now() - started).toBeLessThan(10_000);
      await matchesCold();
      // The lock is let go with the build: the next one takes it.
      expect((await readdir(path.join(root, "dist.builds"))).filter((name) => name.startsWith("lock"))).toEqual([]);
      const next = new FolderWriter(out);
      await next.begin();
      await next.abort();
    } finally {
      holder.stop();
    }
  }, 60_000);

  it.each<StaleLock>(["file", "folder"])("four builds started together on a stale lock (%s): one holds it at a time, the others are refused, dist holds one site", async (stale) => {
    for (let round = 0; round < 5; round++) {
      const outcome = await race({ contender, stale, racers: 4 });
      expect(outcome.problems, `round ${round + 1}`).toEqual([]);
      expect(outcome.published.length + outcome.refused.length).toBe(4);
    }
  }, 120_000);
});
