/**
 * The share preview's reading of a page's meta and its warnings (engine/servers/share-preview.ts,
 * engine/stages/checks/share-text.ts), the build's line for each page an app will cut, and
 * the promise that none of the preview reaches a built site.
 */
import { describe, expect, it } from "vitest";
import { cutText, readPageMeta, renderSharePage, sharePreviews, visibleLength } from "../engine/servers/share-preview.js";
import { buildInMemory, editedFixture, parseHtml, realSite } from "./helpers.js";

const head = (meta: string, title = "Página") => `<!DOCTYPE html><html lang="pt-BR"><head><title>${title}</title>${meta}</head><body><p>corpo</p><meta property="og:title" content="no corpo"></body></html>`;

describe("readPageMeta", () => {
  it("reads og:*, twitter:*, the title, the description and the canonical link, entities decoded, whatever the attribute order", () => {
    const meta = readPageMeta(
      head(
        `<meta content="Café &amp; prosa" property="og:title"><META NAME="description" CONTENT='Uma descrição'><meta name="twitter:card" content="summary_large_image"><link href="https://x.test/a" rel="canonical"><meta property="og:image" content="https://x.test/assets/cards/a.png">`,
      ),
    );
    expect(meta.lang).toBe("pt-BR");
    expect(meta.title).toBe("Página");
    expect(meta.meta["og:title"]).toBe("Café & prosa");
    expect(meta.description).toBe("Uma descrição");
    expect(meta.meta["twitter:card"]).toBe("summary_large_image");
    expect(meta.canonical).toBe("https://x.test/a");
    expect(meta.meta["og:image"]).toBe("https://x.test/assets/cards/a.png");
  });

  it("reads nothing from the body", () => {
    expect(readPageMeta(head("")).meta["og:title"]).toBeUndefined();
  });
});

describe("sharePreviews", () => {
  const page = (route: string, meta: Record<string, string>) => ({ route, meta: { meta, title: meta["og:title"] } });
  const full = (title: string, description = "Uma descrição curta.") => ({
    "og:title": title,
    "og:description": description,
    "og:site_name": "Café",
    "og:url": "https://cafe.test/x",
    "og:image": "https://cafe.test/assets/cards/x.png",
    "og:image:alt": "Cartão",
  });
  const local = (url: string) => new URL(url).pathname;

  it("warns which app cuts a title and where, counting what the title tag adds and saying so", () => {
    const title = `${"Um título comprido que passa de oitenta caracteres, o que o WhatsApp não mostra"} | Café`;
    expect(visibleLength(title)).toBe(86);
    const [preview] = sharePreviews([page("/x", { ...full(title), "twitter:card": "summary_large_image" })], local);
    const byApp = Object.fromEntries(preview!.apps.map((a) => [a.app.id, a.title]));
    expect(byApp.whatsapp!.cut).toBe(true);
    expect(visibleLength(byApp.whatsapp!.text)).toBeLessThanOrEqual(81);
    expect(byApp.whatsapp!.text.endsWith("…")).toBe(true);
    expect(byApp.linkedin!.cut).toBe(false);
    expect(preview!.warnings).toEqual(['The title is cut (WhatsApp after 81): it has 86 characters, 7 of them the " | Café" the title tag adds (without them it would fit). Shorten it, or put what matters first.']);
  });

  it("X: a summary card's title and description cut at 70 and 200; a large card shows no text, so cuts nothing", () => {
    const title = "Um título de setenta e poucos caracteres, que o WhatsApp mostra inteiro";
    const description = "Uma descrição longa. ".repeat(12).trim();
    const summary = sharePreviews([page("/x", { ...full(title, description), "twitter:card": "summary" })], local)[0]!;
    expect(summary.warnings).toEqual([
      `The title is cut (X after 70): it has ${visibleLength(title)} characters. Shorten it, or put what matters first.`,
      `The description is cut (X after 200): it has ${visibleLength(description)} characters. Shorten it, or put what matters first.`,
    ]);
    const large = sharePreviews([page("/x", { ...full(title, description), "twitter:card": "summary_large_image" })], local)[0]!;
    expect(large.warnings).toEqual([]);
    const x = large.apps.find((a) => a.app.id === "x")!;
    expect([x.imageOnly, x.title, x.description]).toEqual([true, undefined, undefined]);
  });

  it("draws WhatsApp's description as the teaser it shows, and does not warn of it", () => {
    const description = "Uma descrição que passa do que o WhatsApp mostra num celular, como toda boa descrição de página faz.";
    const [preview] = sharePreviews([page("/x", full("Título", description))], local);
    const whatsapp = preview!.apps.find((a) => a.app.id === "whatsapp")!;
    expect(whatsapp.description!.cut).toBe(true);
    expect(preview!.warnings).toEqual([]);
  });

  it("warns of a missing description, image and site name, and of titles two pages share", () => {
    const previews = sharePreviews([page("/a", { "og:title": "Igual" }), page("/b", full("Igual"))], local);
    const a = previews[0]!.warnings.join("\n");
    expect(a).toContain("No description");
    expect(a).toContain("No image");
    expect(a).toContain("No og:site_name");
    expect(a).toContain("Same title as /b");
    expect(previews[1]!.warnings.join("\n")).toContain("Same title as /a");
    expect(previews[1]!.warnings.join("\n")).not.toContain("No description");
  });

  it("warns of an image the site does not have", () => {
    const [preview] = sharePreviews([page("/x", full("Título"))], () => undefined);
    expect(preview!.warnings.join("\n")).toContain("is not a file of this site");
  });

  it("counts an emoji as one character", () => {
    expect(visibleLength("☕️ café")).toBe(6);
    expect(cutText("☕️☕️☕️☕️", 3)).toEqual({ text: "☕️☕️…", cut: true });
  });

  it("escapes what pages say and marks its language", () => {
    const html = renderSharePage(sharePreviews([page("/x", full('<script>alert("x")</script>'))], local));
    expect(html).not.toContain("<script>alert");
    expect(parseHtml(html).documentElement.getAttribute("lang")).toBe("en");
  });
});

