/**
 * The site's theme: its settings (content/site.yaml), the front-matter keys its posts may
 * add, its pages and their templates, its stylesheet and its one island (a post's "Copy the
 * link" button, theme/copy-link.tsx). Every
 * function here is typed by the schemas below: a template that reads a setting the schema
 * does not have does not type-check (npm run typecheck).
 *
 * The engine's docs: node_modules/cafe-engine/README.md.
 */
import { z } from "zod";
import { byCodePoint, defineIsland, defineTheme, nonEmpty, type FrontMatterOf, type PageContext } from "cafe-engine";
import type { ReactNode } from "react";
import { CopyLink } from "./copy-link.js";

/** content/site.yaml. */
const site = z.strictObject({
  title: nonEmpty,
  url: z.url(),
  author: nonEmpty,
  description: nonEmpty,
});
type Site = z.infer<typeof site>;

/** A post's own front-matter keys, besides the engine's (title, date, description, draft…). A tag is also a page: /tags/<tag>. */
const tag = z.string().regex(/^[a-z0-9]+(-[a-z0-9]+)*$/, { message: "must be lowercase words joined by hyphens, like getting-started" });
const frontMatter = { tags: z.array(tag).optional() };

/** A post as the lists show it. */
interface Post {
  route: string;
  title: string;
  date?: { iso: string; text: string };
  description?: string;
  tags: string[];
}
type Ctx = PageContext<Site, FrontMatterOf<typeof frontMatter>, object>;

/**
 * An island: rendered here on the server, hydrated in the browser from a chunk of its own when
 * it wakes (`wake`: "load", "idle", "visible", "intent" or "manual"). Its props cross to the
 * browser as JSON: plain data only.
 */
const CopyLinkIsland = defineIsland({ name: "copy-link", module: "theme/copy-link.tsx", export: "CopyLink", component: CopyLink });

function Layout({ ctx, title, children }: { ctx: Ctx; title?: string; children: ReactNode }) {
  return (
    <html lang="en">
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta httpEquiv="Content-Security-Policy" content={ctx.csp} />
        <title>{title ? `${title} · ${ctx.site.title}` : ctx.site.title}</title>
        <meta name="description" content={ctx.site.description} />
        <link rel="icon" href="/favicon.svg" type="image/svg+xml" />
        <link rel="alternate" type="application/rss+xml" title={ctx.site.title} href="/feed.xml" />
        <link rel="stylesheet" href={ctx.assets.entries.style} />
      </head>
      <body>
        <header className="site-header">
          <a className="site-title" href="/">
            {ctx.site.title}
          </a>
        </header>
        <main id="main">{children}</main>
        <footer className="site-footer">
          <p>
            © {ctx.site.author} · <a href="/feed.xml">RSS</a>
          </p>
        </footer>
      </body>
    </html>
  );
}

function PostList({ posts }: { posts: readonly Post[] }) {
  return (
    <ul className="posts">
      {posts.map((post) => (
        <li key={post.route}>
          <a href={post.route}>{post.title}</a>
          {post.date ? <time dateTime={post.date.iso}>{post.date.text}</time> : null}
          {post.description ? <p>{post.description}</p> : null}
        </li>
      ))}
    </ul>
  );
}

export const theme = defineTheme({
  name: "starter",
  version: "1",
  languages: ["en"],
  site,
  siteMeta: (settings) => ({
    name: settings.title,
    url: settings.url,
    description: settings.description,
    language: "en",
    author: settings.author,
    copyright: `© ${settings.author}`,
    favicon: "/favicon.svg",
    connect: [],
  }),
  frontMatter,
  collections: {},
  // The pages that are not posts: the home page and a page per tag.
  pages: (content) => {
    const tags = [...new Set(content.articles.flatMap((post) => post.meta.tags ?? []))].sort(byCodePoint);
    return [{ path: "/", template: "home" }, ...tags.map((t) => ({ path: `/tags/${t}`, template: "tag" }))];
  },
  // A tag's page comes and goes with the posts that carry the tag.
  derivedPages: ["/tags/:tag"],
  // What the lists show, computed once per build: a page is rendered again only when its list changes.
  listings: {
    posts: (content): Post[] =>
      content.articles
        .map((post) => ({ route: post.route, title: post.meta.title, date: post.meta.date, description: post.meta.description, tags: post.meta.tags ?? [] }))
        .sort((a, b) => byCodePoint(b.date?.iso ?? "", a.date?.iso ?? "") || byCodePoint(a.route, b.route)),
  },
  templates: {
    home: (ctx) => (
      <Layout ctx={ctx}>
        <h1>{ctx.site.title}</h1>
        <p className="lead">{ctx.site.description}</p>
        <PostList posts={ctx.listing("posts")} />
      </Layout>
    ),
    tag: (ctx) => {
      const tagged = ctx.route.path.slice("/tags/".length);
      const posts = ctx.listing("posts").filter((post) => post.tags.includes(tagged));
      return (
        <Layout ctx={ctx} title={`Posts tagged ${tagged}`}>
          <h1>Posts tagged “{tagged}”</h1>
          <PostList posts={posts} />
        </Layout>
      );
    },
    article: (ctx) => {
      if (ctx.route.kind !== "article") throw new Error("the article template shows posts only");
      const post = ctx.route.article.main;
      return (
        <Layout ctx={ctx} title={post.meta.title}>
          <article>
            <h1>{post.meta.title}</h1>
            <p className="meta">
              {post.meta.date ? <time dateTime={post.meta.date.iso}>{post.meta.date.text}</time> : null}
              {(post.meta.tags ?? []).map((t) => (
                <a key={t} className="tag" href={`/tags/${t}`}>
                  #{t}
                </a>
              ))}
            </p>
            <div className="body" dangerouslySetInnerHTML={{ __html: ctx.bodyOf(post) }} />
            <CopyLinkIsland wake="idle" props={{ label: "Copy the link to this post", copied: "Copied", failed: "Could not copy: select the address bar instead" }} />
          </article>
        </Layout>
      );
    },
    "not-found": (ctx) => (
      <Layout ctx={ctx} title="Page not found">
        <h1>Page not found</h1>
        <p>
          Nothing lives at this address. <a href="/">Back to the home page</a>.
        </p>
      </Layout>
    ),
  },
  blocks: [],
  markdownComponents: {},
  // Paths relative to the site's folder: each entry is bundled (and hashed) into /assets/;
  // each island gets a chunk of its own, and a page that renders one loads the engine's runtime.
  assets: { entries: { style: "theme/style.css" }, islands: [CopyLinkIsland] },
});
