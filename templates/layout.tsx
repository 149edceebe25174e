/** The HTML document around every page: head, header, main, newsletter, footer, toasts. */
import type { ReactNode } from "react";
import { Header } from "./header.js";
import { Footer } from "./footer.js";
import { Newsletter } from "./newsletter.js";
import { Island } from "../client/island.js";
import { Toaster } from "../client/islands/toaster.js";
import type { PageContext } from "./page-context.js";

export interface LayoutProps {
  ctx: PageContext;
  title: string;
  description: string;
  /** The page title in English, for pages with an English version. */
  titleEn?: string;
  /** Marks the page for the client (the 404 page logs the missing path). */
  page?: "not-found";
  children: ReactNode;
}

export function Layout({ ctx, title, description, titleEn, page, children }: LayoutProps) {
  const { site, assets } = ctx;
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
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{title}</title>
        <meta name="description" content={description} />
        <meta name="theme-color" content="#7c4a2d" />
        <link rel="icon" href="/favicon.svg" type="image/svg+xml" />
        <link rel="preload" href={assets.brandFont} as="font" type="font/woff2" crossOrigin="anonymous" />
        <link rel="stylesheet" href={assets.css} />
        <script dangerouslySetInnerHTML={{ __html: assets.bootScript }} />
        <script type="module" src={assets.js} />
      </head>
      <body data-page={page}>
        <a className="skip-link" href="#conteudo" lang="pt-BR">
          {site.skipLink}
        </a>
        <Header site={site} />
        <main id="conteudo" className="site-main" tabIndex={-1} lang="pt-BR">
          {children}
        </main>
        <Newsletter site={site} />
        <Footer site={site} />
        <Island name="toaster" props={{ closeLabel: site.toast.close }}>
          <Toaster closeLabel={site.toast.close} />
        </Island>
      </body>
    </html>
  );
}
