/**
 * The tools the benchmarks build the corpus with, each in the layout it expects: this
 * generator (a copy of the project beside the corpus), Eleventy, Hugo and Astro, each
 * rendering every file into a full page through one equivalent layout. bench/run.ts and
 * bench/series.ts use them.
 */
import { execFileSync } from "node:child_process";
import { appendFile, cp, mkdir, readdir, symlink, writeFile } from "node:fs/promises";
import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { blogPage } from "./blog-page.js";

const bench = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(bench, "..");
const peers = path.join(bench, "node_modules");

/** The one layout every peer renders, in its own template syntax for the title and the body. */
export const layout = (title: string, body: string) =>
  `<!DOCTYPE html><html lang="pt-BR"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${title}</title></head><body><header><p>Blog Café com a Cris</p></header><main><article><h1>${title}</h1>${body}</article></main><footer><p>© 2025</p></footer></body></html>\n`;

export interface Tool {
  name: string;
  /**
   * Makes the project for `n` files, whose corpus is in `corpus` (this generator: with its
   * social cards when `cards`, its code copied from the checkout `code` when given, else from this one).
   */
  setup(dir: string, corpus: string, options?: { cards?: boolean; code?: string }): Promise<void>;
  command(dir: string): [string, string[]];
  /** Output and caches, removed before a cold run. */
  clean: (dir: string) => string[];
  /** The folder the site is written to. */
  output: (dir: string) => string;
  /** The number of pages written, to check the run did the work. */
  pages(dir: string): number;
}

/**
 * A copy of the project its own node_modules folder (the caches live in node_modules/.cache),
 * each package in it a link to this checkout's: installed once, shared by every copy.
 */
export async function linkPackages(project: string): Promise<void> {
  await mkdir(path.join(project, "node_modules"), { recursive: true });
  for (const name of await readdir(path.join(root, "node_modules"))) {
    if (name !== ".cache") await symlink(path.join(root, "node_modules", name), path.join(project, "node_modules", name));
  }
}

/** The whole HTML pages under `dir` (a file ending its document: an article's bare HTML, without the layout, is not one). */
export const countHtml = (dir: string) =>
  existsSync(dir) ? Number(execFileSync("bash", ["-c", `grep -RlF --include='*.html' '</html>' "${dir}" | wc -l`]).toString().trim()) : 0;

/** templates/social-card.tsx's card for an article without a category or date, in the HTML eleventy-plugin-og-image draws (satori). */
const ELEVENTY_CARD = `<div style="width: 100%; height: 100%; display: flex; background-color: #fffaf5; font-family: Inter; color: #3b2417;">
  <div style="display: flex; width: 28px; height: 100%; background-color: #7c4a2d;"></div>
  <div style="display: flex; flex-direction: column; justify-content: space-between; flex: 1; padding: 56px 72px 56px 64px;">
    <div style="display: flex; align-items: center;">
      <div style="display: flex; align-items: center; justify-content: center; width: 76px; height: 76px; border-radius: 38px; background-color: #7c4a2d; color: #fffaf5; font-family: 'Dancing Script'; font-size: 44px; font-weight: 700;">C</div>
      <div style="display: flex; align-items: baseline; margin-left: 24px;">
        <span style="font-size: 36px; font-weight: 700; margin-right: 12px;">Café com a</span>
        <span style="font-family: 'Dancing Script'; font-size: 60px; font-weight: 700; color: #7c4a2d;">Cris</span>
      </div>
    </div>
    <div style="display: flex; flex-direction: column;">
      <div style="display: block; line-clamp: 5; font-size: {{ 72 if title.length <= 40 else (60 if title.length <= 75 else 50) }}px; font-weight: 700; line-height: 1.12; letter-spacing: -1px;">{{ title }}</div>
    </div>
    <div style="display: flex; justify-content: space-between; align-items: center; font-size: 28px; color: #5f5149;">
      <span></span>
      <div style="display: flex; width: 120px; height: 8px; border-radius: 4px; background-color: #7c4a2d;"></div>
    </div>
  </div>
</div>
`;

/** The tool `base` with more done after its setup (another layout, a plugin): the same command, output and pages. */
const after = (base: string, name: string, then: (dir: string) => Promise<void>): Tool => ({
  name,
  async setup(dir, corpus) {
    await TOOLS[base]!.setup(dir, corpus);
    await then(dir);
  },
  command: (dir) => TOOLS[base]!.command(dir),
  clean: (dir) => TOOLS[base]!.clean(dir),
  output: (dir) => TOOLS[base]!.output(dir),
  pages: (dir) => TOOLS[base]!.pages(dir),
});