describe("visibleLength", () => {
  const segmenter = new Intl.Segmenter(undefined, { granularity: "grapheme" });
  const graphemes = (text: string) => [...segmenter.segment(text)].length;

  it("counts what the grapheme segmenter counts: each character it counts by length, alone, between letters and doubled; combining marks, emoji, joiners, line breaks", () => {
    const singles: string[] = [];
    for (const [from, to] of [[0x20, 0x7e], [0xa0, 0x2ff], [0x2010, 0x2027], [0x2030, 0x205e], [0x20a0, 0x20c0]] as const) {
      for (let code = from; code <= to; code++) singles.push(String.fromCharCode(code));
    }
    const texts = [
      ...singles.flatMap((c) => [`a${c}b`, `${c}${c}`, c]),
      "Uma descrição — com acentuação, “aspas” e reticências… até 200 caracteres: 5 € ou US$ 3.",
      "e\u0301 combinado",
      "☕️ café",
      "👩‍💻 e 🇧🇷",
      "linha\r\nquebrada",
      "한국어",
      "ab\u200dcd",
      "\u0915\u094d\u0937",
    ];
    for (const text of texts) expect(visibleLength(text), JSON.stringify(text)).toBe(graphemes(text));
  });
});

describe("the real site", () => {
  const pages = realSite().routes.filter((r) => r.kind !== "not-found").map((r) => ({ route: r.path, meta: readPageMeta(realSite().writer.text(r.outFile)) }));
  const previews = sharePreviews(pages, (url) => new URL(url).pathname);

  it("warns only where an app cuts: three titles that the site's name pushes past WhatsApp's 81", () => {
    const warned = previews.filter((p) => p.warnings.length > 0).map((p) => [p.route, p.warnings]);
    expect(warned).toEqual([
      ["/artigo-sistema-notas", [expect.stringMatching(/^The title is cut \(WhatsApp after 81\): it has 93 characters, 18 of them the " \| Café com a Cris" the title tag adds \(without them it would fit\)\./)]],
      ["/artigo/tarifas-trump-mercado-trabalho", [expect.stringMatching(/^The title is cut \(WhatsApp after 81\): it has 84 characters, 18 of them/)]],
      ["/descompasso-seculo-xxi", [expect.stringMatching(/^The title is cut \(WhatsApp after 81\): it has 95 characters, 18 of them/)]],
    ]);
    expect(previews.length).toBe(14);
  });

  it("the build prints one line per page whose shared title or description will be cut, at the article's title", () => {
    // The run's build of the real site (tests/global-setup.ts), as the command prints its warnings.
    const lines = realSite().warnings.filter((w) => w.includes("when shared"));
    expect(lines).toEqual([
      expect.stringMatching(/^warning content\/articles\/artigo-sistema-notas\.md:2: a link to \/artigo-sistema-notas loses text when shared: the title is cut \(WhatsApp after 81\): it has 93 characters, 18 of them the " \| Café com a Cris" the title tag adds/),
      expect.stringMatching(/^warning content\/articles\/artigo\/tarifas-trump-mercado-trabalho\.md:2: a link to \/artigo\/tarifas-trump-mercado-trabalho loses text when shared/),
      expect.stringMatching(/^warning content\/articles\/descompasso-seculo-xxi\.md:2: a link to \/descompasso-seculo-xxi loses text when shared/),
    ]);
  });
});

describe("a build", () => {
  it("writes nothing of the share preview and links to none of it", async () => {
    const result = await buildInMemory(await editedFixture("basic", {}));
    expect(result.ok).toBe(true);
    const files = [...result.writer.files.keys()];
    expect(files.length).toBeGreaterThan(5);
    expect(files.filter((f) => f.includes("__cafe"))).toEqual([]);
    const pages = files.filter((f) => f.endsWith(".html"));
    expect(pages.filter((f) => result.writer.text(f).includes("/__cafe/"))).toEqual([]);
  });
});
