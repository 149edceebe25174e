/**
 * Front matter of plain `key: value` lines read without the YAML parser (`simpleYamlMap`,
 * engine/lib/yaml-source.ts): where it reads a text, the value is the parser's; where the
 * parser could read it otherwise, or fail, it leaves the text to the parser.
 */
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { parse } from "yaml";
import { parseYamlSource, simpleYamlMap } from "../engine/lib/yaml-source.js";

describe("front matter read without the YAML parser", () => {
  it("reads the usual lines: quoted titles, plain words, whole numbers", () => {
    const text = '\ntitle: "Magna: laboris est # exercitation"\ncategory: Gestão de Pessoas\nreadTime: 10\nbadge: \'Artigo da Semana\'\n';
    expect(simpleYamlMap(text)).toEqual({ title: "Magna: laboris est # exercitation", category: "Gestão de Pessoas", readTime: 10, badge: "Artigo da Semana" });
    expect(simpleYamlMap(text)).toEqual(parse(text));
  });

  it("leaves to the parser what it could read otherwise: lists, dates, booleans, escapes, comments, repeated keys", () => {
    for (const text of [
      "\ntags:\n  - a\n",
      "\ndate: 02/10/2025\n",
      "\ndraft: true\n",
      "\ndraft: No\n",
      '\ntitle: "a \\" b"\n',
      "\ntitle: a # comentário\n",
      "\n# comentário\ntitle: a\n",
      "\ntitle: a\ntitle: b\n",
      "\ntitle: a: b\n",
      "\ntitle: 007\n",
      "\ntitle: -1\n",
      "\ntitle:\n",
      "\n  title: a\n",
      "\ntitle: a\r\n",
    ]) {
      expect(simpleYamlMap(text), JSON.stringify(text)).toBeUndefined();
    }
  });

  it("gives the parser's value for every text it reads (generated lines)", () => {
    const keys = fc.constantFrom("title", "lead", "readTime", "route", "a-b", "x_1", "True", "null", "On", "y", "constructor", "tÍtulo", "2x");
    const values = fc.constantFrom(
      '"Aspas duplas: com # e ,"', "'Aspas simples'", '"com \\" escape"', "'it''s'", "10", "0", "007", "1.5", "-3", "1e3", "0x1F", ".inf", ".nan",
      "Palavras simples", "d'água e ’curva’", "a - b", "a -", "(entre)", "a/b", "true", "FALSE", "Null", "~", "yes", "no", "a: b", "a #b", "a#b",
      "[lista]", "{mapa}", "*alias", "&anchor", "!tag", "|", ">", "% x", "@x", "`x`", "2025-10-02", "12:30", "Ação", "x\ty", '"a\tb"', "\u00a0nbsp", "a\u2028b",
    );
    const line = fc.oneof(fc.tuple(keys, fc.constantFrom(": ", ":  ", ":"), values).map(([k, sep, v]) => `${k}${sep}${v}`), fc.constantFrom("", "# c", "  x: 1", "- a"));
    const text = fc.array(line, { maxLength: 6 }).map((lines) => `\n${lines.join("\n")}\n`);
    let read = 0;
    fc.assert(
      fc.property(text, (text) => {
        const simple = simpleYamlMap(text);
        if (simple === undefined) return;
        read++;
        // The parser reads it without an error, to the same value.
        expect(parseYamlSource(text, "f.md", text).value ?? {}).toEqual(simple);
      }),
      { numRuns: 3000 },
    );
    expect(read).toBeGreaterThan(100);
  });
});
