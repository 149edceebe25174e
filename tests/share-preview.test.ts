/**
 * The share preview's reading of a page's meta and its warnings (engine/servers/share-preview.ts),
 * and the promise that none of it reaches a built site.
 */
import { describe, expect, it } from "vitest";
import { cutText, readPageMeta, renderSharePage, sharePreviews, visibleLength } from "../engine/servers/share-preview.js";
import { buildInMemory, editedFixture, parseHtml } from "./helpers.js";

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

  it("cuts a title at each app's length and warns which apps cut it", () => {
    const long = "Um título muito comprido que passa de setenta caracteres, mas não de oitenta";
    expect(visibleLength(long)).toBeGreaterThan(70);
    expect(visibleLength(long)).toBeLessThan(80);
    const [preview] = sharePreviews([page("/x", full(long))], local);
    const byApp = Object.fromEntries(preview!.apps.map((a) => [a.app.id, a.title]));
    expect(byApp.whatsapp!.cut).toBe(false);
    expect(byApp.linkedin!.cut).toBe(true);
    expect(visibleLength(byApp.linkedin!.text)).toBeLessThanOrEqual(70);
    expect(byApp.linkedin!.text.endsWith("…")).toBe(true);
    expect(preview!.warnings.join("\n")).toMatch(/title is \d+ characters long: it will be cut in LinkedIn \(about 70\) and X \(about 70\)/);
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
