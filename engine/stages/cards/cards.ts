/**
 * Stage 6 — cards: the picture a link to a page shows when it is shared (`og:image`). One PNG
 * per page, drawn at build time from the theme's React component: satori lays it out into
 * an SVG (its text turned into paths with the theme's fonts), resvg rasterises that SVG
 * without looking at the machine's fonts, so every machine draws the same card.
 *
 * A card is cached on disk by what makes it: the theme's props for the page, the
 * component's code, the fonts' bytes, the size and the two libraries' versions. A build in
 * which no card changed loads neither library.
 */
import { fileHash } from "../../lib/hash.js";
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import type { SiteContent } from "../load/content.js";
import type { Route } from "../routes/routes.js";
import type { SocialCard, Theme, ThemeSocialCard } from "../../theme.js";
import { cacheKey, MediaCache } from "../../incremental/media-cache.js";
import { absoluteUrl } from "../render/site-files.js";

interface LoadedFont {
  name: string;
  data: Buffer;
  weight?: ThemeSocialCard["fonts"][number]["weight"];
  style?: "normal" | "italic";
}

/** `/` → `home`, `/artigo/x` → `artigo-x`, `/404` → `404`. */
const slugOf = (routePath: string) => (routePath === "/" ? "home" : routePath.slice(1).replace(/\//g, "-"));

/** The social cards of one build: each route's, and the files to write. */
export interface SiteCards {
  byRoute: ReadonlyMap<string, SocialCard>;
  files: ReadonlyMap<string, Uint8Array>;
}

export class SocialCards {
  private readonly cache: MediaCache<Record<string, never>>;
  private readonly require: NodeRequire;
  /** The fonts and the part of every key that does not depend on the page. */
  private setup?: Promise<{ fonts: LoadedFont[]; key: string }>;
  /** Cards drawn or read this session, by key: watch mode draws a card once per version. */
  private readonly drawn = new Map<string, Uint8Array>();

  constructor(
    projectRoot: string,
    private readonly theme: Theme,
  ) {
    this.cache = new MediaCache(projectRoot, "cards");
    this.require = createRequire(path.join(projectRoot, "package.json"));
  }

  /** Whether this site has cards: the theme draws them and the settings do not turn them off. */
  enabledFor(site: unknown): boolean {
    const card = this.theme.socialCard;
    return card !== undefined && card.enabled?.(site) !== false;
  }

  /** Draws (or finds) the card of every route. */
  async build(routes: readonly Route[], content: SiteContent, siteUrl: string): Promise<SiteCards> {
    const card = this.theme.socialCard;
    const byRoute = new Map<string, SocialCard>();
    const files = new Map<string, Uint8Array>();
    const used = new Set<string>();
    if (card && this.enabledFor(content.site.value)) {
      const { fonts, key: base } = await (this.setup ??= this.load(card));
      for (const route of routes) {
        const props = card.props({ route, site: content.site.value, content });
        if (props === undefined) continue;
        const key = cacheKey([base, JSON.stringify(props)]);
        let png = this.drawn.get(key) ?? (await this.cache.get(key))?.files.get("card.png");
        if (!png) {
          png = await draw(card, props, fonts);
          await this.cache.put(key, { meta: {}, files: new Map([["card.png", png]]) });
        }
        this.drawn.set(key, png);
        used.add(key);
        const hash = fileHash(png);
        const file = `assets/cards/${slugOf(route.path)}-${hash}.png`;
        files.set(file, png);
        byRoute.set(route.path, {
          url: absoluteUrl(siteUrl, `/${file}`),
          width: card.width,
          height: card.height,
          alt: card.alt(props),
          type: "image/png",
          length: png.length,
        });
      }
    }
    // Cards of titles no longer on the site are let go.
    for (const key of this.drawn.keys()) if (!used.has(key)) this.drawn.delete(key);
    return { byRoute, files };
  }

  private async load(card: ThemeSocialCard): Promise<{ fonts: LoadedFont[]; key: string }> {
    const fonts = await Promise.all(
      card.fonts.map(async (font) => {
        if (font.source.endsWith(".woff2")) throw new Error(`the social card's font ${font.source} is WOFF2, which satori cannot read: use the .woff beside it`);
        return { name: font.name, data: await readFile(this.require.resolve(font.source)), weight: font.weight, style: font.style };
      }),
    );
    const version = async (name: string) => (JSON.parse(await readFile(this.require.resolve(`${name}/package.json`), "utf8")) as { version: string }).version;
    const key = cacheKey([
      "card-v1",
      this.theme.name,
      this.theme.version,
      `${card.width}x${card.height}`,
      // The component's own code: an edit to the card's look draws every card again.
      card.component.toString(),
      ...fonts.flatMap((f) => [`${f.name}:${f.weight}:${f.style}`, f.data]),
      await version("satori"),
      await version("@resvg/resvg-js"),
    ]);
    return { fonts, key };
  }
}

async function draw(card: ThemeSocialCard, props: unknown, fonts: LoadedFont[]): Promise<Uint8Array> {
  const [{ default: satori }, { Resvg }] = await Promise.all([import("satori"), import("@resvg/resvg-js")]);
  const svg = await satori(card.component(props), { width: card.width, height: card.height, fonts });
  // satori has drawn the text as paths: resvg needs no font, and must not pick the machine's.
  return new Resvg(svg, { fitTo: { mode: "width", value: card.width }, font: { loadSystemFonts: false } }).render().asPng();
}
