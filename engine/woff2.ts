/**
 * TrueType → WOFF2 with the null transform (W3C WOFF2 §4–5): the font's tables as they are,
 * compressed together by Node's own Brotli. The glyf/loca transform that the reference
 * encoder adds saves a few percent on large fonts; on the handful of glyphs of a cut brand
 * font it is bytes, while the reference encoder in WebAssembly held ~40 MB for it.
 * `tests/woff2.test.ts` decodes the result with Google's reference decoder.
 */
import { brotliCompressSync, constants } from "node:zlib";
import { byCodePoint } from "./routes.js";

/** WOFF2 §5.2, table 3: tags with a one-byte index; any other is written out (index 63). */
const KNOWN_TAGS = [
  "cmap", "head", "hhea", "hmtx", "maxp", "name", "OS/2", "post", "cvt ", "fpgm", "glyf", "loca", "prep",
  "CFF ", "VORG", "EBDT", "EBLC", "gasp", "hdmx", "kern", "LTSH", "PCLT", "VDMX", "vhea", "vmtx", "BASE",
  "GDEF", "GPOS", "GSUB", "EBSC", "JSTF", "MATH", "CBDT", "CBLC", "COLR", "CPAL", "SVG ", "sbix", "acnt",
  "avar", "bdat", "bloc", "bsln", "cvar", "fdsc", "feat", "fmtx", "fvar", "gvar", "hsty", "just", "lcar",
  "mort", "morx", "opbd", "prop", "trak", "Zapf", "Silf", "Glat", "Gloc", "Feat", "Sill",
];

/** For glyf and loca the null transform is version 3; for every other table, version 0. */
const NULL_TRANSFORM_3 = new Set(["glyf", "loca"]);

/** UIntBase128: 7 bits a byte, most significant first, the high bit set on all but the last. */
function base128(value: number): number[] {
  const bytes = [value & 0x7f];
  for (let rest = Math.floor(value / 128); rest > 0; rest = Math.floor(rest / 128)) bytes.unshift((rest & 0x7f) | 0x80);
  return bytes;
}

interface Table {
  tag: string;
  data: Buffer;
}

/** The tables of a TrueType (or OpenType) font file. */
function readSfnt(font: Buffer): { flavor: number; tables: Table[] } {
  const flavor = font.readUInt32BE(0);
  const count = font.readUInt16BE(4);
  const tables: Table[] = [];
  for (let i = 0; i < count; i++) {
    const entry = 12 + i * 16;
    const tag = font.toString("latin1", entry, entry + 4);
    const offset = font.readUInt32BE(entry + 8);
    const length = font.readUInt32BE(entry + 12);
    if (offset + length > font.length) throw new Error(`font table ${tag} runs past the end of the file`);
    tables.push({ tag, data: font.subarray(offset, offset + length) });
  }
  tables.sort((a, b) => byCodePoint(a.tag, b.tag));
  return { flavor, tables };
}

export function sfntToWoff2(font: Uint8Array): Buffer {
  const { flavor, tables } = readSfnt(Buffer.from(font.buffer, font.byteOffset, font.byteLength));
  const directory: number[] = [];
  for (const { tag, data } of tables) {
    const index = KNOWN_TAGS.indexOf(tag);
    const version = NULL_TRANSFORM_3.has(tag) ? 3 : 0;
    directory.push((index === -1 ? 63 : index) | (version << 6));
    if (index === -1) directory.push(...Buffer.from(tag, "latin1"));
    directory.push(...base128(data.length));
  }
  const stream = Buffer.concat(tables.map((t) => t.data));
  const compressed = brotliCompressSync(stream, {
    params: {
      [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_FONT,
      [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
      [constants.BROTLI_PARAM_SIZE_HINT]: stream.length,
    },
  });
  const sfntSize = 12 + 16 * tables.length + tables.reduce((sum, t) => sum + Math.ceil(t.data.length / 4) * 4, 0);
  const headerSize = 48;
  const unpadded = headerSize + directory.length + compressed.length;
  const total = Math.ceil(unpadded / 4) * 4;
  const out = Buffer.alloc(total);
  out.write("wOF2", 0, "latin1");
  out.writeUInt32BE(flavor, 4);
  out.writeUInt32BE(total, 8);
  out.writeUInt16BE(tables.length, 12);
  // 14: reserved; 20: totalCompressedSize; 24: the WOFF file's version, 1.0.
  out.writeUInt32BE(sfntSize, 16);
  out.writeUInt32BE(compressed.length, 20);
  out.writeUInt16BE(1, 24);
  // 28–47: no metadata, no private data.
  Buffer.from(directory).copy(out, headerSize);
  compressed.copy(out, headerSize + directory.length);
  return out;
}
