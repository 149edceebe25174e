/**
 * What a link to a page shows when it is shared, and where each app cuts it: read from the
 * page's own meta tags (og:*, twitter:*, <title>, description), as a crawler reads them.
 * The build keeps each page's share text with its record and prints one line per page whose
 * title or description an app will cut (`shareMessage`); the dev server's share preview
 * (servers/share-preview.ts) draws every page as each app shows it.
 *
 * Each page's <head> is read by the engine's one reader of built pages (lib/html-tags.ts:
 * attributes in any order or quoting, entities decoded).
 */
import { readTags, type PageTags } from "../../lib/html-tags.js";
import type { ContentWarning } from "../../lib/errors.js";

/** What a page's <head> says about sharing it. */
export interface PageMeta {
  lang?: string;
  /** <title> */
  title?: string;
  /** <meta name="description"> */
  description?: string;
  /** Every `<meta property|name=… content=…>` of the head: og:*, twitter:*. */
  meta: Record<string, string>;
  /** <link rel="canonical"> */
  canonical?: string;
}

/** Reads the share-related meta of a page's head (what comes before its <body>). */
export const readPageMeta = (html: string): PageMeta => metaOf(readTags(html, undefined, true));

/** The share-related meta of a page's head, from a scan of it (`readTags`). */
export function metaOf({ head, title }: Pick<PageTags, "head" | "title">): PageMeta {
  const out: PageMeta = { meta: {} };
  for (const { name, attributes: attrs } of head) {
    if (name === "html" && attrs.lang) out.lang = attrs.lang;
    else if (name === "meta") {
      const key = (attrs.property ?? attrs.name)?.trim().toLowerCase();
      if (key && attrs.content !== undefined && !(key in out.meta)) out.meta[key] = attrs.content.trim();
    } else if (name === "link" && attrs.rel?.toLowerCase().split(/\s+/).includes("canonical") && attrs.href) out.canonical ??= attrs.href;
  }
  out.title = title;
  if (out.meta.description !== undefined) out.description = out.meta.description;
  return out;
}

/** What the apps read of a page, after the usual fallbacks (og:title → <title>…): kept with the page's record. */
export interface ShareText {
  title?: string;
  description?: string;
  siteName?: string;
  /** X's own title and description, when the page gives them. */
  xTitle?: string;
  xDescription?: string;
  /** `twitter:card`: X shows no text under a `summary_large_image` card. */
  card?: string;
}

/** The share text of a page's meta. */
export function shareTextOf(meta: PageMeta): ShareText {
  const m = meta.meta;
  const text: ShareText = {
    title: m["og:title"] || meta.title || undefined,
    description: m["og:description"] || meta.description || undefined,
    siteName: m["og:site_name"] || undefined,
    xTitle: m["twitter:title"] || undefined,
    xDescription: m["twitter:description"] || undefined,
    card: m["twitter:card"] || undefined,
  };
  return Object.fromEntries(Object.entries(text).filter(([, v]) => v !== undefined)) as ShareText;
}

/**
 * Where each app cuts a shared link's title and description, in characters as a reader sees
 * them (grapheme clusters: an emoji is one). No app shows more; the preview draws them cut
 * there, and a warning says so:
 *
 * - X: its Cards markup reference (developer.x.com/en/docs/x-for-websites/cards/overview/markup)
 *   gives `twitter:title` at most 70 characters and `twitter:description` at most 200. Since
 *   October 2023 a `summary_large_image` card shows the picture with the site's domain over it
 *   and no title or description at all (X's change, widely reported on 4–5 October 2023): only
 *   a `summary` card shows them, and only there can they be cut.
 * - WhatsApp: publishes no rule; measured by opengraphplus.com ("Open Graph tags for
 *   WhatsApp"), the title is cut after 60 to 81 characters and the description after 65 to
 *   81, by the phone's width. The title's warning uses 81: past it, every reader loses its end.
 *   The description is the chat bubble's teaser, clamped on every phone by design: drawn cut,
 *   never warned (a description made to fit 65 characters would be too short for search
 *   engines, which read the same tag).
 * - LinkedIn: its feed shows the title over at most two lines and no description; LinkedIn
 *   publishes no figure, and the ones measured range widely (about 70 on a phone to about 200
 *   for its Post Inspector, techcompare.app "LinkedIn OG tags"). The warning uses 150, two
 *   lines of its desktop feed.
 */
export const SHARE_APPS = [
  { id: "whatsapp", name: "WhatsApp", title: 81, description: { shows: 81, warned: false } },
  { id: "linkedin", name: "LinkedIn", title: 150, description: undefined },
  { id: "x", name: "X", title: 70, description: { shows: 200, warned: true } },
] as const satisfies readonly { id: string; name: string; title: number; description: { shows: number; warned: boolean } | undefined }[];
export type ShareApp = (typeof SHARE_APPS)[number];

const segmenter = new Intl.Segmenter(undefined, { granularity: "grapheme" });
/**
 * Text each of whose UTF-16 units is a character of its own: printable ASCII, Latin letters
 * with their accents written as one character (à, ç, õ), spacing modifiers, general
 * punctuation (dashes, quotes, the ellipsis) and currency signs. No combining mark, joiner,
 * surrogate, line break or Hangul jamo is among them: nothing joins two of them into one
 * character (tests/share-preview.test.ts compares each with the segmenter).
 */
