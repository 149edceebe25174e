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
  children: ReactNode;
}

export function Layout({ ctx, title, description, children }: LayoutProps) {
  const { site, assets } = ctx;
  return (
    <html lang="pt-BR" data-lang="pt" className="no-js">
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
      <body>
        <a className="skip-link" href="#conteudo">
          {site.skipLink}
        </a>
        <Header site={site} />
        <main id="conteudo" className="site-main" tabIndex={-1}>
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
