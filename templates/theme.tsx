/**
 * The theme of "Café com a Cris": everything the engine needs to know about this blog that
 * another site would do differently. `cafe.config.ts` hands it to the engine.
 */
import { defineTheme, errorAt, formatKey, routeErrors, type ContentError, type LocatableSource } from "../engine/index.js";
import { cardsSchema, editionsSchema, frontMatter, siteSchema } from "./schema.js";
import { blocks } from "./blocks/registry.js";
import { markdownComponents } from "./markdown-components.js";
import { bodyLabelsFor } from "./texts.js";
import { cardEntriesOf, listings, resolveCards, resolveEditions, type MissingValue } from "./page-context.js";
import { loadIcons } from "./icons.js";
import { ArticlePage } from "./pages/article-page.js";
import { HomePage } from "./pages/home-page.js";
import { NotFoundPage } from "./pages/not-found-page.js";
import { socialCard } from "./social-card.js";
import { IMAGE_SIZES } from "./image-sizes.js";
import { islands } from "./islands.js";

export const theme = defineTheme({
  name: "cafe-com-a-cris",
  version: "1",
  languages: ["pt", "en"],
  site: siteSchema,
  siteMeta: (site) => ({
    name: site.name,
    url: site.siteUrl,
    description: site.home.description,
    language: "pt-BR",
    author: site.author,
    copyright: site.footer.copyright,
    favicon: "/favicon.svg",
    connect: site.newsletter.endpoint ? [site.newsletter.endpoint] : [],
    moved: site.moved,
  }),
  frontMatter,
  collections: {
    cards: { file: "cards.yaml", schema: cardsSchema },
    editions: { file: "editions.yaml", schema: editionsSchema },
  },
  pages: (content) => {
    const { site } = content;
    return [{ path: "/", template: "home", features: { route: site.value.home.featured, declaredIn: site, key: ["home", "featured"] } }];
  },
  templates: {
    article: (ctx) => <ArticlePage ctx={ctx} />,
    home: (ctx) => <HomePage ctx={ctx} />,
    "not-found": (ctx) => <NotFoundPage ctx={ctx} />,
  },
  blocks,
  // The home page reads the cards through ctx.listing: it is rendered again when a card's
  // value changes (its own line, or its article's title, date…), not on any article edit.
  listings,
  markdownComponents,
  summary: (article) => article.meta.lead ?? article.meta.description,
  // `npm run new -- "Título"`: a Portuguese draft with the keys an author of this blog fills in.
  newArticle: ({ title, date }) => `---
title: ${JSON.stringify(title)}
date: ${date}
readTime: 5
draft: true # publicado só quando você apagar esta linha
# category: Carreira
# lead: Uma ou duas frases que resumem o artigo e aparecem abaixo do título.
---

## ${title}

Comece a escrever aqui. Salve com \`npm run dev\` aberto e a página recarrega sozinha.
`,
  // The home page's cards show lucide icons, each its own module: loaded on every thread that renders.
  prepare: async (content) => void (await loadIcons(cardEntriesOf(content).map((c) => c.icon))),
  async check(content, routes, found) {
    const { cards, editions } = content.collections;
    const errors: ContentError[] = [
      ...routeErrors(cards, content, routes, found),
      ...routeErrors(editions, content, routes, found),
      // A route that does not exist is reported above; a draft's entry is left out.
      ...resolveCards(content).missing.filter((m) => routes.byPath.has(m.route)).map((m) => missingValueError(cards, m)),
      ...resolveEditions(content).missing.filter((m) => routes.byPath.has(m.route)).map((m) => missingValueError(editions, m)),
    ];
    const entries = cardEntriesOf(content);
    const missing = new Set(await loadIcons(entries.map((c) => c.icon)));
    entries.forEach((card, i) => {
      if (missing.has(card.icon)) {
        errors.push(
          errorAt(cards, [i, "icon"], {
            message: `unknown icon '${card.icon}'`,
            hint: "use a lucide icon name in kebab-case, such as 'heart-pulse' or 'trending-up' (see lucide.dev/icons)",
          }),
        );
      }
    });
    return errors;
  },
  markdownLabels: (lang) => {
    const { label, back } = bodyLabelsFor(lang).footnotes;
    return { footnoteLabel: label, footnoteBackLabel: back };
  },
  images: { sizes: IMAGE_SIZES },
  // The module of each part: a template's edit renders again only the pages of the templates
  // whose modules reach it, a block's only the bodies that place it (engine/README.md).
  modules: {
    templates: { article: "templates/pages/article-page.tsx", home: "templates/pages/home-page.tsx", "not-found": "templates/pages/not-found-page.tsx" },
    blocks: {
      ...Object.fromEntries(["stat-cards", "pillars", "plan", "roadmap", "references", "hashtags", "before-after", "winner-cards"].map((name) => [name, "templates/blocks/data-blocks.tsx"])),
      "tool-table": "templates/blocks/tables.tsx",
      "score-table": "templates/blocks/tables.tsx",
    },
    markdown: ["templates/markdown-components.tsx"],
  },
  socialCard,
  assets: {
    entries: { main: "client/main.ts", styles: "templates/styles.css" },
    inline: "client/boot.ts",
    islands,
    fonts: [
      {
        name: "brand-script",
        source: "@fontsource/dancing-script/files/dancing-script-latin-700-normal.woff",
        // The brand name and the author's initial are all the script face shows.
        text: (site) => [...new Set(`${site.brand.name}${site.author.slice(0, 1)}`)].join(""),
      },
    ],
  },
});

/** A card or edition value that is neither written nor in the article the entry opens. */
function missingValueError(file: LocatableSource, m: MissingValue): ContentError {
  const field = String(m.key.at(-1));
  const where = m.lang === "en" ? "under `en:` " : "";
  const key = formatKey(m.key);
  if (m.article) {
    return errorAt(file, m.key.slice(0, -1), {
      key,
      message: `\`${key}\` is not written, and ${m.article.file} has no \`${field}\` to take it from`,
      hint: `write \`${field}:\` ${where}in this entry, or give the article a \`${field}:\` in its front matter`,
    });
  }
  return errorAt(file, m.key.slice(0, -1), {
    key,
    message:
      m.lang === "en"
        ? `\`${key}\` is not written, and ${m.route} has no English version to take it from`
        : `\`${key}\` is not written, and ${m.route} is not an article to take it from`,
    hint: `write \`${field}:\` ${where}in this entry`,
  });
}
