/**
 * The engine's content model: the front-matter keys every article may have, and the field
 * types themes build their own schemas from (dates, reading times, URLs, routes). A schema
 * failure becomes a ContentError pointing at the offending key (see content.ts), so each
 * message is written for authors.
 */
import { z } from "zod";
import { wordsFor } from "../../lib/language.js";

/** Month names a month-and-year date may use, in Portuguese and English. */
const MONTHS = [
  ["janeiro", "fevereiro", "março", "abril", "maio", "junho", "julho", "agosto", "setembro", "outubro", "novembro", "dezembro"],
  ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december"],
];

/**
 * A date as a reader of the site's language writes it (`text`: what a template shows by
 * default), and its ISO form for `<time datetime>`.
 */
export interface SiteDate {
  text: string;
  iso: string;
}

/**
 * Parses `04/08/2025`, `2025-08-04` or `Agosto 2025`; undefined when none fits. Its `text`
 * is written for a reader of `language` when the engine knows how (`en`: `Aug 4, 2025`,
 * `August 2025`); otherwise as written, an ISO date day first (`04/08/2025`).
 */
export function parseSiteDate(raw: string, language?: string): SiteDate | undefined {
  const parsed = parseWritten(raw);
  if (!parsed || language === undefined || !DATE_FORMATS[language.toLowerCase().split("-")[0]!]) return parsed;
  return { text: formatDate(parsed, language.toLowerCase().split("-")[0]!), iso: parsed.iso };
}

