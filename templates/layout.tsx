/** The HTML document around every page: head, header, main, newsletter, footer, toasts. */
import type { ReactNode } from "react";
import { Header } from "./header.js";
import { Footer } from "./footer.js";
import { Newsletter } from "./newsletter.js";
import { ToasterIsland } from "./islands.js";
import type { CafeArticle, CafePageContext } from "./page-context.js";
import { absoluteUrl, Cached } from "../engine/index.js";

export interface LayoutProps {
  ctx: CafePageContext;
  title: string;
  description: string;
  /** The page title in English, for pages with an English version. */
  titleEn?: string;
  /** Marks the page for the client (the 404 page logs the missing path). */
  page?: "not-found";
  /** The article this page presents, for Open Graph and JSON-LD. */
  article?: CafeArticle;
  children: ReactNode;
}

export function Layout({ ctx, title, description, titleEn, page, article, children }: LayoutProps) {
  const { site, assets } = ctx;
  const url = absoluteUrl(site.siteUrl, ctx.route.path);
  const card = ctx.socialCard;
  const jsonLd = article ? articleJsonLd(article, url, ctx) : undefined;
  return (
    <html
      lang="pt-BR"
      data-lang="pt"
      className="no-js"
      data-title-pt={titleEn ? title : undefined}
      data-title-en={titleEn}
    >
      <head>
        <meta charSet="utf-8" />
        <meta httpEquiv="Content-Security-Policy" content={ctx.csp} />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{title}</title>
        <meta name="description" content={description} />
        {page === "not-found" ? <meta name="robots" content="noindex" /> : <link rel="canonical" href={url} />}
        <meta property="og:site_name" content={site.name} />
        <meta property="og:type" content={article ? "article" : "website"} />
        <meta property="og:title" content={title} />
        <meta property="og:description" content={description} />
        {page === "not-found" ? null : <meta property="og:url" content={url} />}
        <meta property="og:locale" content="pt_BR" />
        {titleEn ? <meta property="og:locale:alternate" content="en_US" /> : null}
        {card ? <meta property="og:image" content={card.url} /> : null}
        {card ? <meta property="og:image:type" content={card.type} /> : null}
        {card ? <meta property="og:image:width" content={String(card.width)} /> : null}
        {card ? <meta property="og:image:height" content={String(card.height)} /> : null}
        {card ? <meta property="og:image:alt" content={card.alt} /> : null}
        <meta name="twitter:card" content={card ? "summary_large_image" : "summary"} />
        <meta name="twitter:title" content={title} />
        <meta name="twitter:description" content={description} />
        <link rel="alternate" type="application/rss+xml" title={site.name} href="/feed.xml" />
        <meta name="theme-color" content="#7c4a2d" />
        <link rel="icon" href="/favicon.svg" type="image/svg+xml" />
        <link rel="preload" href={assets.fonts["brand-script"]} as="font" type="font/woff2" crossOrigin="anonymous" />
        <link rel="stylesheet" href={assets.entries.styles} />
        <script dangerouslySetInnerHTML={{ __html: assets.inlineScript }} />
        <script type="module" src={assets.entries.main} />
        {jsonLd ? (
          <script type="application/ld+json" dangerouslySetInnerHTML={{ __html: jsonLd }} />
        ) : null}
      </head>
      <body data-page={page}>
        <a className="skip-link" href="#conteudo" lang="pt-BR">
          {site.skipLink}
        </a>
        {/* The same on every page: rendered once a build and reused (engine/README.md, "Cached parts"). */}
        <Cached name="site-header">
          <Header site={site} />
        </Cached>
        <main id="conteudo" className="site-main" tabIndex={-1} lang="pt-BR">
          {children}
        </main>
        <Cached name="site-end">
          <Newsletter site={site} />
          <Footer site={site} />
          <ToasterIsland wake="manual" props={{ closeLabel: site.toast.close }} />
        </Cached>
      </body>
    </html>
  );
}

/** schema.org Article data; `<` is escaped so no text can close the script element. */
function articleJsonLd(article: CafeArticle, url: string, ctx: CafePageContext): string {
  const { meta } = article;
  const data = {
    "@context": "https://schema.org",
    "@type": "Article",
    headline: meta.title,
    description: meta.lead ?? meta.description,
    inLanguage: article.lang === "en" ? "en" : "pt-BR",
    datePublished: meta.date?.iso,
    articleSection: meta.category,
    author: { "@type": "Person", name: ctx.site.author },
    publisher: { "@type": "Organization", name: ctx.site.name, url: absoluteUrl(ctx.site.siteUrl, "/") },
    mainEntityOfPage: url,
    url,
  };
  return JSON.stringify(data).replace(/</g, "\\u003c");
}
