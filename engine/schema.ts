/**
 * The content model: zod schemas for everything under content/. A schema failure becomes a
 * ContentError pointing at the offending key (see content.ts), so each schema's messages
 * are written for authors.
 */
import { z } from "zod";

const MONTHS_PT = [
  "janeiro", "fevereiro", "março", "abril", "maio", "junho",
  "julho", "agosto", "setembro", "outubro", "novembro", "dezembro",
];

/** A date as the author wrote it, and its ISO form for `<time datetime>`. */
export interface SiteDate {
  text: string;
  iso: string;
}

/** Parses `04/08/2025`, `2025-08-04` or `Agosto 2025`; undefined when none fits. */
export function parseSiteDate(raw: string): SiteDate | undefined {
  const text = raw.trim();
  let m = /^(\d{2})\/(\d{2})\/(\d{4})$/.exec(text);
  if (m) return validDay(Number(m[3]), Number(m[2]), Number(m[1]), text);
  m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  if (m) {
    const [, y, mo, d] = m;
    return validDay(Number(y), Number(mo), Number(d), `${d}/${mo}/${y}`);
  }
  m = /^(\p{L}+)\s+(?:de\s+)?(\d{4})$/iu.exec(text);
  if (m) {
    const month = MONTHS_PT.indexOf(m[1]!.toLowerCase()) + 1;
    if (month > 0) return { text, iso: `${m[2]}-${String(month).padStart(2, "0")}` };
  }
  return undefined;
}

function validDay(y: number, mo: number, d: number, text: string): SiteDate | undefined {
  const date = new Date(Date.UTC(y, mo - 1, d));
  if (date.getUTCFullYear() !== y || date.getUTCMonth() !== mo - 1 || date.getUTCDate() !== d) {
    return undefined;
  }
  return { text, iso: date.toISOString().slice(0, 10) };
}

const siteDate = z
  .union([z.string(), z.number()])
  .transform((value, ctx) => {
    const parsed = parseSiteDate(String(value));
    if (!parsed) {
      ctx.addIssue({
        code: "custom",
        message: `must be DD/MM/YYYY, YYYY-MM-DD or a month and year ("Agosto 2025"); got '${value}'`,
      });
      return z.NEVER;
    }
    return parsed;
  });

/** Reading time in minutes: `15` or `"15 min"`. */
const readTime = z.union([z.number(), z.string()]).transform((value, ctx) => {
  const minutes = typeof value === "number" ? value : Number(/^\s*(\d+)\s*(min)?\s*$/.exec(value)?.[1]);
  if (!Number.isInteger(minutes) || minutes <= 0) {
    ctx.addIssue({ code: "custom", message: `must be a whole number of minutes, like 8; got '${value}'` });
    return z.NEVER;
  }
  return minutes;
});

/** A URL a reader may follow: http(s) or mailto only. */
export function isSafeUrl(url: string): boolean {
  return /^(https?:\/\/[^\s/]+|mailto:[^\s]+@)/i.test(url);
}
const externalUrl = z.string().refine(isSafeUrl, {
  message: "must be an http(s) or mailto URL",
});
const httpsUrl = z.string().refine((u) => /^https:\/\/[^\s/]+/i.test(u), {
  message: "must be an https:// URL",
});
export const routePath = z
  .string()
  .regex(/^\/([a-z0-9]+(-[a-z0-9]+)*(\/[a-z0-9]+(-[a-z0-9]+)*)*)?$/, {
    message: "must be a path like /artigo-transicao: lowercase letters, digits and hyphens, starting with / and no trailing slash",
  });

const nonEmpty = z.string().trim().min(1, { message: "must not be empty" });

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

/** Front-matter keys with a meaning of their own; any other key is block data. */
export const articleFrontMatterSchema = z.looseObject({
  title: nonEmpty,
  route: routePath.optional(),
  lang: z.enum(["pt", "en"]).optional(),
  category: nonEmpty.optional(),
  date: siteDate.optional(),
  readTime: readTime.optional(),
  lead: nonEmpty.optional(),
  description: nonEmpty.optional(),
  badge: nonEmpty.optional(),
  authorLine: nonEmpty.optional(),
  series: nonEmpty.optional(),
  template: z.enum(["article"]).optional(),
  draft: z.boolean().optional(),
  share: shareSettingsSchema.optional(),
});
export type ArticleFrontMatter = z.infer<typeof articleFrontMatterSchema>;
export const ARTICLE_KEYS = Object.keys(articleFrontMatterSchema.shape);

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

/** Blocks that wrap Markdown written inside them (`:::quote` … `:::`). */
export const containerBlocks = ["quote", "summary", "note"] as const;
export type ContainerBlockName = (typeof containerBlocks)[number];
/** Blocks whose data comes from elsewhere in content/ rather than front matter. */
export const siteBlocks = ["editions-carousel"] as const;
