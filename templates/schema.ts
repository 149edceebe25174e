/**
 * The blog's content model beyond the engine's: its site settings, front-matter keys, the
 * cards and editions collections and the data of its blocks. Messages are written for
 * authors: a failure points at the offending key.
 */
import { z } from "zod";
import type { FrontMatterOf } from "../engine/index.js";
import { externalUrl, httpsUrl, nonEmpty, readTime, routePathIn } from "../engine/index.js";
import { placeholders } from "../client/format.js";

/** A route of this (Portuguese) site: its error's example is one of its own. */
const routePath = routePathIn("pt");

export const shareSettingsSchema = z.strictObject({
  /** Also pass the article's lead as `text` to the native share sheet. */
  text: z.boolean().optional(),
  /** Description of the "Link copiado!" toast. */
  copiedMessage: nonEmpty.optional(),
  /** How a copied link is announced: a toast, or the browser's alert(). */
  fallback: z.enum(["toast", "alert"]).optional(),
  /** What a native-share failure (other than the reader cancelling) does. */
  onShareError: z.enum(["copy", "log"]).optional(),
  /** Label of the button while the share sheet is open; the button is disabled meanwhile. */
  busyLabel: nonEmpty.optional(),
  /** A destructive toast shown when copying the link fails. */
  copyError: z.strictObject({ title: nonEmpty, description: nonEmpty }).optional(),
});
export type ShareSettings = z.infer<typeof shareSettingsSchema>;

/**
 * This blog's front-matter keys, besides the engine's own (title, route, lang, date,
 * description, category, template, draft).
 */
export const frontMatter = {
  readTime: readTime.optional(),
  lead: nonEmpty.optional(),
  badge: nonEmpty.optional(),
  authorLine: nonEmpty.optional(),
  series: nonEmpty.optional(),
  share: shareSettingsSchema.optional(),
};
/** What this blog's articles hold in their front matter besides the engine's keys. */
export type CafeMeta = FrontMatterOf<typeof frontMatter>;
export type Language = "pt" | "en";

const bilingual = z.strictObject({ pt: nonEmpty, en: nonEmpty });

/**
 * A label whose `{placeholders}` the page fills in: `allowed` may appear, `required` must.
 * A misspelt placeholder would be printed as it is, so it is an error at its line.
 */
function label(allowed: string[] = [], required: string[] = []) {
  const list = (names: string[]) => names.map((n) => `{${n}}`).join(", ");
  return nonEmpty.superRefine((value, ctx) => {
    const used = placeholders(value);
    for (const name of required.filter((n) => !used.includes(n))) {
      ctx.addIssue({ code: "custom", message: `must contain {${name}}, where the page puts the number` });
    }
    for (const name of used.filter((n) => !allowed.includes(n))) {
      ctx.addIssue({
        code: "custom",
        message: `uses {${name}}, which is not filled in here; ${allowed.length > 0 ? `this label can use ${list(allowed)}` : "this label takes no placeholder"}`,
      });
    }
  });
}

/** The labels of one language (content/site.yaml `labels.pt`, `labels.en`). */
const labelsSchema = z.strictObject({
  /** An article's reading time in its header, and an edition's in the carousel. */
  readTime: label(["minutes"], ["minutes"]),
  /** A card's reading time on the home page. */
  cardReadTime: label(["minutes"], ["minutes"]),
  /** The list of the other articles of a series. */
  series: label(),
  /** The editions carousel (`::editions-carousel`). */
  editions: z.strictObject({
    title: label(),
    roleDescription: label(),
    previous: label(),
    next: label(),
    slideRoleDescription: label(),
    slide: label(["n", "count"]),
    current: label(),
    open: label(),
    goTo: label(["n", "count", "title"]),
    moved: label(["n", "count", "title"]),
  }),
});
export type Labels = z.infer<typeof labelsSchema>;

