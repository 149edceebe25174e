/**
 * The floor the Markdown library sets: the corpus's bodies parsed, on one thread, by what the
 * engine is built on (remark-parse with GFM and directives: micromark, then the syntax tree;
 * and remark-parse alone, what the engine uses for a body none of their characters is in, as
 * every corpus body; the engine then still turns each tree into HTML), against markdown-it
 * (what Eleventy renders Markdown with) doing the whole job, HTML included. No file is written; each figure is the
 * median of `--runs` passes over every body after one pass to warm the code up. The same
 * passes then run over this blog's own articles (about half their bytes are plain paragraphs,
 * where every corpus body is), each pass going through them 20 times.
 *
 *   npx tsx bench/markdown-floor.ts [--size 4000] [--runs 5] [--dir DIR]
 */
import { readdir, readFile } from "node:fs/promises";
import { existsSync } from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { unified } from "unified";
import remarkParse from "remark-parse";
import remarkGfm from "remark-gfm";
import remarkDirective from "remark-directive";
import { writeCorpus } from "./corpus.js";
import { parseWithPlainBlocks } from "../engine/stages/markdown/plain-blocks.js";
import { median } from "./figures.js";

const { values } = parseArgs({ options: { size: { type: "string", default: "4000" }, runs: { type: "string", default: "5" }, dir: { type: "string" } } });
const here = path.dirname(fileURLToPath(import.meta.url));
const work = path.resolve(values.dir ?? path.join(here, "out"));
const size = Number(values.size);
const corpus = path.join(work, `corpus-${size}`);
if (!existsSync(corpus)) await writeCorpus(size, corpus);
// The body of each file: what follows its front matter.
const bodies = await Promise.all((await readdir(corpus)).filter((f) => f.endsWith(".md")).map(async (f) => (await readFile(path.join(corpus, f), "utf8")).replace(/^---\n[\s\S]*?\n---\n/, "")));
// markdown-it is Eleventy's: installed with the peers (npm run bench:peers).
const MarkdownIt = createRequire(path.join(here, "node_modules", "x.js"))("markdown-it") as new () => { render(text: string): string };

const parser = unified().use(remarkParse).use(remarkGfm).use(remarkDirective);
// The engine's lean pipeline (stages/markdown/article-markdown.ts): a body in which no GFM
// construct or directive can start is parsed without their extensions. Every corpus body is.
const lean = unified().use(remarkParse);
const md = new MarkdownIt();
const passes: Record<string, (body: string) => unknown> = {
  "remark-parse (+GFM, directives): the syntax tree": (body) => parser.parse(body),
  "remark-parse alone": (body) => lean.parse(body),
  "the engine's: plain paragraphs apart, the rest (+GFM, directives)": (body) => parseWithPlainBlocks(body, (text) => parser.parse(text) as never),
  "markdown-it: HTML": (body) => md.render(body),
};

function series(label: string, texts: readonly string[], repeat: number) {
  console.log(`${label}: ${texts.length} bodies, ${(texts.reduce((n, b) => n + b.length, 0) / 1e6).toFixed(2)} MB of Markdown${repeat > 1 ? `, each pass ${repeat} times over them` : ""}; median of ${values.runs} passes, one thread`);
  for (const [name, pass] of Object.entries(passes)) {
    const times: number[] = [];
    for (let run = 0; run <= Number(values.runs); run++) {
      const start = performance.now();
      for (let i = 0; i < repeat; i++) for (const body of texts) pass(body);
      if (run > 0) times.push(performance.now() - start);
    }
    console.log(`  ${name.padEnd(66)} ${median(times).toFixed(0).padStart(6)} ms`);
  }
}

series("the corpus", bodies, 1);
const articles = path.join(here, "..", "content", "articles");
const siteBodies = await Promise.all((await readdir(articles, { recursive: true })).filter((f) => f.endsWith(".md")).map(async (f) => (await readFile(path.join(articles, f), "utf8")).replace(/^---\n[\s\S]*?\n---\n/, "")));
series("this blog's articles", siteBodies, 20);
