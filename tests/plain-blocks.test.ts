/**
 * Plain paragraphs read without micromark (engine/stages/markdown/plain-blocks.ts): the tree
 * is the one micromark makes of the whole body, positions included, with each of the parsers
 * the Markdown stage uses (CommonMark alone; GFM and directives).
 */
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { unified } from "unified";
import remarkParse from "remark-parse";
import remarkGfm from "remark-gfm";
import remarkDirective from "remark-directive";
import type { Root } from "mdast";
import { parseWithPlainBlocks } from "../engine/stages/markdown/plain-blocks.js";
import { projectRoot } from "./helpers.js";

const lean = unified().use(remarkParse);
const full = unified().use(remarkParse).use(remarkGfm).use(remarkDirective);
const parsers = { lean: (markdown: string) => lean.parse(markdown) as Root, full: (markdown: string) => full.parse(markdown) as Root };

/** The tree read with plain paragraphs taken apart, how many times micromark was asked, and how many characters it was given. */
function read(markdown: string, parse: (markdown: string) => Root): { tree: Root; calls: number; given: number } {
  let calls = 0;
  let given = 0;
  const tree = parseWithPlainBlocks(markdown, (text) => {
    calls++;
    given += text.length;
    return parse(text);
  });
  return { tree, calls, given };
}

function expectSameTree(markdown: string) {
  for (const [name, parse] of Object.entries(parsers)) {
    expect(read(markdown, parse).tree, `${name}: ${JSON.stringify(markdown)}`).toEqual(parse(markdown));
  }
}

describe("plain paragraphs read without micromark", () => {
  it("a body of plain prose is read without micromark, to the tree micromark makes", () => {
    const body = "Primeiro parágrafo, com acentos: e dois pontos.\nSegunda linha (com parênteses) e 50% de tudo!\n\nOutro parágrafo 🙂 com “aspas” — e travessão.\n";
    for (const parse of Object.values(parsers)) {
      const { tree, calls } = read(body, parse);
      expect(calls).toBe(0);
      expect(tree).toEqual(parse(body));
    }
  });

  it("gives micromark only the other blocks, in one call, and moves their positions to where they stand", () => {
    const body = "Um parágrafo simples.\n\n## Um título\n\n- um item\n- outro com *ênfase*\n\nDe novo prosa simples, de uma linha\nE de outra.\n\n> citação\n\nFim.";
    const { tree, calls, given } = read(body, parsers.full);
    expect(calls).toBe(1);
    expect(given).toBeLessThan(body.length - 50);
    expect(tree).toEqual(parsers.full(body));
  });

  it("leaves to micromark what only looks plain: code, containers, definitions, HTML, hard breaks", () => {
    for (const body of [
      "```\nAbc\n\nDentro do código\n```\n\nFora.\n",
      "~~~~ js\nAbc\n\n~~~\nAinda dentro\n~~~~\n\nFora.\n",
      ":::nota\nDentro\n\nAinda dentro\n:::\n\nFora.\n",
      "::::nota\n:::outra\nDentro\n:::\n\nAinda dentro\n::::\n\nFora.\n",
      "Veja [a página][p].\n\nTexto\n\n[p]: /pagina\n",
      "<div>\n\nDentro\n\n</div>\n\nFora.\n",
      "Linha com quebra  \nforçada.\n",
      "Um endereço www.exemplo.com aqui.\n\nOutro http://exemplo.com e fim.\n",
      "Diretiva :nome[x] no meio.\n\nTexto:colado.\n",
      "- item\n\n  ```\n  código\n\nFora\n```\n\nDentro de novo\n",
      "Título\n======\n\nTítulo\n---\n\nTexto\n",
      "1. um\n\nDois\n\n    indentado\n\nTrês\n",
      "Linha\r\ncom CR\r\n\r\nOutra\r\n",
    ]) {
      expectSameTree(body);
    }
  });

  it("gives what micromark gives for every Markdown file of the site and the fixtures", async () => {
    const files = (await Promise.all(["content", "tests/fixtures"].map(async (dir) => (await readdir(path.join(projectRoot, dir), { recursive: true })).map((file) => path.join(dir, file)))))
      .flat()
      .filter((file) => file.endsWith(".md") && !file.includes("node_modules"));
    expect(files.length).toBeGreaterThan(20);
    let plainSeen = 0;
    for (const file of files) {
      const body = (await readFile(path.join(projectRoot, file), "utf8")).replace(/^---\n[\s\S]*?\n---\n/, "");
      for (const [name, parse] of Object.entries(parsers)) {
        const { tree, given } = read(body, parse);
        expect(tree, `${name}: ${file}`).toEqual(parse(body));
        if (given < body.trim().length) plainSeen++;
      }
    }
    // The site's articles are mostly such paragraphs: the path is taken, not only safe.
    expect(plainSeen).toBeGreaterThan(10);
  });

  it("gives what micromark gives for generated bodies of plain and other lines", () => {
    const LINES = [
      "Texto simples", "Outra frase, com vírgula.", "Ação: com dois pontos", "Com: dois pontos:", "Emoji 🙂 e ç", "Números 123 e 4,5%", "Aspas \"duplas\" e 'simples'",
      "Fim (entre parênteses)!", "Sinal + e = e - e /", "", "", "   ", "\t", "# Título", "## Subtítulo", "- item", "* item", "+ item", "1. item", "2) item", "  continuação",
      "    código indentado", "> citação", ">", "```", "```js", "~~~", "````", ":::nota", "::::aviso", ":::", "::::", "::folha", "===", "---", "***", "| a | b |", "|---|---|",
      "Linha com *ênfase*", "Com _sublinhado_", "Com `código`", "Um [link](/x)", "![imagem](./a.png)", "Um <b>html</b>", "<div>", "</div>", "<!-- comentário -->",
      "Com \\ barra", "Com &amp; entidade", "Com ~~riscado~~", "www.exemplo.com", "http://a.b", "a@b.com", "Texto:colado", "Termina com espaço ", "Quebra  ", "Tab\tno meio",
      "[ref]: /x", "[^1]: nota", "Nota[^1]", "Letra", "É acentuada", "x", "\u00a0nbsp", "Com\u00a0nbsp", "\ufeffBOM", "Zero\u200bwidth", "Ünïcödé",
    ];
    const body = fc.array(fc.constantFrom(...LINES), { minLength: 1, maxLength: 24 }).chain((lines) => fc.constantFrom("\n", "").map((end) => lines.join("\n") + end));
    fc.assert(fc.property(body, (markdown) => expectSameTree(markdown)), { numRuns: 500 });
  });
});
