/** One article: its header (badge, category, date, read time, author, share) and body. */
import CalendarDays from "lucide-react/icons/calendar-days";
import Clock from "lucide-react/icons/clock";
import type { ShareButtonProps } from "../client/islands/share-button.js";
import { ShareIsland } from "./islands.js";
import { fill } from "../client/format.js";
import { labelsOf, seriesOf, type CafeArticle, type CafePageContext } from "./page-context.js";
import { Cached, formatDate, Picture } from "../engine/index.js";
import { IMAGE_SIZES } from "./image-sizes.js";

export interface ArticleViewProps {
  article: CafeArticle;
  ctx: CafePageContext;
  headingLevel?: 1 | 2;
  /** When `article` is a translation, the page's article in the site's language. */
  main?: CafeArticle;
}

export function ArticleView({ article, ctx, headingLevel = 1, main }: ArticleViewProps) {
  const { meta } = article;
  const { site } = ctx;
  const Heading = headingLevel === 1 ? "h1" : "h2";
  const labels = labelsOf(site, article.lang);
  // How Compartilhar behaves is the page's: a translation keeps its main article's share
  // settings, each key overridable in its own front matter, and shares its own title and lead.
  const settings = { ...main?.meta.share, ...meta.share };
  const share: ShareButtonProps = {
    label: site.share.label,
    title: meta.title,
    text: settings.text ? meta.lead : undefined,
    copiedTitle: site.share.copiedTitle,
    copiedMessage: settings.copiedMessage ?? site.share.copiedMessage,
    alertMessage: site.share.alertMessage,
    settings,
  };
  const series = meta.series ? seriesOf(ctx, meta.series).filter((s) => s.route !== article.route) : [];
  const cover = meta.image && ctx.imageOf(article, meta.image.src);
  return (
    <article className="article">
      <header className="article-header">
        {meta.badge ? <p className="badge badge-highlight">{meta.badge}</p> : null}
        <div className="article-meta">
          {meta.category ? <span className="badge">{meta.category}</span> : null}{" "}
          {meta.date ? (
            <span className="meta-item">
              <Cached name="icon-calendar">
                <CalendarDays aria-hidden="true" size={16} />
              </Cached>
              <time dateTime={meta.date.iso}>{formatDate(meta.date, article.lang)}</time>
            </span>
          ) : null}{" "}
          {meta.readTime ? (
            <span className="meta-item">
              <Cached name="icon-clock">
                <Clock aria-hidden="true" size={16} />
              </Cached>
              {fill(labels.readTime, { minutes: meta.readTime })}
            </span>
          ) : null}
        </div>
        <Heading className="article-title">{meta.title}</Heading>
        {meta.authorLine ? <p className="article-author-line">{meta.authorLine}</p> : null}
        {meta.lead ? <p className="article-lead">{meta.lead}</p> : null}
        <div className="article-byline">
          <p className="author">
            <span className="author-avatar" aria-hidden="true">
              {site.author.slice(0, 1)}
            </span>
            <span>
              <strong>{site.author}</strong>, {site.article.blogLabel}
            </span>
          </p>
          <ShareIsland wake="intent" props={share} />
        </div>
      </header>
      {cover ? (
        <div className="article-cover">
          <Picture image={cover} alt={meta.image?.decorative ? "" : (meta.image?.alt ?? "").trim()} sizes={IMAGE_SIZES} priority />
        </div>
      ) : null}
      <div className="prose" dangerouslySetInnerHTML={{ __html: ctx.bodyOf(article) }} />
      {series.length > 0 ? (
        <nav className="series-nav" aria-label={labels.series}>
          <h2 className="series-title">{labels.series}</h2>
          <ul>
            {series.map((s) => (
              <li key={s.route}>
                <a href={s.route}>{s.title}</a>
              </li>
            ))}
          </ul>
        </nav>
      ) : null}
    </article>
  );
}
