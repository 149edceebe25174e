/**
 * The scan of a built page (engine/lib/html-tags.ts, `readTags`) given the page as the render
 * leaves it, its cached parts still marked places: a part is read once for the build and what
 * it holds is added at each of its places, so the page's record (its links, ids, share text,
 * scripts) is what a scan of the page with its parts in place gives.
 */
import { describe, expect, it, vi } from "vitest";
import { readTags, type PartMarks } from "../engine/lib/html-tags.js";

const ONLY = /\s(id|href|src|on[a-z]+)\s*=/i;
const nonce = "a1b2c3";
const place = (id: number) => `<cafe-part data-n="${nonce}" data-i="${id}"></cafe-part>`;

const parts = [
  // A site's header, shown twice on the page (its second place reads nothing again).
  `<header class="site"><a href="/">Café</a><nav><a href="/sobre" id="menu">Sobre</a><a href="https://example.com" target="_blank">Fora</a></nav></header>`,
  // Its end, with a script and an element given a handler.
  `<footer id="fim"><a href="/privacidade#cookies">Privacidade</a><button onclick="go()">Ir</button><script>window.x = 1;</script></footer>`,
  // A part in the head: every attribute of its tags is read, as the head's own.
  `<link rel="icon" href="/favicon.svg"/><meta property="og:site_name" content="Caf&eacute; com a Cris"/>`,
];

function page(part: (id: number) => string): string {
  return (
    `<!DOCTYPE html><html lang="pt-BR"><head><meta charSet="utf-8"/><title>Uma nota | Café</title>${part(2)}` +
    `<meta name="description" content="Sobre notas"/><script type="application/ld+json">{"a":1}</script></head>` +
    `<body>${part(0)}<main><h1 id="titulo">Uma nota</h1><p>Texto com <a href="/outra#parte">um link</a>.</p></main>${part(0)}${part(1)}</body></html>`
  );
}

function marks(): PartMarks & { html: ReturnType<typeof vi.fn> } {
  return { nonce, html: vi.fn((id: number) => parts[id]), found: new Map() };
}

describe("the scan of a page whose cached parts are marked places", () => {
  it("finds what the page with its parts in place holds, reading each part once for the build", () => {
    const filled = page((id) => parts[id]!);
    const given = marks();
    expect(readTags(page(place), ONLY, false, given)).toEqual(readTags(filled, ONLY));
    // A second page: the parts are not read again.
    expect(readTags(page(place), ONLY, false, given)).toEqual(readTags(filled, ONLY));
    expect(given.html.mock.calls.map(([id]) => id).sort()).toEqual([0, 1, 2]);
  });

  it("reads a part rendered in place (between its marks) where it stands, and no mark as a tag of the page", () => {
    const inPlace = (id: number) => `<cafe-part data-n="${nonce}" data-i="${id}" data-render="">${parts[id]}<cafe-part-end data-n="${nonce}" data-i="${id}"></cafe-part-end></cafe-part>`;
    const given = marks();
    const found = readTags(page(inPlace), ONLY, false, given);
    expect(found).toEqual(readTags(page((id) => parts[id]!), ONLY));
    expect(found.tags.map((t) => t.name)).not.toContain("cafe-part");
    expect(given.html).not.toHaveBeenCalled();
  });

  it("takes marks of another run (another mark) as the page's own tags", () => {
    const other = (id: number) => `<cafe-part data-n="ffffff" data-i="${id}"></cafe-part>`;
    const found = readTags(page(other), undefined, false, marks());
    expect(found.tags.filter((t) => t.name === "cafe-part")).toHaveLength(4);
  });
});
