/** `cafe new "Title"`: a new article, as a draft, ready to write, in the words the theme gives it. */
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { ContentError } from "../lib/errors.js";
import { slugify } from "../lib/slug.js";
import { isReservedRoute, MAX_ROUTE_LENGTH } from "../stages/routes/routes.js";

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

/** A slug whose route (`/` and the slug) fits MAX_ROUTE_LENGTH: cut at the last hyphen that fits (a long title keeps its first words). */
function shortened(slug: string): string {
  const room = MAX_ROUTE_LENGTH - 1;
  if (slug.length <= room) return slug;
  const cut = slug.slice(0, room + 1).lastIndexOf("-");
  return (cut > 0 ? slug.slice(0, cut) : slug.slice(0, room)).replace(/-+$/, "");
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
  if (slug === "index" || isReservedRoute(`/${slug}`)) {
    throw new ContentError({
      file: "cafe new",
      message: `the title makes the address /${slug}, which the site keeps for itself (${slug === "index" ? "its home page" : "its 404 page, assets, feed and sitemap"})`,
      hint: "choose another title (a word more will do); the article's title can be changed in its file afterwards",
    });
  }
  const file = path.join(contentDir, "articles", `${shortened(slug)}.md`);
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
