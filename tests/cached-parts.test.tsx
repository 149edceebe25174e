/**
 * Cached parts (engine/stages/render/cached-parts.tsx): a part of every page (a header, a
 * footer) rendered once for the build and put back on every page that shows it, as Hugo's
 * `partialCached`. The pages are the bytes they are when the part is rendered on each;
 * what the part reads of the site is a dependency of every page that shows it; a part that
 * renders differently under one key fails the build instead of showing one page's part on
 * another.
 */
import { describe, expect, it, vi } from "vitest";
import ArrowLeft from "lucide-react/icons/arrow-left";
import CalendarDays from "lucide-react/icons/calendar-days";
import Clock from "lucide-react/icons/clock";
import path from "node:path";
import { readFile, writeFile } from "node:fs/promises";
import { Fragment, type ReactNode } from "react";
import { Cached } from "../engine/index.js";
import { SiteBuilder } from "../engine/pipeline/site-builder.js";
import { MemoryWriter } from "../engine/stages/write/writers.js";
import { ContentError, formatError } from "../engine/lib/errors.js";
import { notebook } from "./fixtures/notebook/theme/theme.js";
import type { Ctx } from "./fixtures/notebook/theme/schema.js";
import { buildInMemory, editedFixture, projectRoot, testCode } from "./helpers.js";

const siteRoot = path.join(projectRoot, "tests/fixtures/notebook");

/** How often the banner was rendered. */
let renders = 0;
/** The page being rendered, as a module's value: a part that reads it is given nothing of it (its key is the same on every page). */
let current: Ctx | undefined;

/** A banner over every page: the site's title (given) and its first note's title (read from the page's context). */
function Banner({ site, showsPath = false }: { site: Ctx["site"]; showsPath?: boolean }) {
  renders++;
  // `Ctx`, the notebook's type for its modules, does not carry its listings' types.
  const first = (current!.listing("notes") as { title: string }[])[0];
  return (
    <nav className="banner">
      <a href="/">{site.title}</a>
      <span className="first-note">{first?.title}</span>
      {showsPath ? <span className="path">{current!.route.path}</span> : null}
    </nav>
  );
}

type Wrap = (props: { name: string; children: ReactNode }) => ReactNode;

/** The notebook with the banner on every page, in `wrap` (Cached, or a plain fragment: the part rendered on each page). */
function themeWith(wrap: Wrap, options: { showsPath?: boolean } = {}): typeof notebook {
  const Wrap = wrap;
  const templates = Object.fromEntries(
    Object.entries(notebook.templates).map(([name, template]) => [
      name,
      (ctx: Ctx) => {
        current = ctx;
        return (
          <>
            <Wrap name="banner">
              <Banner site={ctx.site} showsPath={options.showsPath} />
            </Wrap>
            {template(ctx as never)}
          </>
        );
      },
    ]),
  );
  return { ...notebook, templates: templates as typeof notebook.templates };
}

const plain: Wrap = ({ children }) => <Fragment>{children}</Fragment>;
const cached: Wrap = ({ name, children }) => <Cached name={name}>{children}</Cached>;

async function build(theme: typeof notebook, contentDir = path.join(siteRoot, "content"), builder?: SiteBuilder, writer = new MemoryWriter()) {
  const site = builder ?? new SiteBuilder({ codeVersion: testCode(), contentDir, projectRoot: siteRoot, theme, cache: undefined });
  const result = await site.build(writer);
  return { result, writer, builder: site };
}