export const TOOLS: Record<string, Tool> = {
  ours: {
    name: "this generator",
    async setup(dir, corpus, { cards = false, code = root } = {}) {
      await cp(path.join(root, "content"), path.join(dir, "content"), { recursive: true });
      // No social cards unless asked: the peers draw none, so like is compared with like (a
      // card's cost is measured on its own: bench/media.ts, and bench/series.ts's ours:cards).
      if (!cards) await appendFile(path.join(dir, "content/site.yaml"), "\nsocialCards: false\n");
      await cp(corpus, path.join(dir, "content/articles/bench"), { recursive: true });
      for (const part of ["build.ts", "cafe.config.ts", "engine", "templates", "client", "public", "package.json", "package-lock.json", "tsconfig.json"]) {
        // Not the engine's bundles (engine/.bundle): the copy makes its own on its first build, as an installed engine is built once.
        await cp(path.join(code, part), path.join(dir, "project", part), { recursive: true, filter: (src) => path.basename(src) !== ".bundle" });
      }
      await linkPackages(path.join(dir, "project"));
    },
    // What `npm run build` runs, from a copy of the project (the edit rows change a template).
    // --root: the copy is the site (run from `dir`, the command would look for a site's config above it and find this checkout's).
    command: (dir) => [process.execPath, [path.join(dir, "project/engine/launch.mjs"), "build", "--root", path.join(dir, "project"), "--content", path.join(dir, "content"), "--out", path.join(dir, "dist")]],
    clean: (dir) => [path.join(dir, "dist"), path.join(dir, "dist.builds"), path.join(dir, "project/node_modules/.cache")],
    output: (dir) => path.join(dir, "dist"),
    pages: (dir) => countHtml(path.join(dir, "dist")),
  },
  starter: {
    name: "this generator, starter theme",
    // The site `cafe init` writes (its English starter theme: one plain layout per post, as the
    // peers' one layout), with the corpus among its posts: what the engine costs on pages as
    // small as the peers', where `ours` also pays for the blog's theme (pages ten times larger).
    async setup(dir, corpus, { code = root } = {}) {
      const project = path.join(dir, "project");
      execFileSync(process.execPath, [path.join(code, "engine/launch.mjs"), "init", project], { stdio: "ignore" });
      await cp(corpus, path.join(project, "content/articles/bench"), { recursive: true });
      await linkPackages(project);
      // The starter imports the engine as the package it is published as.
      await symlink(path.join(code, "engine"), path.join(project, "node_modules/cafe-engine"));
    },
    command: (dir) => [process.execPath, [path.join(dir, "project/node_modules/cafe-engine/launch.mjs"), "build", "--root", path.join(dir, "project")]],
    clean: (dir) => [path.join(dir, "project/dist"), path.join(dir, "project/dist.builds"), path.join(dir, "project/node_modules/.cache")],
    output: (dir) => path.join(dir, "project/dist"),
    pages: (dir) => countHtml(path.join(dir, "project/dist")),
  },
  eleventy: {
    name: "Eleventy 3.1.2",
    async setup(dir, corpus) {
      await cp(corpus, path.join(dir, "posts"), { recursive: true });
      await mkdir(path.join(dir, "_includes"), { recursive: true });
      await writeFile(path.join(dir, "posts/posts.json"), JSON.stringify({ layout: "page.njk" }));
      await writeFile(
        path.join(dir, "_includes/page.njk"),
        layout("{{ title }}", "{{ content | safe }}"),
      );
    },
    // Run in its folder (every bench spawns a tool there), the input named relatively: given as
    // an absolute path, Eleventy 3.1.2 applies no directory data file (posts/posts.json), so
    // every page was the article's bare HTML, without the layout (until session 27).
    command: () => [process.execPath, [path.join(peers, "@11ty/eleventy/cmd.cjs"), "--quiet", "--input=.", "--output=_site"]],
    clean: (dir) => [path.join(dir, "_site"), path.join(dir, ".cache")],
    output: (dir) => path.join(dir, "_site"),
    pages: (dir) => countHtml(path.join(dir, "_site")),
  },
  // The same corpus, each article in the page the blog's theme makes of it (bench/blog-page.ts):
  // ten times the bytes of the one-line layout, as `ours` writes them.
  "eleventy-blog": after("eleventy", "Eleventy 3.1.2, the blog's page", async (dir) => {
    await writeFile(path.join(dir, "_includes/page.njk"), blogPage("{{ title }}", "{{ page.url }}", "{{ content | safe }}"));
  }),
  // `eleventy-blog` with a 1200×630 PNG card for each article drawn as this generator draws its
  // own with cards on (satori, resvg, sharp: the plugin's stack and ours), in the card's layout,
  // colours and fonts (templates/social-card.tsx), named in each page's head.
  "eleventy-cards": after("eleventy-blog", "Eleventy 3.1.2, the blog's page and a social card an article (eleventy-plugin-og-image)", async (dir) => {
    const page = blogPage("{{ title }}", "{{ page.url }}", "{{ content | safe }}").replace("</head>", `{% ogImage "./card.og.njk", { title: title } %}</head>`);
    await writeFile(path.join(dir, "_includes/page.njk"), page);
    // satori counts the white space between two tags as a child of their element (and an empty
    // element as one with children: hence `display: flex` on the bar at the left, which React
    // leaves without children).
    await writeFile(path.join(dir, "card.og.njk"), ELEVENTY_CARD.replace(/>\s+</g, "><").trim());
    const font = (name: string, file: string, weight: number) =>
      `{ name: ${JSON.stringify(name)}, data: fs.readFileSync(${JSON.stringify(path.join(root, "node_modules/@fontsource", file))}), weight: ${weight}, style: "normal" }`;
    const fonts = [font("Inter", "inter/files/inter-latin-400-normal.woff", 400), font("Inter", "inter/files/inter-latin-700-normal.woff", 700), font("Dancing Script", "dancing-script/files/dancing-script-latin-700-normal.woff", 700)];
    const config = [
      `import fs from "node:fs";`,
      `import EleventyPluginOgImage from ${JSON.stringify(path.join(peers, "eleventy-plugin-og-image/.eleventy.js"))};`,
      `export default async function (eleventyConfig) {`,
      `  eleventyConfig.addPlugin(EleventyPluginOgImage, { previewMode: false, satoriOptions: { fonts: [${fonts.join(", ")}] } });`,
      `}`,
    ];
    await writeFile(path.join(dir, "eleventy.config.mjs"), `${config.join("\n")}\n`);
  }),
  hugo: {
    name: "Hugo (Debian)",
    async setup(dir, corpus) {
      await cp(corpus, path.join(dir, "content/posts"), { recursive: true });
      await mkdir(path.join(dir, "layouts/_default"), { recursive: true });
      await writeFile(path.join(dir, "hugo.toml"), `baseURL = "https://example.com/"\ntitle = "Bench"\ndisableKinds = ["taxonomy", "term", "RSS", "sitemap", "robotsTXT", "home", "section"]\n`);
      await writeFile(
        path.join(dir, "layouts/_default/single.html"),
        layout("{{ .Title }}", "{{ .Content }}"),
      );
    },
    command: (dir) => ["hugo", ["--quiet", "--source", dir, "--destination", path.join(dir, "public")]],
    clean: (dir) => [path.join(dir, "public"), path.join(dir, "resources")],
    output: (dir) => path.join(dir, "public"),
    pages: (dir) => countHtml(path.join(dir, "public")),
  },
  "hugo-blog": after("hugo", "Hugo (Debian), the blog's page", async (dir) => {
    await writeFile(path.join(dir, "layouts/_default/single.html"), blogPage("{{ .Title }}", "{{ .RelPermalink }}", "{{ .Content }}"));
  }),
  astro: {
    name: "Astro 5",
    async setup(dir, corpus) {
      await cp(corpus, path.join(dir, "posts"), { recursive: true });
      await mkdir(path.join(dir, "src/pages/posts"), { recursive: true });
      await writeFile(path.join(dir, "astro.config.mjs"), `import { defineConfig } from "astro/config";\nexport default defineConfig({ telemetry: false });\n`);
      await writeFile(
        path.join(dir, "src/content.config.ts"),
        `import { defineCollection, z } from "astro:content";\nimport { glob } from "astro/loaders";\nconst posts = defineCollection({ loader: glob({ pattern: "**/*.md", base: "./posts" }), schema: z.object({ title: z.string() }) });\nexport const collections = { posts };\n`,
      );
      await writeFile(
        path.join(dir, "src/pages/posts/[id].astro"),
        `---\nimport { getCollection, render } from "astro:content";\nexport async function getStaticPaths() {\n  const posts = await getCollection("posts");\n  return posts.map((post) => ({ params: { id: post.id }, props: { post } }));\n}\nconst { post } = Astro.props;\nconst { Content } = await render(post);\n---\n${layout("{post.data.title}", "<Content />")}`,
      );
      await symlink(peers, path.join(dir, "node_modules"));
    },
    command: (dir) => [process.execPath, [path.join(peers, "astro/astro.js"), "build", "--root", dir, "--silent"]],
    clean: (dir) => [path.join(dir, "dist"), path.join(dir, ".astro"), path.join(peers, ".astro")],
    output: (dir) => path.join(dir, "dist"),
    pages: (dir) => countHtml(path.join(dir, "dist")),
  },
};
