/** The blog index: the featured article, then "Artigos Anteriores" with the cards. */
import Clock from "lucide-react/icons/clock";
import CalendarDays from "lucide-react/icons/calendar-days";
import { SharedIcon } from "../../client/shared-part.js";
import { Layout } from "../layout.js";
import { ArticleView } from "../article-view.js";
import { T } from "../bilingual.js";
import { iconByName } from "../icons.js";
import type { Card } from "../../engine/schema.js";
import type { ArticleVariants, PageContext } from "../page-context.js";

function BlogCard({ card }: { card: Card }) {
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
            {Icon ? <SharedIcon icon={Icon} size={24} /> : null}
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
            <SharedIcon icon={Clock} aria-hidden="true" size={14} />
            {card.readTime} min
          </span>{" "}
          <span className="meta-item">
            <SharedIcon icon={CalendarDays} aria-hidden="true" size={14} />
            {card.date}
          </span>
        </span>
      </a>
    </li>
  );
}

export function HomePage({ ctx, featured }: { ctx: PageContext; featured: ArticleVariants }) {
  const { site, cards } = ctx;
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
              <BlogCard key={card.route} card={card} />
            ))}
          </ul>
        </div>
      </section>
    </Layout>
  );
}