describe("a cached part", () => {
  it("is rendered once for the build (and again on its 2nd and 4th use, to check it), and every page is the bytes it is when the part is rendered on each", async () => {
    renders = 0;
    const each = await build(themeWith(plain));
    const everyPage = renders;
    renders = 0;
    const once = await build(themeWith(cached));
    expect(once.result.errors).toEqual([]);
    expect(everyPage).toBe(6); // the list, the 404, the about page, two notes, a tag's page
    expect(renders).toBe(3);
    expect([...once.writer.files.keys()].sort()).toEqual([...each.writer.files.keys()].sort());
    for (const [file, contents] of each.writer.files) if (file.endsWith(".html")) expect(once.writer.text(file), file).toBe(contents);
    expect(once.writer.text("notes/margins.html")).toContain('<nav class="banner"><a href="/">Field Notebook</a><span class="first-note">Margins</span></nav>');
  });

  it("makes what it reads a dependency of every page that shows it: a page rendered again for it shows the new value", async () => {
    const dir = await editedFixture("notebook", {});
    const contentDir = path.join(dir, "content");
    const first = await build(themeWith(cached), contentDir);
    expect(first.writer.text("notes/reading-slowly.html")).toContain('<span class="first-note">Margins</span>');

    // Only the first note's title changes: the other pages read it in the banner alone.
    const file = path.join(contentDir, "articles/notes/margins.md");
    await writeFile(file, (await readFile(file, "utf8")).replace("title: Margins", "title: Wide margins"));
    const again = await build(themeWith(cached), contentDir, first.builder, first.writer);
    expect(again.result.errors).toEqual([]);
    for (const page of ["index.html", "about.html", "notes/reading-slowly.html", "tags/reading.html", "404.html"]) {
      expect(again.writer.text(page), page).toContain('<span class="first-note">Wide margins</span>');
    }
  });

  it("that renders differently for the same name and values fails the build, naming the part and two pages", async () => {
    const error = await build(themeWith(cached, { showsPath: true })).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ContentError);
    const message = formatError(error as ContentError);
    expect(message).toContain("the cached part 'banner' renders differently on /404 than on /");
    expect(message).toContain("add it to its `vary`");
  });
});

describe("a cached part in the page's <head>", () => {
  it("fails the build, naming the part, instead of writing pages without its tags (React moves the head's tags out of it)", async () => {
    const templates = Object.fromEntries(
      Object.keys(notebook.templates).map((name) => [
        name,
        (ctx: Ctx) => (
          <html lang="en">
            <head>
              <meta charSet="utf-8" />
              <Cached name="head-links">
                <link rel="stylesheet" href={ctx.assets.entries.style} />
                <meta name="theme-color" content="#222222" />
              </Cached>
              {/* A part React leaves in place would lose no tag, but one of the head is refused all the same. */}
              <Cached name="head-noscript">
                <noscript>No script</noscript>
              </Cached>
              <title>{ctx.site.title}</title>
            </head>
            <body>
              <p>{ctx.route.path}</p>
            </body>
          </html>
        ),
      ]),
    );
    const error = await build({ ...notebook, templates: templates as typeof notebook.templates }).then(
      ({ writer }) => writer.text("index.html"),
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ContentError);
    const message = formatError(error as ContentError);
    expect(message).toContain("the cached part 'head-links'");
    expect(message).toContain("<head>");
  });
});

describe("the blog's theme", () => {
  it("draws an article page's icons (back, date, read time) once for the build, not once a page, and each page shows them", async () => {
    const articles = Object.fromEntries(
      Array.from({ length: 12 }, (_, i) => [`articles/nota-${i}.md`, `---\ntitle: Nota ${i}\ndate: 0${1 + (i % 9)}/10/2025\nreadTime: ${i + 1}\n---\n\nTexto ${i}.\n`]),
    );
    const dir = await editedFixture("basic", articles);
    // lucide's icons are forwardRef components: React calls their `render` each time one is drawn.
    const drawn = [ArrowLeft, CalendarDays, Clock].map((icon) => vi.spyOn(icon as unknown as { render: () => unknown }, "render"));
    try {
      const { errors, writer } = await buildInMemory(path.join(dir));
      expect(errors).toEqual([]);
      for (let i = 0; i < 12; i++) {
        const page = writer.text(`nota-${i}.html`);
        for (const icon of ["lucide-arrow-left", "lucide-calendar-days", "lucide-clock"]) expect(page, `nota-${i}.html`).toContain(icon);
      }
      // Each is drawn on its 1st use and again on its 2nd, 4th and 8th (a cached part's check),
      // the home page's cards' smaller ones besides: a few times, not once for each of the 14 article pages.
      for (const spy of drawn) expect(spy.mock.calls.length).toBeLessThan(8);
    } finally {
      for (const spy of drawn) spy.mockRestore();
    }
  });
});
