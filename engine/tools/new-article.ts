/** `cafe new "Title"`: a new article, as a draft, ready to write, in the words the theme gives it. */
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { ContentError } from "../lib/errors.js";
import { slugify } from "../lib/slug.js";

export { slugify };

const pad = (n: number) => String(n).padStart(2, "0");

/** A new article's text when the theme writes none: the engine's keys, a draft. */
export function defaultArticle({ title, date }: { title: string; date: string }): string {
  return `---
title: ${JSON.stringify(title)}
date: ${date}
draft: true # published once this line is deleted
---

Start writing here. With \`cafe dev\` running, each save reloads the page.
`;
}

/**
 * `today` as the site's authors write a date: day first (`25/11/2026`) on a Portuguese
 * site, the ISO form (`2026-11-25`, which no reader takes for another day) on any other.
 */
export function writtenDate(today: Date, language: string | undefined): string {
  const [y, m, d] = [today.getFullYear(), pad(today.getMonth() + 1), pad(today.getDate())];
  return (language ?? "en").toLowerCase().split("-")[0] === "pt" ? `${d}/${m}/${y}` : `${y}-${m}-${d}`;
}

/**
 * Writes <content>/articles/<slug>.md (the theme's text for a new article, dated `today`
 * as the site's `language` writes a date) and returns its path; never overwrites a file.
 */
export async function scaffoldArticle(
  contentDir: string,
  title: string,
  today = new Date(),
  template: (article: { title: string; date: string }) => string = defaultArticle,
  language = "en",
): Promise<string> {
  const slug = slugify(title);
  if (!slug) {
    throw new ContentError({
      file: "cafe new",
      message: "the title needs at least one letter or digit",
      hint: 'write it in quotes: cafe new "How to ask for a raise" (npm run new -- "…" in a project whose scripts run cafe)',
    });
  }
  const file = path.join(contentDir, "articles", `${slug}.md`);
  const date = writtenDate(today, language);
  const text = template({ title: title.trim(), date });
  await mkdir(path.dirname(file), { recursive: true });
  try {
    await writeFile(file, text, { flag: "wx" });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") {
      throw new ContentError({
        file: path.relative(process.cwd(), file) || file,
        message: "an article with this slug already exists",
        hint: "open it to keep writing, or choose another title",
      });
    }
    throw error;
  }
  return file;
}
