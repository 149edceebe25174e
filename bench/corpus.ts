/**
 * The corpus of the public "which generator builds Markdown the fastest" benchmark: N
 * Markdown files, each with front matter holding only a five-word title, then three lorem
 * paragraphs (about 1 KB). Lorem is right here: this is benchmark input, not site content.
 *
 *   tsx bench/corpus.ts N OUT_DIR
 */
import { mkdir, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";

const WORDS =
  "lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor incididunt ut labore et dolore magna aliqua enim ad minim veniam quis nostrud exercitation ullamco laboris nisi aliquip ex ea commodo consequat duis aute irure in reprehenderit voluptate velit esse cillum fugiat nulla pariatur excepteur sint occaecat cupidatat non proident sunt culpa qui officia deserunt mollit anim id est laborum".split(
    " ",
  );

/** A small deterministic generator, so every run and every tool gets the same files. */
function random(seed: number) {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

function sentence(next: () => number, words: number): string {
  const list = Array.from({ length: words }, () => WORDS[Math.floor(next() * WORDS.length)]!);
  const text = list.join(" ");
  return `${text[0]!.toUpperCase()}${text.slice(1)}.`;
}

function paragraph(next: () => number): string {
  return Array.from({ length: 4 }, () => sentence(next, 8 + Math.floor(next() * 8))).join(" ");
}

/** The text of file `i`: a five-word title and three paragraphs. */
export function corpusFile(i: number): string {
  const next = random(i + 1);
  const title = sentence(next, 5).slice(0, -1);
  return `---\ntitle: "${title}"\n---\n\n${paragraph(next)}\n\n${paragraph(next)}\n\n${paragraph(next)}\n`;
}

/** Writes `count` files named 0.md … into `dir` (emptied first). */
export async function writeCorpus(count: number, dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  const batch = 500;
  for (let start = 0; start < count; start += batch) {
    await Promise.all(
      Array.from({ length: Math.min(batch, count - start) }, (_, k) => writeFile(path.join(dir, `${start + k}.md`), corpusFile(start + k))),
    );
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const [count, dir] = [Number(process.argv[2]), process.argv[3]];
  if (!Number.isInteger(count) || !dir) {
    console.error("usage: tsx bench/corpus.ts N OUT_DIR");
    process.exit(2);
  }
  await writeCorpus(count, dir);
  console.log(`${count} files in ${dir}`);
}
