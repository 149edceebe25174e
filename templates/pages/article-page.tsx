/** An article route; an article with an English version carries both, one shown at a time. */
import ArrowLeft from "lucide-react/icons/arrow-left";
import { Layout } from "../layout.js";
import { ArticleView } from "../article-view.js";
import { bilingual, type CafePageContext } from "../page-context.js";
import { Cached } from "../../engine/index.js";

export function ArticlePage({ ctx }: { ctx: CafePageContext }) {
  if (ctx.route.kind !== "article") throw new Error("the article template renders article routes");
  const { pt, en } = bilingual(ctx.route.article);
  return (
    <Layout
      ctx={ctx}
      title={`${pt.meta.title} | ${ctx.site.name}`}
      titleEn={en ? `${en.meta.title} | ${ctx.site.name}` : undefined}
      description={pt.meta.description ?? pt.meta.lead ?? pt.meta.title}
      article={pt}
    >
      <div className="container article-container">
        <a className="back-link" href="/">
          <Cached name="icon-back">
            <ArrowLeft aria-hidden="true" size={18} />
          </Cached>
          {ctx.site.article.back}
        </a>
        {en ? (
          <>
            <div data-l="pt">
              <ArticleView article={pt} ctx={ctx} />
            </div>
            <div data-l="en" lang="en">
              <ArticleView article={en} ctx={ctx} main={pt} />
            </div>
          </>
        ) : (
          <ArticleView article={pt} ctx={ctx} />
        )}
      </div>
    </Layout>
  );
}
