/**
 * A site outside this repository, as README's "Writing a theme" makes one: the notebook
 * fixture's config, theme and content copied into a folder of its own, the engine packed
 * (`npm pack ./engine`) and installed from the tarball with the packages the theme imports,
 * and every command run there with `cafe`: build, dev (a save reloads the page), preview,
 * new and check-links; its theme typechecks with its own tsconfig.json. Nothing of it points
 * back into this repository: no symlinked node_modules, no path to the engine's sources.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { execFile, spawn, type ChildProcess } from "node:child_process";
import { cp, lstat, mkdir, mkdtemp, readdir, readFile, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { fixture, projectRoot } from "./helpers.js";

const exec = promisify(execFile);

let work = "";
let site = "";
/** The engine, packed as it would be published. */
let tarball = "";
/** The site's commands run as an author's would: no test cache folder (the site keeps its own, in its node_modules). */
const { CAFE_CACHE_DIR: _, NODE_ENV: __, ...authorEnv } = process.env;
const env = { ...authorEnv, NO_COLOR: "1", npm_config_audit: "false", npm_config_fund: "false", npm_config_update_notifier: "false" };

/**
 * What npm or npx says of itself on stderr (`npm warn Unknown user config "nodedir"` for a
 * setting of the user's ~/.npmrc that this npm does not know, notices): not the command's output.
 */
const withoutNpm = (stderr: string) => stderr.replace(/^npm (warn|WARN|notice)\b.*\n?/gm, "");

/** Runs a command in a folder; its exit code and output, whatever the code (npm's own warnings left out of stderr). */
async function run(command: string, args: string[], cwd = site) {
  return exec(command, args, { cwd, env, maxBuffer: 16 << 20 }).then(
    (r) => ({ code: 0, stdout: r.stdout, stderr: withoutNpm(r.stderr) }),
    (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, stdout: e.stdout, stderr: withoutNpm(e.stderr ?? "") }),
  );
}
const cafe = (...args: string[]) => run("npx", ["--no-install", "cafe", ...args]);

