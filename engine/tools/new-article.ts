/** `npm run new -- "Título"`: a new article, as a draft, ready to write. */
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { ContentError } from "../lib/errors.js";
import { slugify } from "../lib/slug.js";

export { slugify };

const pad = (n: number) => String(n).padStart(2, "0");

/** Writes content/articles/<slug>.md and returns its path; never overwrites a file. */
export async function scaffoldArticle(contentDir: string, title: string, today = new Date()): Promise<string> {
  const slug = slugify(title);
  if (!slug) {
    throw new ContentError({
      file: "npm run new",
      message: "the title needs at least one letter or digit",
      hint: 'write it in quotes: npm run new -- "Como negociar um aumento"',
    });
  }
  const file = path.join(contentDir, "articles", `${slug}.md`);
  const date = `${pad(today.getDate())}/${pad(today.getMonth() + 1)}/${today.getFullYear()}`;
  const text = `---
title: ${JSON.stringify(title.trim())}
date: ${date}
readTime: 5
draft: true # publicado só quando você apagar esta linha
# category: Carreira
# lead: Uma ou duas frases que resumem o artigo e aparecem abaixo do título.
---

## ${title.trim()}

Comece a escrever aqui. Salve com \`npm run dev\` aberto e a página recarrega sozinha.
`;
  await mkdir(path.dirname(file), { recursive: true });
  try {
    await writeFile(file, text, { flag: "wx" });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") {
      throw new ContentError({
        file: path.relative(process.cwd(), file),
        message: "an article with this slug already exists",
        hint: "open it to keep writing, or choose another title",
      });
    }
    throw error;
  }
  return file;
}
