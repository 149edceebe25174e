/** The blog index: the featured article, then "Artigos Anteriores" with the cards. */
import Clock from "lucide-react/icons/clock";
import CalendarDays from "lucide-react/icons/calendar-days";
import { Layout } from "../layout.js";
import { ArticleView } from "../article-view.js";
import { T } from "../bilingual.js";
import { iconByName } from "../icons.js";
import { fill } from "../../client/format.js";
import { formatDate } from "../../engine/index.js";
import type { Card, SiteSettings } from "../schema.js";
import { bilingual, type CafePageContext } from "../page-context.js";

function BlogCard({ card, site }: { card: Card; site: SiteSettings }) {
  const readTime = (lang: "pt" | "en") => fill(site.labels[lang].cardReadTime, { minutes: card.readTime });
  // A card with an English version shows the English label too, where it reads differently.
  const readTimeEn = card.en && readTime("en") !== readTime("pt") ? readTime("en") : undefined;
  const Icon = iconByName(card.icon);
  const style = {
    "--card-from": card.gradient[0],
    "--card-to": card.gradient[1],
    "--card-border": card.borderColor,
    "--card-icon": card.iconColor,
  } as React.CSSProperties;
  return (
    <li className="card-item">
      <a className="card" href={card.route} style={style}>
        <span className="card-top">
          <span className="card-icon" aria-hidden="true">
            {Icon ? <Icon size={24} /> : null}
          </span>{" "}
          <span className="badge">
            <T pt={card.category} en={card.en?.category} />
          </span>
        </span>{" "}
        <span className="card-title">
          <T pt={card.title} en={card.en?.title} />
        </span>{" "}
        <span className="card-excerpt">
          <T pt={card.excerpt} en={card.en?.excerpt} />
        </span>{" "}
        <span className="card-meta">
          <span className="meta-item">
            <Clock aria-hidden="true" size={14} />
            <T pt={readTime("pt")} en={readTimeEn} />
          </span>{" "}
          <span className="meta-item">
            <CalendarDays aria-hidden="true" size={14} />
            {/* A card with an English version gives its date as an English reader writes it. */}
            <T pt={card.date} en={card.en ? formatDate(card.date, "en") : undefined} />
          </span>
        </span>
      </a>
    </li>
  );
}

export function HomePage({ ctx }: { ctx: CafePageContext }) {
  if (ctx.route.kind !== "page" || !ctx.route.featured) throw new Error("the home template needs a featured article");
  const featured = bilingual(ctx.route.featured);
  const { site } = ctx;
  // A card pointing at a draft is left out until the draft is published.
  const cards = ctx.listing("cards").filter((c) => ctx.routes.byPath.has(c.route));
  return (
    <Layout
      ctx={ctx}
      title={`${site.header.title.pt} | ${site.header.subtitle.pt}`}
      titleEn={`${site.header.title.en} | ${site.header.subtitle.en}`}
      description={site.home.description}
    >
      <div className="container home-featured">
        <ArticleView article={featured.pt} ctx={ctx} />
      </div>
      <section className="previous" aria-labelledby="previous-title">
        <div className="container">
          <h2 id="previous-title" className="section-title">
            {site.home.title}
          </h2>
          <p className="section-subtitle">{site.home.subtitle}</p>
          <ul className="card-grid">
            {cards.map((card) => (
              <BlogCard key={card.route} card={card} site={site} />
            ))}
          </ul>
        </div>
      </section>
    </Layout>
  );
}
