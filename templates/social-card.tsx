/**
 * The picture a shared link shows (Open Graph, 1200×630): the brand, the page's title in
 * Portuguese, its category and date, in the site's colours and the brand's script face.
 * Drawn by satori at build time (engine/stages/cards/cards.ts): flex layout and inline styles only,
 * every element with more than one child a flex box.
 */
import type { ThemeSocialCard } from "../engine/index.js";
import type { CafeCollections, CafeMeta, SiteSettings } from "./schema.js";
import { articleOf } from "../engine/index.js";

/** What a card shows: plain JSON, the card's cache key. */
export interface CardProps {
  /** The site's name before the script part ("Café com a") and the script part ("Cris"). */
  brand: { lead: string; script: string };
  title: string;
  category?: string;
  date?: string;
  /** For pages that are not articles: the site's subtitle. */
  tagline?: string;
  initial: string;
}

/** The colours of templates/styles.css. */
const COLOURS = {
  coffee900: "#3b2417",
  coffee700: "#7c4a2d",
  cream50: "#fffaf5",
  cream200: "#f6e3cc",
  muted: "#5f5149",
};

function SocialCardImage({ brand, title, category, date, tagline, initial }: CardProps) {
  const titleSize = title.length <= 40 ? 72 : title.length <= 75 ? 60 : 50;
  return (
    <div
      style={{
        width: "100%",
        height: "100%",
        display: "flex",
        backgroundColor: COLOURS.cream50,
        fontFamily: "Inter",
        color: COLOURS.coffee900,
      }}
    >
      <div style={{ width: 28, height: "100%", backgroundColor: COLOURS.coffee700 }} />
      <div style={{ display: "flex", flexDirection: "column", justifyContent: "space-between", flex: 1, padding: "56px 72px 56px 64px" }}>
        <div style={{ display: "flex", alignItems: "center" }}>
          <div
            style={{
              display: "flex",
              alignItems: "center",
              justifyContent: "center",
              width: 76,
              height: 76,
              borderRadius: 38,
              backgroundColor: COLOURS.coffee700,
              color: COLOURS.cream50,
              fontFamily: "Dancing Script",
              fontSize: 44,
              fontWeight: 700,
            }}
          >
            {initial}
          </div>
          <div style={{ display: "flex", alignItems: "baseline", marginLeft: 24 }}>
            {brand.lead ? <span style={{ fontSize: 36, fontWeight: 700, marginRight: 12 }}>{brand.lead}</span> : null}
            <span style={{ fontFamily: "Dancing Script", fontSize: 60, fontWeight: 700, color: COLOURS.coffee700 }}>{brand.script}</span>
          </div>
        </div>
        <div style={{ display: "flex", flexDirection: "column" }}>
          {category ? (
            <div style={{ display: "flex", marginBottom: 24 }}>
              <span
                style={{
                  padding: "8px 22px",
                  borderRadius: 999,
                  backgroundColor: COLOURS.cream200,
                  fontSize: 28,
                  fontWeight: 700,
                }}
              >
                {category}
              </span>
            </div>
          ) : null}
          {/* Five lines at most, an ellipsis after: a title never runs off the card. */}
          <div style={{ display: "block", lineClamp: 5, fontSize: titleSize, fontWeight: 700, lineHeight: 1.12, letterSpacing: -1 }}>{title}</div>
        </div>
        <div style={{ display: "flex", justifyContent: "space-between", alignItems: "center", fontSize: 28, color: COLOURS.muted }}>
          <span>{date ?? tagline ?? ""}</span>
          <div style={{ display: "flex", width: 120, height: 8, borderRadius: 4, backgroundColor: COLOURS.coffee700 }} />
        </div>
      </div>
    </div>
  );
}

export const socialCard: ThemeSocialCard<SiteSettings, CardProps, CafeMeta, CafeCollections> = {
  width: 1200,
  height: 630,
  fonts: [
    { name: "Inter", source: "@fontsource/inter/files/inter-latin-400-normal.woff", weight: 400 },
    { name: "Inter", source: "@fontsource/inter/files/inter-latin-700-normal.woff", weight: 700 },
    { name: "Dancing Script", source: "@fontsource/dancing-script/files/dancing-script-latin-700-normal.woff", weight: 700 },
  ],
  props({ route, site }) {
    const brand = site.name.endsWith(site.brand.name)
      ? { lead: site.name.slice(0, -site.brand.name.length).trim(), script: site.brand.name }
      : { lead: site.name, script: site.brand.name };
    const base = { brand, initial: site.author.slice(0, 1) };
    // The page's default language: the Portuguese article of a route.
    const article = route.kind === "article" ? articleOf(route)?.main : undefined;
    if (article) {
      const { meta } = article;
      return { ...base, title: meta.title, category: meta.category, date: meta.date?.text };
    }
    if (route.kind === "not-found") return { ...base, title: site.notFound.title };
    return { ...base, title: site.header.title.pt, tagline: site.header.subtitle.pt };
  },
  component: SocialCardImage,
  alt: (props) => `${props.title} — ${props.brand.lead} ${props.brand.script}`.replace(/\s+/g, " "),
  enabled: (site) => site.socialCards !== false,
};
