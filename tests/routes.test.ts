import { describe, expect, it } from "vitest";
import { loadContent } from "../engine/stages/load/content.js";
import { buildRoutes, MAX_ROUTE_LENGTH, outFileOf } from "../engine/stages/routes/routes.js";
import { editedFixture, fixture } from "./helpers.js";
import { theme } from "../templates/theme.js";

describe("the route table", () => {
  it("lists every article, the home page and the 404 page, each with its own file", async () => {
    const { content } = await loadContent(fixture("basic"), theme);
    const { value: table, errors } = buildRoutes(content!, theme);
    expect(errors).toEqual([]);
    expect(table.routes.map((r) => [r.path, r.outFile])).toEqual([
      ["/", "index.html"],
      ["/404", "404.html"],
      ["/guia/so-titulo", "guia/so-titulo.html"],
      ["/primeiro", "primeiro.html"],
    ]);
    const first = table.byPath.get("/primeiro");
    expect(first?.kind === "article" && first.article.translations[0]?.meta.title).toBe("First article");
  });

  it("writes each route to an HTML file served at its exact path", () => {
    expect(outFileOf("/")).toBe("index.html");
    expect(outFileOf("/artigo-transicao")).toBe("artigo-transicao.html");
    expect(outFileOf("/artigo/tarifas-trump-mercado-trabalho")).toBe("artigo/tarifas-trump-mercado-trabalho.html");
  });

  it("fails when two articles claim one route, naming both files", async () => {
    const dir = await editedFixture("basic", {
      "articles/guia/so-titulo.md": "---\ntitle: Outro\nroute: /primeiro\n---\nTexto\n",
    });
    const { content } = await loadContent(dir, theme);
    const { errors } = buildRoutes(content!, theme);
    const duplicate = errors.find((e) => e.message.startsWith("two articles have the route /primeiro"));
    expect(duplicate).toBeDefined();
    expect(duplicate!.message).toContain("primeiro.md");
    expect(duplicate!.message).toContain("so-titulo.md");
    expect(duplicate!.file).toMatch(/so-titulo\.md$/);
    expect(duplicate!.line).toBe(3);
  });

  it("fails when a card points to a route that does not exist, with the card's line", async () => {
    const dir = await editedFixture("basic", {
      "cards.yaml": (s) => s.replace("route: /guia/so-titulo", "route: /guia/nao-existe"),
    });
    const { content } = await loadContent(dir, theme);
    const { value: table, errors: routeErrors } = buildRoutes(content!, theme);
    expect(routeErrors).toEqual([]);
    // Cards are this blog's: its theme checks them once the route table is known.
    const errors = await theme.check!(content!, table);
    expect(errors).toHaveLength(1);
    expect(errors[0]!.file).toMatch(/cards\.yaml$/);
    expect(errors[0]!.line).toBe(15);
    expect(errors[0]!.message).toBe("`[1].route` points to /guia/nao-existe, but no article has that route");
  });

  it(`fails on a route longer than ${MAX_ROUTE_LENGTH} characters, from the file's name or from \`route:\`, at its line`, async () => {
    const longest = `/${"a".repeat(MAX_ROUTE_LENGTH - 1)}`;
    const tooLong = `/${"b".repeat(MAX_ROUTE_LENGTH)}`;
    const dir = await editedFixture("basic", {
      [`articles/${longest.slice(1)}.md`]: "---\ntitle: O mais longo\n---\nTexto\n",
      [`articles/${tooLong.slice(1)}.md`]: "---\ntitle: Longo demais\n---\nTexto\n",
      "articles/guia/so-titulo.md": `---\ntitle: Outro\nroute: /guia/${"c".repeat(MAX_ROUTE_LENGTH)}\n---\nTexto\n`,
    });
    const { content } = await loadContent(dir, theme);
    const { value: table, errors } = buildRoutes(content!, theme);
    expect(table.byPath.has(longest)).toBe(true);
    expect(errors.map((e) => `${e.file.split("/").pop()}:${e.line}: ${e.message} (${e.hint})`)).toEqual([
      `${tooLong.slice(1)}.md:1: the route ${tooLong} is ${MAX_ROUTE_LENGTH + 1} characters long; a route, alias or redirect may have at most ${MAX_ROUTE_LENGTH} (give the file a shorter name, or set a shorter \`route:\`)`,
      `so-titulo.md:3: the route /guia/${"c".repeat(MAX_ROUTE_LENGTH)} is ${MAX_ROUTE_LENGTH + 6} characters long; a route, alias or redirect may have at most ${MAX_ROUTE_LENGTH} (set a shorter \`route:\`)`,
    ]);
  });
});