function parseWritten(raw: string): SiteDate | undefined {
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
    const name = m[1]!.toLowerCase();
    const month = Math.max(...MONTHS.map((names) => names.indexOf(name))) + 1;
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

/**
 * A date as a reader of `lang` writes it. The site's dates are written the Brazilian way
 * (`04/08/2025`, `Agosto 2025`): in Portuguese, and in any language without a format
 * here, they read as written; in English, `Aug 4, 2025` (a month alone: `August 2025`), by
 * the platform's ICU data (Node ships it whole). A string that is not a date is returned as
 * it is (a card may write "Em breve").
 */
export function formatDate(date: SiteDate | string, lang: string): string {
  const parsed = typeof date === "string" ? parseWritten(date) : date;
  if (!parsed) return String(date);
  const format = DATE_FORMATS[lang];
  if (!format) return parsed.text;
  const [y, m, d] = parsed.iso.split("-").map(Number) as [number, number, number | undefined];
  return (d === undefined ? format.month() : format.day()).format(new Date(Date.UTC(y, m - 1, d ?? 1)));
}

/** A formatter made on its first use, then used for every date (making one costs as much as many dates: 4,000 pages each made two). */
function formatter(locale: string, options: Intl.DateTimeFormatOptions): () => Intl.DateTimeFormat {
  let made: Intl.DateTimeFormat | undefined;
  return () => (made ??= new Intl.DateTimeFormat(locale, { ...options, timeZone: "UTC" }));
}

/** Languages whose readers write dates otherwise than the site does: a day, a month alone. */
const DATE_FORMATS: Record<string, { day: () => Intl.DateTimeFormat; month: () => Intl.DateTimeFormat }> = {
  en: { day: formatter("en-US", { month: "short", day: "numeric", year: "numeric" }), month: formatter("en-US", { month: "long", year: "numeric" }) },
};

/**
 * A date field of a site written in `language` (its theme's first language): its `text` is
 * the date as that language's readers write it (`parseSiteDate`), and its error's example
 * is in that language.
 */
export const siteDateIn = (language: string) => dateField(language);

/**
 * A date field whose `text` is as written (an ISO date day first) and whose examples are
 * English: `siteDateIn(language)` writes it for the site's readers.
 */
export const siteDate = dateField(undefined);

function dateField(language: string | undefined) {
  return z.union([z.string(), z.number()]).transform((value, ctx) => {
    const parsed = parseSiteDate(String(value), language);
    if (!parsed) {
      ctx.addIssue({
        code: "custom",
        message: `must be DD/MM/YYYY, YYYY-MM-DD or a month and year ("${wordsFor(language).monthYear}"); got '${value}'`,
      });
      return z.NEVER;
    }
    return parsed;
  });
}

/** Reading time in minutes: `15` or `"15 min"`. */
export const readTime = z.union([z.number(), z.string()]).transform((value, ctx) => {
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
export const externalUrl = z.string().refine(isSafeUrl, {
  message: "must be an http(s) or mailto URL",
});
export const httpsUrl = z.string().refine((u) => /^https:\/\/[^\s/]+/i.test(u), {
  message: "must be an https:// URL",
});
/** A route of the site, its error's example in `language` (`/career-change`, `/artigo-transicao`). */
export function routePathIn(language: string) {
  return z.string().regex(/^\/([a-z0-9]+(-[a-z0-9]+)*(\/[a-z0-9]+(-[a-z0-9]+)*)*)?$/, {
    message: `must be a path like ${wordsFor(language).route}: lowercase letters, digits and hyphens, starting with / and no trailing slash`,
  });
}
/** A route of the site, its error's example English (`routePathIn(language)` for another). */
export const routePath = routePathIn("en");

export const nonEmpty = z.string().trim().min(1, { message: "must not be empty" });

/**
 * Front-matter keys with a meaning to the engine, for a site written in `language` (dates
 * and examples follow it). A theme adds its own (`Theme.frontMatter`); any other key is data
 * for a block placed in the body.
 */
export const baseFrontMatterIn = (language: string) => {
  const routePath = routePathIn(language);
  return {
    title: nonEmpty,
    route: routePath.optional(),
    lang: z.string().regex(/^[a-z]{2}$/, { message: "must be a two-letter language code such as pt or en" }).optional(),
    date: siteDateIn(language).optional(),
    description: nonEmpty.optional(),
    category: nonEmpty.optional(),
    template: nonEmpty.optional(),
    draft: z.boolean().optional(),
    /**
     * Earlier addresses of the article (`[/old-route, ...]`): each answers with a permanent
     * redirect to the article's route (aliases.ts). One route alone may be written without brackets.
     */
    aliases: z
      .union([routePath, z.array(routePath)])
      .transform((value) => (typeof value === "string" ? [value] : value))
      .optional(),
    /** The cover: shown above the body; its file beside the article (`./capa.jpg`) or in content/images. */
    image: z
      .strictObject({
        src: nonEmpty,
        alt: z.string().optional(),
        /** An image that adds nothing to the text: no alt text. */
        decorative: z.boolean().optional(),
      })
      .optional(),
  };
};
/** The engine's front-matter keys of an English site. */
export const baseFrontMatter = baseFrontMatterIn("en");
/** What the engine reads of an article's front matter. */
export type BaseMeta = {
  title: string;
  route?: string;
  lang?: string;
  date?: SiteDate;
  description?: string;
  category?: string;
  template?: string;
  draft?: boolean;
  aliases?: string[];
  image?: { src: string; alt?: string; decorative?: boolean };
};

/**
 * The keys of content/site.yaml that are the engine's, not the theme's: the loader takes them
 * out before the theme's schema reads the rest (so a theme's settings never name them).
 * `redirects`: addresses gone for good, each to the route that answers it now (`/` or a page).
 */
export const engineSiteSettingsIn = (language: string) => {
  const routePath = routePathIn(language);
  return {
    redirects: z
      .preprocess((value, ctx) => {
        // Each key is an old address, checked here, where a key can be named: zod's record would
        // drop a `__proto__` key without a word, and say only "Invalid key in record" of the others.
        if (!value || typeof value !== "object" || Array.isArray(value)) return value;
        const valid: Record<string, unknown> = {};
        for (const [key, to] of Object.entries(value)) {
          const route = routePath.safeParse(key);
          if (route.success) valid[key] = to;
          else ctx.addIssue({ code: "custom", path: [key], input: key, params: { recordKey: true }, message: `has an old address that is not one ('${key}'): it ${route.error?.issues[0]!.message}` });
        }
        return valid;
      }, z.record(routePath, routePath))
      .optional(),
  };
};
/** The engine's keys of site.yaml, for an English site. */
export const engineSiteSettings = engineSiteSettingsIn("en");
export type EngineSiteSettings = { redirects?: Record<string, string> };