export const siteSchema = z.strictObject({
  name: nonEmpty.describe("The blog's name: the pages' titles, the feed, the social cards."),
  siteUrl: httpsUrl.describe("The public address of the blog (https://…): canonical URLs, the feed, the sitemap and the social cards' addresses."),
  author: nonEmpty.describe("The author's name (feed, JSON-LD)."),
  brand: z
    .strictObject({
      name: nonEmpty.describe("The brand's name, in the header (the \"Cris\" of Café com a Cris)."),
      url: externalUrl.describe("The brand's website, opened in a new tab from the header."),
      label: nonEmpty.describe("What a screen reader says for the brand's link."),
    })
    .describe("The brand in the header."),
  privacyUrl: externalUrl.describe("The privacy and cookies page (both footer links)."),
  header: z.strictObject({
    title: bilingual,
    subtitle: bilingual,
    languageLabel: nonEmpty,
    languages: bilingual,
  }),
  skipLink: nonEmpty.describe("The \"skip to content\" link's text."),
  home: z.strictObject({
    featured: routePath.describe("The route of the article featured at the top of the home page, like /artigo-transicao."),
    title: nonEmpty,
    subtitle: nonEmpty,
    description: nonEmpty,
  }),
  article: z.strictObject({
    back: nonEmpty,
    blogLabel: nonEmpty,
  }),
  /** What the pages print around the content, per language: English content shows the English labels. */
  labels: z.strictObject({ pt: labelsSchema, en: labelsSchema }).describe("What the pages print around the content, per language: English content shows the English labels."),
  share: z.strictObject({
    label: nonEmpty,
    copiedTitle: nonEmpty,
    copiedMessage: nonEmpty,
    alertMessage: nonEmpty,
  }),
  newsletter: z.strictObject({
    title: nonEmpty,
    text: nonEmpty,
    label: nonEmpty,
    placeholder: nonEmpty,
    button: nonEmpty,
    busyLabel: nonEmpty,
    note: nonEmpty,
    required: nonEmpty,
    invalid: nonEmpty,
    success: z.strictObject({ title: nonEmpty, description: nonEmpty }),
    failure: z.strictObject({ title: nonEmpty, description: nonEmpty }),
    endpoint: externalUrl.optional().describe("A URL that receives POST {\"email\": …} as JSON; without it the form only simulates the signup."),
    delayMs: z.number().int().min(0).max(10000).describe("How long the simulated signup takes, in milliseconds."),
  }),
  footer: z.strictObject({
    copyright: nonEmpty,
    privacy: nonEmpty,
    cookies: nonEmpty,
  }),
  notFound: z.strictObject({
    /** The language its texts are written in (BCP 47): SPEC gives them in English. */
    lang: z
      .string()
      .regex(/^[a-z]{2}(-[A-Z]{2})?$/, { message: "must be a language code such as en or pt-BR" })
      .describe("The language the 404 page's texts are written in: en, pt-BR…"),
    title: nonEmpty,
    heading: nonEmpty,
    text: nonEmpty,
    back: nonEmpty,
  }),
  toast: z.strictObject({ close: nonEmpty }),
  /** The sentence before the link on the page left at an old address (for GitHub Pages, which cannot redirect). */
  moved: nonEmpty.optional(),
  /** `false` builds no social cards (og:image): faster builds, links shared without a picture. */
  socialCards: z.boolean().optional().describe("false builds no social cards (og:image): faster builds, links shared without a picture."),
});
export type SiteSettings = z.infer<typeof siteSchema>;

/*
 * Cards and editions open an article. What the article itself says (title, category, date,
 * reading time) an entry may leave out: page-context.ts takes it from the article at the
 * entry's route. Write a value only where the card should say something else.
 */
export const cardSchema = z.strictObject({
  route: routePath.describe("The route of the article the card opens, like /artigo-transicao."),
  icon: z
    .string()
    .regex(/^[a-z0-9]+(-[a-z0-9]+)*$/, { message: "must be a lucide icon name in kebab-case, like 'heart-pulse'" })
    .describe("A lucide icon name in kebab-case, like heart-pulse (lucide.dev/icons)."),
  category: nonEmpty.optional().describe("The card's category badge; the article's category unless written here."),
  title: nonEmpty.optional().describe("The card's title; the article's title unless written here."),
  excerpt: nonEmpty.describe("One or two sentences inviting to read (the card shows up to 3 lines)."),
  date: nonEmpty.optional().describe("The date shown; the article's date (as it writes it) unless written here."),
  readTime: readTime.optional().describe("Minutes of reading, like 8; the article's readTime unless written here."),
  gradient: z.tuple([z.string(), z.string()]).describe("The card's background: two CSS colours, like [\"#fffbeb\", \"#fff7ed\"]."),
  borderColor: z.string().describe("The card's border colour (CSS), like \"#fcd34d\"."),
  iconColor: z.string().describe("The icon's colour (CSS), like \"#b45309\"."),
  /** The card in English; title and category default to the English version of the article. */
  en: z
    .strictObject({
      category: nonEmpty.optional().describe("The category in English; the English article's unless written here."),
      title: nonEmpty.optional().describe("The title in English; the English article's unless written here."),
      excerpt: nonEmpty.describe("The excerpt in English."),
    })
    .optional()
    .describe("The card in English; title and category default to the English version of the article."),
});
export const cardsSchema = z.array(cardSchema);
/** A card as written in cards.yaml. */
export type CardEntry = z.infer<typeof cardSchema>;
/** A card with every value: written, or taken from its article. */
export type Card = Omit<CardEntry, "category" | "title" | "date" | "readTime" | "en"> & {
  category: string;
  title: string;
  date: string;
  readTime: number;
  en?: { category: string; title: string; excerpt: string };
};

