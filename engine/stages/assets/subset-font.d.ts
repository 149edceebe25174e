/** subset-font: harfbuzz's hb-subset, compiled to WebAssembly. */
declare module "subset-font" {
  export default function subsetFont(
    font: Uint8Array,
    text: string,
    options?: { targetFormat?: "woff2" | "woff" | "truetype" | "sfnt" },
  ): Promise<Buffer>;
}
