/**
 * The blog's content model beyond the engine's: its site settings, front-matter keys, the
 * cards and editions collections and the data of its blocks. Messages are written for
 * authors: a failure points at the offending key.
 */
import { z } from "zod";
import type { ArticleMeta } from "../engine/content.js";
import { externalUrl, httpsUrl, nonEmpty, readTime, routePath } from "../engine/schema.js";
import { placeholders } from "../client/format.js";

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
/** An article's front matter as this theme reads it. */
export type CafeMeta = ArticleMeta & {
  lang?: Language;
  readTime?: number;
  lead?: string;
  badge?: string;
  authorLine?: string;
  series?: string;
  share?: ShareSettings;
};
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
  name: nonEmpty,
  siteUrl: httpsUrl,
  author: nonEmpty,
  brand: z.strictObject({ name: nonEmpty, url: externalUrl, label: nonEmpty }),
  privacyUrl: externalUrl,
  header: z.strictObject({
    title: bilingual,
    subtitle: bilingual,
    languageLabel: nonEmpty,
    languages: bilingual,
  }),
  skipLink: nonEmpty,
  home: z.strictObject({
    featured: routePath,
    title: nonEmpty,
    subtitle: nonEmpty,
    description: nonEmpty,
  }),
  article: z.strictObject({
    back: nonEmpty,
    blogLabel: nonEmpty,
  }),
  /** What the pages print around the content, per language: English content shows the English labels. */
  labels: z.strictObject({ pt: labelsSchema, en: labelsSchema }),
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
    endpoint: externalUrl.optional(),
    delayMs: z.number().int().min(0).max(10000),
  }),
  footer: z.strictObject({
    copyright: nonEmpty,
    privacy: nonEmpty,
    cookies: nonEmpty,
  }),
  notFound: z.strictObject({
    /** The language its texts are written in (BCP 47): SPEC gives them in English. */
    lang: z.string().regex(/^[a-z]{2}(-[A-Z]{2})?$/, { message: "must be a language code such as en or pt-BR" }),
    title: nonEmpty,
    heading: nonEmpty,
    text: nonEmpty,
    back: nonEmpty,
  }),
  toast: z.strictObject({ close: nonEmpty }),
  /** The sentence before the link on the page left at an old address (for GitHub Pages, which cannot redirect). */
  moved: nonEmpty.optional(),
  /** `false` builds no social cards (og:image): faster builds, links shared without a picture. */
  socialCards: z.boolean().optional(),
});
export type SiteSettings = z.infer<typeof siteSchema>;

/*
 * Cards and editions open an article. What the article itself says (title, category, date,
 * reading time) an entry may leave out: page-context.ts takes it from the article at the
 * entry's route. Write a value only where the card should say something else.
 */
export const cardSchema = z.strictObject({
  route: routePath,
  icon: z.string().regex(/^[a-z0-9]+(-[a-z0-9]+)*$/, { message: "must be a lucide icon name in kebab-case, like 'heart-pulse'" }),
  category: nonEmpty.optional(),
  title: nonEmpty.optional(),
  excerpt: nonEmpty,
  date: nonEmpty.optional(),
  readTime: readTime.optional(),
  gradient: z.tuple([z.string(), z.string()]),
  borderColor: z.string(),
  iconColor: z.string(),
  /** The card in English; title and category default to the English version of the article. */
  en: z.strictObject({ category: nonEmpty.optional(), title: nonEmpty.optional(), excerpt: nonEmpty }).optional(),
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
  id: z.string().regex(/^[a-z0-9]+(-[a-z0-9]+)*$/, { message: "must be a slug like 'outubro-27-2025'" }),
  title: nonEmpty.optional(),
  date: nonEmpty.optional(),
  description: nonEmpty,
  featured: z.boolean().default(false),
  route: routePath,
  readTime: readTime.optional(),
});
export const editionsSchema = z
  .array(editionSchema)
  .min(1, { message: "must list at least one edition" })
  .refine((list) => list.filter((e) => e.featured).length <= 1, {
    message: "at most one edition can be `featured: true`",
  });
/** An edition as written in editions.yaml. */
export type EditionEntry = z.infer<typeof editionSchema>;
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