/** A server the command starts (`cafe dev`, `cafe preview`): its address, once it says it. */
async function start(args: string[], said: RegExp, dir = site): Promise<{ child: ChildProcess; url: string; output: () => string }> {
  // The command itself (node_modules/.bin/cafe), so that stopping it stops the server.
  const child = spawn(path.join(dir, "node_modules/.bin/cafe"), args, { cwd: dir, env, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no address within 60 s:\n${output}`)), 60_000);
    const read = (chunk: Buffer) => {
      output += chunk.toString();
      const found = said.exec(output);
      if (found) {
        clearTimeout(timer);
        resolve(found[1]!);
      }
    };
    child.stdout!.on("data", read);
    child.stderr!.on("data", read);
    child.on("exit", (code) => reject(new Error(`${args[0]} exited (${code}):\n${output}`)));
  });
  return { child, url, output: () => output };
}

const stop = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once("exit", () => resolve());
    child.kill("SIGTERM");
  });

beforeAll(async () => {
  work = await realpath(await mkdtemp(path.join(tmpdir(), "cafe-outside-")));
  // The engine, packed as it would be published.
  const packed = await run("npm", ["pack", path.join(projectRoot, "engine"), "--pack-destination", work, "--json"], work);
  expect(packed.code, packed.stderr).toBe(0);
  tarball = path.join(work, (JSON.parse(packed.stdout) as { filename: string }[])[0]!.filename);
  // The site: a config, a theme, content. Nothing else of the fixture (its tsconfig.json points into this repository).
  site = path.join(work, "notebook");
  for (const part of ["cafe.config.ts", "theme", "content", "public"]) await cp(path.join(fixture("notebook"), part), path.join(site, part), { recursive: true });
  await writeFile(path.join(site, "package.json"), `${JSON.stringify({ name: "notebook", private: true }, null, 2)}\n`);
  await writeFile(
    path.join(site, "tsconfig.json"),
    `${JSON.stringify(
      {
        compilerOptions: {
          target: "ES2022",
          module: "ESNext",
          moduleResolution: "Bundler",
          jsx: "react-jsx",
          strict: true,
          skipLibCheck: true,
          verbatimModuleSyntax: true,
          noEmit: true,
          lib: ["ES2023", "DOM"],
          types: ["node"],
        },
        include: ["cafe.config.ts", "theme"],
      },
      null,
      2,
    )}\n`,
  );
  // Installed as README says: the engine from its tarball, with what the theme imports; the type checker for development.
  const installed = await run("npm", ["install", "--prefer-offline", tarball, "react", "react-dom", "zod"]);
  expect(installed.code, installed.stderr).toBe(0);
  const types = await run("npm", ["install", "--prefer-offline", "--save-dev", "typescript", "@types/node", "@types/react", "@types/react-dom"]);
  expect(types.code, types.stderr).toBe(0);
}, 600_000);

afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true });
});

describe("a site outside this repository, with the engine installed from its package", () => {
  it("has nothing that points back into this repository", async () => {
    // The engine is a folder of the site's node_modules, not a link to the sources.
    expect((await lstat(path.join(site, "node_modules/cafe-engine"))).isDirectory()).toBe(true);
    expect(await readFile(path.join(site, "node_modules/cafe-engine/package.json"), "utf8")).toContain('"cafe": "./launch.mjs"');
    const links: string[] = [];
    for (const entry of await readdir(path.join(site, "node_modules"), { withFileTypes: true, recursive: true })) {
      if (!entry.isSymbolicLink()) continue;
      const target = await realpath(path.join(entry.parentPath, entry.name)).catch(() => "");
      if (!target.startsWith(site + path.sep)) links.push(`${path.join(entry.parentPath, entry.name)} -> ${target}`);
    }
    expect(links).toEqual([]);
    for (const file of ["package.json", "package-lock.json"]) expect(await readFile(path.join(site, file), "utf8")).not.toContain(projectRoot);
  });

  it("typechecks its theme with its own tsconfig.json and the engine's types", async () => {
    const result = await run("npx", ["--no-install", "tsc", "-p", "."]);
    expect(result.stdout + result.stderr).toBe("");
    expect(result.code).toBe(0);
  }, 120_000);

  it("answers --help for the command and each of its commands", async () => {
    const help = await cafe("--help");
    expect(help.code).toBe(0);
    for (const command of ["build", "dev", "preview", "new", "check-links"]) expect(help.stdout).toContain(`  ${command} `);
    const build = await cafe("build", "--help");
    expect(build.stdout).toContain("usage: cafe build [options]");
  }, 60_000);

  it("builds into its own dist/, writes its editors' schemas, and says so with paths from its folder", async () => {
    const result = await cafe("build");
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^Building dist \(/m);
    expect(result.stdout).toMatch(/^Built 6 pages into dist in \d+ ms$/m);
    expect(result.stdout).toContain("Updated the editors' schemas of the YAML files: .vscode/schemas/site.schema.json");
    const list = await readFile(path.join(site, "dist/index.html"), "utf8");
    expect(list).toContain('<a href="/notes/margins">Margins</a>');
    expect(list).toMatch(/<link rel="stylesheet" href="\/assets\/style-[A-Z0-9]+\.css"/);
    // The notebook's own settings, not the blog's.
    const schema = JSON.parse(await readFile(path.join(site, ".vscode/schemas/site.schema.json"), "utf8")) as { properties: Record<string, unknown>; required: string[] };
    expect(Object.keys(schema.properties)).toEqual(expect.arrayContaining(["title", "url", "author", "description"]));
    expect(schema.required).toEqual(expect.arrayContaining(["title", "url", "author", "description"]));
    const settings = JSON.parse(await readFile(path.join(site, ".vscode/settings.json"), "utf8")) as Record<string, Record<string, string[]>>;
    expect(settings["yaml.schemas"]).toEqual({ "./.vscode/schemas/site.schema.json": ["content/site.yaml"] });
    // Its caches are its own: in its node_modules, named from its folder.
    expect((await readdir(path.join(site, "node_modules/.cache/engine"))).length).toBeGreaterThan(0);
    expect((await cafe("build")).stdout).toBe("dist is up to date (nothing changed since the last build; --force rebuilds)\n");
  }, 120_000);

  it("names every file from the site's folder, from wherever it is run", async () => {
    const note = path.join(site, "content/articles/notes/margins.md");
    const good = await readFile(note, "utf8");
    await writeFile(note, `${good}\nSee [nothing](/notes/nothing).\n`);
    try {
      // From a folder of the site, and from outside it with --root.
      const bin = path.join(site, "node_modules/.bin/cafe");
      for (const [cwd, args] of [[path.join(site, "content/articles"), ["build"]], [work, ["build", "--root", site]]] as const) {
        const result = await run(bin, [...args], cwd);
        expect(result.code).toBe(1);
        expect(result.stderr).toMatch(/^content\/articles\/notes\/margins\.md:9:5: broken link: no page has the route \/notes\/nothing$/m);
        expect(result.stderr).toContain("Build failed; dist was left as it was.");
        expect(result.stderr).not.toContain("../");
      }
    } finally {
      await writeFile(note, good);
    }
  }, 120_000);

  it("writes a new draft with the engine's text when the theme gives none", async () => {
    const result = await cafe("new", "A third note");
    expect(result.stdout).toBe("Created content/articles/a-third-note.md (a draft: cafe dev shows it, cafe build leaves it out)\n");
    const text = await readFile(path.join(site, "content/articles/a-third-note.md"), "utf8");
    // Dated as an English site writes a date no reader misreads (issue 39): year first.
    expect(text).toMatch(/^---\ntitle: "A third note"\ndate: \d{4}-\d\d-\d\d\ndraft: true/);
    // A draft: the build leaves it out.
    expect((await cafe("build")).stdout).toMatch(/Built 6 pages into dist/);
    await rm(path.join(site, "content/articles/a-third-note.md"));
  }, 120_000);

  it("serves the built site with cafe preview: each route at its path, anything else the 404 page", async () => {
    expect((await cafe("build")).code).toBe(0);
    const server = await start(["preview", "--port", "0"], /Serving dist at (http:\/\/\S+)/);
    try {
      const page = await fetch(`${server.url}/notes/margins`);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain("<h1>Margins</h1>");
      const missing = await fetch(`${server.url}/notes/nothing`);
      expect(missing.status).toBe(404);
      expect(await missing.text()).toContain("Nothing here");
    } finally {
      await stop(server.child);
    }
  }, 120_000);

  it("runs cafe dev: a save rebuilds the page and tells the open pages to reload; a theme edit brings the new code", async () => {
    const server = await start(["dev", "--port", "0"], /dev server: (http:\/\/\S+)/);
    const events: { event: string; data: string }[] = [];
    const stream = new AbortController();
    try {
      const res = await fetch(`${server.url}/__cafe/events`, { signal: stream.signal });
      void (async () => {
        let buffer = "";
        try {
          for await (const chunk of res.body!) {
            buffer += Buffer.from(chunk as Uint8Array).toString();
            let end;
            while ((end = buffer.indexOf("\n\n")) >= 0) {
              const block = buffer.slice(0, end);
              buffer = buffer.slice(end + 2);
              const event = /^event: (.*)$/m.exec(block)?.[1];
              if (event) events.push({ event, data: /^data: (.*)$/m.exec(block)?.[1] ?? "" });
            }
          }
        } catch {
          // Stopped by the test.
        }
      })();
      const page = await (await fetch(`${server.url}/notes/margins`)).text();
      expect(page).toContain('<script type="module" src="/__cafe/dev-client.js"></script>');
      const note = path.join(site, "content/articles/notes/margins.md");
      const good = await readFile(note, "utf8");
      await writeFile(note, good.replace("A question, a date", "A question, a date, a saved thought"));
      try {
        await expect.poll(() => events.find((e) => e.event === "ok")?.data, { timeout: 30_000 }).toBe('{"routes":["/notes/margins"]}');
        expect(await (await fetch(`${server.url}/notes/margins`)).text()).toContain("a saved thought");
      } finally {
        await writeFile(note, good);
      }
      // A theme edit: the builder starts again with the new code, bundled from the site's folder.
      const theme = path.join(site, "theme/theme.tsx");
      const code = await readFile(theme, "utf8");
      await writeFile(theme, code.replace("<h1>All notes</h1>", "<h1>Every note</h1>"));
      try {
        await expect.poll(async () => (await fetch(`${server.url}/`)).text(), { timeout: 30_000 }).toContain("<h1>Every note</h1>");
      } finally {
        await writeFile(theme, code);
      }
    } finally {
      stream.abort();
      await stop(server.child);
    }
    expect(server.output()).not.toMatch(/\n\s+at /);
  }, 120_000);

  it("checks the links the site shows with cafe check-links (it cites none), once the site builds", async () => {
    const result = await cafe("check-links", "--no-cache");
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("Checked 0 external links");
    // It builds the site with its theme first: a broken link is a build error, said from the site's folder.
    const note = path.join(site, "content/articles/notes/margins.md");
    const good = await readFile(note, "utf8");
    await writeFile(note, `${good}\nSee [nothing](/notes/nothing).\n`);
    try {
      const broken = await cafe("check-links", "--no-cache");
      expect(broken.code).toBe(1);
      expect(broken.stderr).toMatch(/^content\/articles\/notes\/margins\.md:9:5: broken link/m);
      expect(broken.stderr).toContain("The site does not build: fix the errors above, then check its links.");
    } finally {
      await writeFile(note, good);
    }
  }, 120_000);
});

describe("a theme's mistakes in a site outside this repository", () => {
  /** Runs `cafe build` with the theme edited; the theme as it was afterwards. */
  async function buildWith(edit: (theme: string) => string) {
    const file = path.join(site, "theme/theme.tsx");
    const good = await readFile(file, "utf8");
    await writeFile(file, edit(good));
    try {
      return await cafe("build");
    } finally {
      await writeFile(file, good);
    }
  }

  it("an asset entry that names no file is an error at the theme's line, with the file it meant", async () => {
    const result = await buildWith((s) => s.replace('style: "theme/style.css"', 'style: "theme/styles.css"'));
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^theme\/theme\.tsx:\d+:\d+: the asset entry 'style' names theme\/styles\.css, which does not exist$/m);
    expect(result.stderr).toContain("hint: did you mean theme/style.css?");
    expect(result.stderr).not.toMatch(/\n\s+at /);
  }, 120_000);

  it("a listing the theme does not have is an error at the template's line, with the name it meant", async () => {
    const result = await buildWith((s) => s.replace('ctx.listing("notes")', '(ctx.listing as (name: string) => { route: string; title: string }[])("note")'));
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^theme\/theme\.tsx:\d+:\d+: the theme has no listing 'note'$/m);
    expect(result.stderr).toContain("hint: did you mean 'notes'?");
    expect(result.stderr).toContain("Build failed; dist was left as it was.");
    expect(result.stderr).not.toMatch(/\n\s+at /);
  }, 120_000);
});

describe("a site started with cafe init, from the packed engine (issue 39)", () => {
  let starter = "";
  /** A command the site installed (node_modules/.bin/NAME), as `npx NAME` runs it: its own output, not npm's. */
  const inStarter = (name: string, ...args: string[]) => run(path.join(starter, "node_modules/.bin", name), args, starter);

  beforeAll(async () => {
    // A new folder with the engine installed, as an author starts: then `npx cafe init`.
    starter = path.join(work, "my-site");
    await mkdir(starter);
    await writeFile(path.join(starter, "package.json"), `${JSON.stringify({ name: "my-site", private: true }, null, 2)}\n`);
    const installed = await run("npm", ["install", "--prefer-offline", tarball, "react", "react-dom", "zod"], starter);
    expect(installed.code, installed.stderr).toBe(0);
  }, 600_000);

  it("writes the starter site, says what to do next, and refuses to write it twice", async () => {
    const init = await inStarter("cafe", "init");
    expect(init.stderr).toBe("");
    expect(init.code).toBe(0);
    expect(init.stdout).toContain("Wrote a starter site into this folder: ");
    expect(init.stdout).toContain("Next: npm install && npx cafe dev");
    const again = await inStarter("cafe", "init");
    expect(again.code).toBe(1);
    expect(again.stderr).toContain("hint: run cafe init in an empty folder, or name a new one: cafe init my-site");
    // What it added to package.json (the type checker) comes with npm install.
    const installed = await run("npm", ["install", "--prefer-offline"], starter);
    expect(installed.code, installed.stderr).toBe(0);
  }, 600_000);

  it("serves it with cafe dev at once", async () => {
    const server = await start(["dev", "--port", "0"], /dev server: (http:\/\/\S+)/, starter);
    try {
      const home = await fetch(`${server.url}/`);
      expect(home.status).toBe(200);
      expect(await home.text()).toContain("<h1>My new site</h1>");
      // The draft too: dev builds drafts.
      expect((await fetch(`${server.url}/next-post`)).status).toBe(200);
    } finally {
      await stop(server.child);
    }
    expect(server.output()).not.toMatch(/warning/);
  }, 120_000);

  it("builds it with no warning, and its theme type-checks", async () => {
    const build = await inStarter("cafe", "build");
    expect(build.stderr).toBe("");
    expect(build.code).toBe(0);
    expect(build.stdout).toMatch(/^Built 6 pages into dist in \d+ ms$/m);
    expect(await readFile(path.join(starter, "dist/welcome.html"), "utf8")).toContain("<h1>Welcome to your new site</h1>");
    // What `npm run typecheck` runs.
    const typecheck = await inStarter("tsc", "--noEmit");
    expect(typecheck.stdout + typecheck.stderr).toBe("");
    expect(typecheck.code).toBe(0);
  }, 180_000);
});