const ONE_UNIT_EACH = /^[\x20-\x7E\u00A0-\u02FF\u2010-\u2027\u2030-\u205E\u20A0-\u20C0]*$/;
/**
 * Length as a reader counts it (grapheme clusters). Text of ONE_UNIT_EACH is counted by its
 * length: the segmenter takes some 150 µs for a 180-character description (an object for each
 * character), and the share check counts every page's long title and description on every
 * build and dev save.
 */
export const visibleLength = (text: string) => (ONE_UNIT_EACH.test(text) ? text.length : [...segmenter.segment(text)].length);

/**
 * Whether `text` is longer than `max` characters as a reader counts them. A text of at most
 * `max` UTF-16 units has at most `max` graphemes: only a longer one is segmented (segmenting
 * every page's title and description cost ~0.2 ms a page, 0.8 s of a 4000-page build).
 */
const longerThan = (text: string, max: number) => text.length > max && visibleLength(text) > max;

/** `text` cut to `max` visible characters with "…", and whether it was cut. */
export function cutText(text: string, max: number): { text: string; cut: boolean } {
  const parts = [...segmenter.segment(text)].map((s) => s.segment);
  if (parts.length <= max) return { text, cut: false };
  return { text: `${parts.slice(0, max - 1).join("").trimEnd()}…`, cut: true };
}

/** What one app shows of a page: its title and description (undefined when it shows none). */
export function shownBy(app: ShareApp, share: ShareText): { title?: string; description?: string } {
  if (app.id !== "x") return { title: share.title, description: app.description ? share.description : undefined };
  // X reads its own tags first and falls back to Open Graph; a large card shows no text.
  if (share.card === "summary_large_image") return {};
  return { title: share.xTitle ?? share.title, description: share.xDescription ?? share.description };
}

/** What the site's name adds to a title (`" | Café com a Cris"`), when the title ends with it. */
export function siteSuffix(title: string, siteName: string | undefined): string | undefined {
  if (!siteName || !title.endsWith(siteName) || title === siteName) return undefined;
  const suffix = /\s*[|·—–:-]+\s*$/.exec(title.slice(0, -siteName.length))?.[0];
  return suffix ? `${suffix}${siteName}` : undefined;
}

/** One app cutting one text of a page. */
export interface ShareCut {
  app: ShareApp;
  what: "title" | "description";
  /** Where it cuts, and how long the text is. */
  at: number;
  length: number;
}

/** Where the apps cut a page's title and description (descriptions only where the cut is warned). */
export function shareCuts(share: ShareText): ShareCut[] {
  const cuts: ShareCut[] = [];
  for (const app of SHARE_APPS) {
    const shown = shownBy(app, share);
    if (shown.title && longerThan(shown.title, app.title)) cuts.push({ app, what: "title", at: app.title, length: visibleLength(shown.title) });
    if (shown.description && app.description?.warned && longerThan(shown.description, app.description.shows)) {
      cuts.push({ app, what: "description", at: app.description.shows, length: visibleLength(shown.description) });
    }
  }
  return cuts;
}

const list = (items: string[]) => (items.length <= 2 ? items.join(" and ") : `${items.slice(0, -1).join(", ")} and ${items.at(-1)}`);

/**
 * What the cuts of one text say, in a sentence: which app cuts it where, how long it is, and
 * what the title tag adds to it (the site's name), which is counted too.
 */
export function describeCuts(cuts: readonly ShareCut[], share: ShareText): string[] {
  return (["title", "description"] as const).flatMap((what) => {
    const these = cuts.filter((c) => c.what === what);
    if (these.length === 0) return [];
    const where = list(these.map((c) => `${c.app.name} after ${c.at}`));
    const suffix = what === "title" && share.title ? siteSuffix(share.title, share.siteName) : undefined;
    const length = these[0]!.length;
    const fits = suffix && these.every((c) => length - visibleLength(suffix) <= c.at) ? " (without them it would fit)" : "";
    const added = suffix ? `, ${visibleLength(suffix)} of them the "${suffix}" the title tag adds${fits}` : "";
    return [`the ${what} is cut (${where}): it has ${length} characters${added}`];
  });
}

/**
 * The build's line of a page whose shared title or description an app will cut; undefined
 * when none is. The build says these in route order, each at the place its title is written
 * (`shareWarning`).
 */
export function shareMessage(route: string, share: ShareText | undefined): string | undefined {
  const said = share ? describeCuts(shareCuts(share), share) : [];
  return said.length === 0 ? undefined : `a link to ${route} loses text when shared: ${said.join("; ")} (npm run dev shows it at /__cafe/share)`;
}

/** A page's share message as a warning, at the place `where` names (its article's title). */
export const shareWarning = (route: string, message: string, where: (route: string) => { file: string; line?: number } | undefined): ContentWarning => ({ ...(where(route) ?? { file: `the page ${route}` }), message });