export const editionSchema = z.strictObject({
  id: z
    .string()
    .regex(/^[a-z0-9]+(-[a-z0-9]+)*$/, { message: "must be a slug like 'outubro-27-2025'" })
    .describe("A slug naming the edition, like outubro-27-2025."),
  title: nonEmpty.optional().describe("The edition's title; the article's title unless written here."),
  date: nonEmpty.optional().describe("The date shown; the article's date unless written here."),
  description: nonEmpty.describe("What the edition is about, in a sentence or two."),
  featured: z.boolean().default(false).describe("true for the one edition shown first (at most one)."),
  route: routePath.describe("The route of the article the edition opens, like /material-semana."),
  readTime: readTime.optional().describe("Minutes of reading, like 8; the article's readTime unless written here."),
});
export const editionsSchema = z
  .array(editionSchema)
  .min(1, { message: "must list at least one edition" })
  .refine((list) => list.filter((e) => e.featured).length <= 1, {
    message: "at most one edition can be `featured: true`",
  });
/** An edition as written in editions.yaml. */
export type EditionEntry = z.infer<typeof editionSchema>;
/** The values of this blog's YAML collections, as their schemas give them. */
export type CafeCollections = { cards: CardEntry[]; editions: EditionEntry[] };

/** An edition with every value: written, or taken from the article it opens. */
export type Edition = Omit<EditionEntry, "title" | "date" | "readTime"> & { title: string; date: string; readTime: number };

// ---- Block data ---------------------------------------------------------------------------

const rating = nonEmpty;
export const toolRowSchema = z.strictObject({
  name: nonEmpty,
  captura: rating,
  pesquisa: rating,
  ligacao: rating,
  colaboracao: rating,
  offline: rating,
  ia: rating,
  notas: nonEmpty,
  link: httpsUrl,
  isWinner: z.boolean().optional(),
});
export type ToolRow = z.infer<typeof toolRowSchema>;

const score = z.number().min(0).max(10);
export const scoredRowSchema = z
  .strictObject({
    id: z.number().int(),
    tool: nonEmpty,
    priceIAScore: score,
    onlineScore: score,
    versatilityScore: score,
    totalScore: z.number().min(0).max(30),
    link: httpsUrl,
    highlighted: z.boolean().default(false),
  })
  .refine((r) => Math.abs(r.priceIAScore + r.onlineScore + r.versatilityScore - r.totalScore) < 0.01, {
    message: "totalScore must equal priceIAScore + onlineScore + versatilityScore",
    path: ["totalScore"],
  });
export type ScoredRow = z.infer<typeof scoredRowSchema>;

export const blockSchemas = {
  "stat-cards": z.array(z.strictObject({ value: nonEmpty, label: nonEmpty, source: nonEmpty.optional() })).min(1),
  pillars: z.array(z.strictObject({ title: nonEmpty, emoji: nonEmpty, description: nonEmpty, detail: nonEmpty })).min(1),
  plan: z.array(z.strictObject({ week: z.union([z.number().int().min(1), nonEmpty]), title: nonEmpty, tasks: z.array(nonEmpty).min(1) })).min(1),
  roadmap: z
    .array(
      z.strictObject({
        phase: nonEmpty,
        title: nonEmpty,
        steps: z.array(z.strictObject({ title: nonEmpty, description: nonEmpty })).min(1),
      }),
    )
    .min(1),
  references: z
    .array(
      z.strictObject({
        title: nonEmpty,
        publisher: nonEmpty.optional(),
        year: z.union([z.number().int(), nonEmpty]).optional(),
        url: externalUrl.optional(),
      }),
    )
    .min(1),
  hashtags: z.array(z.string().regex(/^#[\p{L}\p{N}_]+$/u, { message: "must be a hashtag like #Carreira (no spaces)" })).min(1),
  "before-after": z.strictObject({ before: z.array(nonEmpty).min(1), after: z.array(nonEmpty).min(1) }),
  "tool-table": z.array(toolRowSchema).min(1),
  "winner-cards": z
    .array(
      z.strictObject({
        title: nonEmpty,
        tool: nonEmpty,
        description: nonEmpty,
        color: z.enum(["green", "blue", "purple", "orange", "teal", "rose"]),
      }),
    )
    .min(1),
  "score-table": z.array(scoredRowSchema).min(1),
} as const;
export type LeafBlockName = keyof typeof blockSchemas;
export type BlockData<N extends LeafBlockName> = z.output<(typeof blockSchemas)[N]>;
