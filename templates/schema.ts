/**
 * The blog's content model beyond the engine's: its site settings, front-matter keys, the
 * cards and editions collections and the data of its blocks. Messages are written for
 * authors: a failure points at the offending key.
 */
import { z } from "zod";
import type { ArticleMeta } from "../engine/content.js";
import { externalUrl, httpsUrl, nonEmpty, readTime, routePath } from "../engine/schema.js";

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
    seriesTitle: nonEmpty,
  }),
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
    title: nonEmpty,
    heading: nonEmpty,
    text: nonEmpty,
    back: nonEmpty,
  }),
  toast: z.strictObject({ close: nonEmpty }),
  /** `false` builds no social cards (og:image): faster builds, links shared without a picture. */
  socialCards: z.boolean().optional(),
});
export type SiteSettings = z.infer<typeof siteSchema>;

export const cardSchema = z.strictObject({
  route: routePath,
  icon: z.string().regex(/^[a-z0-9]+(-[a-z0-9]+)*$/, { message: "must be a lucide icon name in kebab-case, like 'heart-pulse'" }),
  category: nonEmpty,
  title: nonEmpty,
  excerpt: nonEmpty,
  date: nonEmpty,
  readTime,
  gradient: z.tuple([z.string(), z.string()]),
  borderColor: z.string(),
  iconColor: z.string(),
  en: z.strictObject({ category: nonEmpty, title: nonEmpty, excerpt: nonEmpty }).optional(),
});
export const cardsSchema = z.array(cardSchema);
export type Card = z.infer<typeof cardSchema>;

export const editionSchema = z.strictObject({
  id: z.string().regex(/^[a-z0-9]+(-[a-z0-9]+)*$/, { message: "must be a slug like 'outubro-27-2025'" }),
  title: nonEmpty,
  date: nonEmpty,
  description: nonEmpty,
  featured: z.boolean().default(false),
  route: routePath,
  readTime,
});
export const editionsSchema = z
  .array(editionSchema)
  .min(1, { message: "must list at least one edition" })
  .refine((list) => list.filter((e) => e.featured).length <= 1, {
    message: "at most one edition can be `featured: true`",
  });
export type Edition = z.infer<typeof editionSchema>;

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
