/** The 404 page, written to 404.html and served for any unknown path. */
import { Layout } from "../layout.js";
import type { CafePageContext } from "../page-context.js";

export function NotFoundPage({ ctx }: { ctx: CafePageContext }) {
  const { notFound } = ctx.site;
  return (
    <Layout ctx={ctx} title={`${notFound.title} | ${ctx.site.name}`} description={notFound.text} page="not-found">
      <div className="container not-found" lang={notFound.lang}>
        <h1 className="not-found-code">{notFound.heading}</h1>
        <p className="not-found-text">{notFound.text}</p>
        <a className="button button-primary" href="/">
          {notFound.back}
        </a>
      </div>
    </Layout>
  );
}
