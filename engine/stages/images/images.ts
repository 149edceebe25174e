/**
 * Stage 5 — images: the pictures authors put in articles, made ready for every screen.
 *
 * Where authors put them: beside the article (`![alt](./foto.jpg)`, relative to the Markdown
 * file), under `content/images/` (`![alt](/images/foto.jpg)`), in `public/` (`/foto.jpg`),
 * and as a cover in front matter (`image: { src: ./capa.jpg, alt: "…" }`).
 *
 * The stage runs after the Markdown and before the build stops on errors, so a bad image is
 * reported with the others, at its reference (file:line:column, code frame, hint):
 *
 *   resolve   the reference → a file (a remote address, an empty alt text, a path that
 *             leaves the site's folders: errors)
 *   inspect   the file read, hashed and its header decoded by sharp (missing, not an image,
 *             over 40 megapixels: errors)
 *   encode    AVIF, WebP and the source's own format at the widths up to its own, EXIF
 *             orientation applied and every metadata (EXIF, GPS, XMP) left behind; cached on
 *             disk by the hash of the source bytes, the options and sharp's version, so an
 *             unchanged image is never encoded twice. SVG is copied as it is.
 *
 * The Markdown stage leaves a marker where each image stands (`<engine-image data-image>`,
 * which no author can write: raw HTML is dropped); pages get the `<picture>` in its place.
 */
import { IMAGE_MARKER, type MarkdownImage } from "../markdown/image-slots.js";
import { createElement, type ReactElement } from "react";
import { renderToString } from "react-dom/server";
import { fileHash } from "../../lib/hash.js";
import { readFile, stat } from "node:fs/promises";
import path from "node:path";
import type { Metadata } from "sharp";
import { ContentError, staged, type Staged } from "../../lib/errors.js";
import { installedSharp, loadPackage } from "../../lib/packages.js";
import { cacheKey, MediaCache } from "../../incremental/media-cache.js";
import type { Article, SiteContent } from "../load/content.js";
import { locate } from "../../lib/yaml-source.js";
import { sourceText } from "../../lib/source-text.js";
import { slugify } from "../../lib/slug.js";
import { wordsFor } from "../../lib/language.js";

/** An image as the Markdown stage found it: `![alt](url)`, `{decorative}` after it or not. */
/** A cover as the front matter gives it. */
export interface CoverImage {
  src: string;
  alt?: string;
  decorative?: boolean;
}

/** An image ready to show: its files' URLs, its size, its formats. */
export interface ProcessedImage {
  /** The size of the largest file, EXIF orientation applied: `width`/`height` of the `<img>`. */
  width: number;
  height: number;
  /** The largest file in the source's own format: the `<img>`'s `src`. */
  src: string;
  /** Every width of the source's own format (`/assets/images/x-480-hash.jpg 480w, …`); none for SVG. */
  srcset?: string;
  /** The smaller formats, best first, each for a `<source>`. */
  sources: { type: string; srcset: string }[];
}

/** The widths an image is made at (up to its own) and the column it is shown in. */
export interface ImageOptions {
  /** The `sizes` of every `<picture>`: how wide the column is at each viewport width. */
  sizes: string;
  widths: readonly number[];
}

/** Sources above this are refused: a phone photo is 12 to 48 MP, and nobody needs 40 MP on a page. */
export const MAX_MEGAPIXELS = 40;
export const DEFAULT_WIDTHS = [480, 800, 1200, 1600] as const;

/**
 * Encoder settings, part of every cache key. AVIF at effort 2 and quality 45 is as small as
 * sharp's default (effort 4, quality 50) on photos, in a fifth to a tenth of the time
 * (bench/README.md); WebP and JPEG (mozjpeg) at their usual web qualities.
 */
const ENCODERS = {
  avif: { quality: 45, effort: 2 },
  webp: { quality: 75, effort: 4 },
  jpeg: { quality: 78, mozjpeg: true },
  png: { compressionLevel: 9, adaptiveFiltering: true },
  gif: {},
} as const;
type OutputFormat = keyof typeof ENCODERS;
const MIME: Record<OutputFormat | "svg", string> = {
  avif: "image/avif",
  webp: "image/webp",
  jpeg: "image/jpeg",
  png: "image/png",
  gif: "image/gif",
  svg: "image/svg+xml",
};
const EXTENSION: Record<OutputFormat | "svg", string> = { avif: "avif", webp: "webp", jpeg: "jpg", png: "png", gif: "gif", svg: "svg" };

/** What one encoded source holds: each file by `<width>.<ext>`, with its size and content hash. */
export interface Encoded {
  width: number;
  height: number;
  format: OutputFormat | "svg";
  variants: { width: number; height: number; format: OutputFormat | "svg"; hash: string; name: string }[];
}

/** A source file as last read: its bytes' key and what its header says. */
export interface Source {
  size: number;
  mtimeMs: number;
  key: string;
  /** The format of the `<img>`: the source's own (an AVIF source falls back to JPEG or PNG). */
  format: OutputFormat | "svg";
  width: number;
  height: number;
}

/** A reference to an image, resolved or not, with where to point an author at. */
interface Reference {
  url: string;
  alt: string;
  decorative: boolean;
  cover: boolean;
  file: string;
  line?: number;
  column?: number;
  /** A cover's key in the front matter: its line is found from the text when an error needs it (a parse of every cover's front matter on every build was a rebuild's only YAML parse). */
  at?: readonly string[];
  /** The article's text when the load read it, else where to read it again (`sourceText`): for an error's lines. */
  source?: string;
  path: string;
  sourceHash: string;
  key?: string;
  /** The article's language: the hints' examples are in it. */
  lang: string;
}

const FLUID = { maxWidth: "100%", height: "auto" } as const;

export interface PictureProps {
  image: ProcessedImage;
  alt: string;
  sizes: string;
  /** The image a reader sees first (a cover): fetched early, not lazily. */
  priority?: boolean;
  className?: string;
}

/**
 * An image as a `<picture>`: AVIF and WebP sources, the source's own format as the `<img>`,
 * width and height always set (no layout shift), lazy unless it is the priority image. It
 * never overflows its column and keeps its shape there (`max-width: 100%; height: auto` on
 * the element itself, so a theme's stylesheet needs no rule for it, and pages without
 * images stay exactly as they were).
 */
export function Picture({ image, alt, sizes, priority, className }: PictureProps): ReactElement {
  const loading = priority ? { fetchPriority: "high" as const } : { loading: "lazy" as const, decoding: "async" as const };
  const img = createElement("img", {
    src: image.src,
    srcSet: image.srcset,
    sizes: image.srcset ? sizes : undefined,
    width: image.width,
    height: image.height,
    alt,
    className,
    style: FLUID,
    ...loading,
  });
  if (image.sources.length === 0) return img;
  return createElement(
    "picture",
    null,
    ...image.sources.map((s) => createElement("source", { key: s.type, type: s.type, srcSet: s.srcset, sizes })),
    img,
  );
}

/** sharp (libvips) is loaded by the first build that encodes an image, not by every build (lib/packages.ts; Node keeps the module once loaded). */
const loadSharp = () => loadPackage("sharp", () => import("sharp")).then((m) => m.default);

/** The images of one build: what each address stands for, and the files to write. Plain data. */
export interface SiteImages {
  /** `file\0url` → the source path it resolved to. */
  resolved: ReadonlyMap<string, string>;
  /** The processed image of each source path. */
  ready: ReadonlyMap<string, ProcessedImage>;
  /** Every encoded file, by its path in the site. */
  files: ReadonlyMap<string, Uint8Array>;
  sizes: string;
}

/** What a page needs of the images to show them: all but their bytes. */
export type ShownImages = Omit<SiteImages, "files">;

/** The processed image `url` stands for in the article of `file`. */
export function imageOf(images: ShownImages, file: string, url: string): ProcessedImage | undefined {
  const source = images.resolved.get(`${file}\0${url}`);
  return source === undefined ? undefined : images.ready.get(source);
}

/** An article's body HTML with each image marker replaced by its `<picture>`. */
export function fillImages(images: ShownImages, html: string, file: string, list: readonly MarkdownImage[]): string {
  if (list.length === 0) return html;
  return html.replace(IMAGE_MARKER, (marker, index: string) => {
    const ref = list[Number(index)];
    const image = ref && imageOf(images, file, ref.url);
    if (!ref || !image) return marker;
    return renderToString(Picture({ image, alt: ref.decorative ? "" : ref.alt.trim(), sizes: images.sizes }));
  });
}

/**
 * What the image stage remembers from one run to the next (watch mode): each source's size,
 * time and key, so an unchanged source is not even read again, and what it encoded.
 */
export interface ImageMemory {
  sources: ReadonlyMap<string, Source>;
  encoded: ReadonlyMap<string, Encoded & { files: Map<string, Uint8Array> }>;
}

export const noImageMemory = (): ImageMemory => ({ sources: new Map(), encoded: new Map() });

/** True when `file` (absolute) is the source of an image the site shows. */
export const showsImage = (memory: ImageMemory, file: string) => memory.sources.has(file);

export interface ImageStageInput {
  content: SiteContent;
  /**
   * Each article's rendered body (the Markdown stage's, by file), whose images it reads: the
   * stage's own map, not a map of their images made for this one (held in the build's frame to
   * its end, one entry an article).
   */
  bodies: ReadonlyMap<string, { result: { images: readonly MarkdownImage[] } }>;
  projectRoot: string;
  publicDir: string;
  options: ImageOptions;
  memory: ImageMemory;
}

/** Stage 5: resolves, inspects and encodes every image the articles show; returns the images, what is wrong, and what to remember. */
export async function imageStage(input: ImageStageInput): Promise<Staged<{ images: SiteImages; memory: ImageMemory }>> {
  const work = new ImageWork(input.projectRoot, input.publicDir, input.options, input.memory);
  const { errors, images } = await work.prepare(input.content, (article) => input.bodies.get(article.file)?.result.images ?? []);
  return staged({ images, memory: { sources: work.sources, encoded: work.encoded } }, errors);
}

/** One run of the image stage: starts from what the last run remembered, and ends with what this one will. */
export class ImageWork {
  private readonly cache: MediaCache<Encoded>;
  /** What inspecting a source with sharp found (its key, format and size), by its bytes: a new process knows a source without loading sharp. */
  private readonly inspected: MediaCache<Omit<Source, "size" | "mtimeMs">>;
  /**
   * The installed sharp, read once per run without loading it (lib/packages.ts): a source's
   * inspection record is kept under it, so a sharp installed anew inspects again (and the key it
   * finds names sharp's and libvips' own versions, as before).
   */
  private readonly sharp: string;
  readonly sources: Map<string, Source>;
  readonly encoded: Map<string, Encoded & { files: Map<string, Uint8Array> }>;

  constructor(
    private readonly projectRoot: string,
    private readonly publicDir: string,
    private readonly options: ImageOptions,
    memory: ImageMemory,
  ) {
    this.cache = new MediaCache(projectRoot, "images");
    this.inspected = new MediaCache(projectRoot, "image-sources");
    this.sharp = JSON.stringify(installedSharp());
    this.sources = new Map(memory.sources);
    this.encoded = new Map(memory.encoded);
  }

  /**
   * Resolves, inspects and encodes every image the articles show; returns what is wrong.
   * `markdownImages` gives each article's body images (from the Markdown stage).
   */
  async prepare(content: SiteContent, markdownImages: (article: Article) => readonly MarkdownImage[]): Promise<{ errors: ContentError[]; images: SiteImages }> {
    const references = new Map<string, Reference[]>();
    const errors: ContentError[] = [];
    const resolved = new Map<string, string>();
    for (const article of content.articles) {
      for (const ref of referencesOf(article, markdownImages(article))) {
        const error = altError(ref);
        if (error) errors.push(error);
        const target = resolveImage(ref.url, path.resolve(this.projectRoot, ref.file), { content: path.resolve(content.root), public: this.publicDir });
        if ("error" in target) {
          errors.push(referenceError(ref, target.error, target.hint));
          continue;
        }
        resolved.set(`${ref.file}\0${ref.url}`, target.path);
        const list = references.get(target.path) ?? [];
        list.push(ref);
        references.set(target.path, list);
      }
    }
    const ready = new Map<string, ProcessedImage>();
    const files = new Map<string, Uint8Array>();
    for (const [file, refs] of references) {
      const result = await this.load(file);
      if ("error" in result) {
        errors.push(...refs.map((ref) => referenceError(ref, result.error.replace("{url}", `\`${ref.url}\``), result.hint)));
        continue;
      }
      const stem = stemOf(file);
      const urlOf = (v: Encoded["variants"][number]) => `/assets/images/${stem}-${v.format === "svg" ? "" : `${v.width}-`}${v.hash}.${EXTENSION[v.format]}`;
      for (const variant of result.variants) files.set(urlOf(variant).slice(1), result.files.get(variant.name)!);
      ready.set(file, processedImage(result, urlOf));
    }
    // Sources no longer shown are forgotten.
    for (const file of this.sources.keys()) if (!references.has(file)) this.sources.delete(file);
    const keys = new Set([...this.sources.values()].map((s) => s.key));
    for (const key of this.encoded.keys()) if (!keys.has(key)) this.encoded.delete(key);
    const images: SiteImages = { resolved, ready, files, sizes: this.options.sizes };
    return { errors, images };
  }

  /** A source file's encoded files, from memory, the disk cache, or sharp. */
  private async load(file: string): Promise<(Encoded & { files: Map<string, Uint8Array> }) | { error: string; hint?: string }> {
    const info = await stat(file).catch(() => undefined);
    if (!info?.isFile()) {
      return { error: `image {url} not found: no file ${path.relative(this.projectRoot, file) || file}`, hint: "check the file name and where it is: ./name.jpg is beside the Markdown file, /images/name.jpg is in content/images/" };
    }
    let source = this.sources.get(file);
    if (source && (source.size !== info.size || source.mtimeMs !== info.mtimeMs)) source = undefined;
    let bytes: Buffer | undefined;
    if (!source) {
      bytes = await readFile(file);
      // What an earlier process found in these bytes with this sharp, else sharp (loaded now) reads the header.
      const recordKey = cacheKey(["image-source-v1", bytes, this.sharp]);
      let inspected: Omit<Source, "size" | "mtimeMs"> | { error: string; hint?: string } | undefined = (await this.inspected.get(recordKey))?.meta;
      if (!inspected) {
        inspected = await this.inspect(bytes);
        if ("error" in inspected) return inspected;
        await this.inspected.put(recordKey, { meta: inspected, files: new Map() });
      }
      source = { size: info.size, mtimeMs: info.mtimeMs, ...inspected };
      this.sources.set(file, source);
    }
    const inMemory = this.encoded.get(source.key);
    if (inMemory) return inMemory;
    const cached = await this.cache.get(source.key);
    if (cached) {
      const entry = { ...cached.meta, files: cached.files };
      this.encoded.set(source.key, entry);
      return entry;
    }
    bytes ??= await readFile(file);
    try {
      const entry = await this.encode(bytes, source);
      const { files, ...meta } = entry;
      await this.cache.put(source.key, { meta, files });
      this.encoded.set(source.key, entry);
      return entry;
    } catch (error) {
      this.sources.delete(file);
      return { error: `{url} could not be decoded: ${(error as Error).message}`, hint: "the file may be damaged or cut short: export it again as JPEG, PNG, WebP, AVIF or GIF" };
    }
  }

  /** Reads a source's header: its format and size, and whether the site can show it. */
  private async inspect(bytes: Buffer): Promise<Omit<Source, "size" | "mtimeMs"> | { error: string; hint?: string }> {
    const sharp = await loadSharp();
    let meta: Metadata;
    try {
      meta = await sharp(bytes, { limitInputPixels: false }).metadata();
    } catch (error) {
      return {
        error: `{url} is not an image that can be read (${(error as Error).message})`,
        hint: "use a JPEG, PNG, WebP, AVIF, GIF or SVG file; renaming a file does not convert it",
      };
    }
    const decoded = formatOf(meta);
    if (!decoded) {
      return { error: `{url} is a ${meta.format} image, which browsers do not show`, hint: "export it as JPEG (photos) or PNG (drawings, screenshots)" };
    }
    // An AVIF source is shown through <picture> too: its <img> is for browsers without AVIF.
    const format = decoded === "avif" ? (meta.hasAlpha ? "png" : "jpeg") : decoded;
    const width = meta.autoOrient?.width ?? meta.width ?? 0;
    const height = meta.autoOrient?.height ?? meta.height ?? 0;
    const megapixels = (width * height) / 1e6;
    if (megapixels > MAX_MEGAPIXELS) {
      return {
        error: `{url} is ${megapixels.toFixed(1)} megapixels (${width}×${height}); the limit is ${MAX_MEGAPIXELS}`,
        hint: `scale it down before adding it: ${Math.max(...this.options.widths)} pixels wide is the largest this site shows`,
      };
    }
    const key = cacheKey(["image-v1", bytes, JSON.stringify({ ENCODERS, widths: this.options.widths }), sharp.versions.sharp ?? "", sharp.versions.vips]);
    return { key, format, width, height };
  }

  /** Every width and format of one source; SVG as it is. */
  private async encode(bytes: Buffer, source: Source): Promise<Encoded & { files: Map<string, Uint8Array> }> {
    const files = new Map<string, Uint8Array>();
    const hash = (data: Uint8Array) => fileHash(data);
    if (source.format === "svg") {
      files.set("image.svg", bytes);
      const variant = { width: source.width, height: source.height, format: "svg" as const, hash: hash(bytes), name: "image.svg" };
      return { width: source.width, height: source.height, format: "svg", variants: [variant], files };
    }
    const sharp = await loadSharp();
    const largest = Math.min(source.width, Math.max(...this.options.widths));
    const widths = [...this.options.widths.filter((w) => w < largest), largest];
    const fallback = source.format;
    const formats = [...new Set<OutputFormat>(["avif", "webp", fallback])];
    // EXIF orientation first; the output carries no metadata (sharp writes none unless asked).
    const base = sharp(bytes, { limitInputPixels: MAX_MEGAPIXELS * 1e6, failOn: "error" }).rotate();
    const jobs = widths.flatMap((width) =>
      formats.map(async (format) => {
        const { data, info } = await base
          .clone()
          .resize({ width, withoutEnlargement: true })
          .toFormat(format, ENCODERS[format])
          .toBuffer({ resolveWithObject: true });
        const name = `${width}.${EXTENSION[format]}`;
        files.set(name, data);
        return { width: info.width, height: info.height, format, hash: hash(data), name };
      }),
    );
    const variants = await Promise.all(jobs);
    const top = variants.find((v) => v.width === largest && v.format === fallback)!;
    return { width: top.width, height: top.height, format: fallback, variants, files };
  }
}

/** The images an article shows: its cover first, then its body's in order. */
function referencesOf(article: Article, body: readonly MarkdownImage[]): Reference[] {
  const refs: Reference[] = [];
  const cover = article.meta.image as CoverImage | undefined;
  if (cover) {
    refs.push({ url: cover.src, alt: cover.alt ?? "", decorative: cover.decorative === true, cover: true, file: article.file, lang: article.lang, at: ["image", "src"], ...textOf(article), key: "image.src" });
  }
  for (const image of body) refs.push({ ...image, cover: false, file: article.file, ...textOf(article), lang: article.lang });
  return refs;
}

/** Where an article's text is: its own when the load read it, else its file and hash. */
const textOf = ({ source, path, sourceHash }: Article) => ({ ...(source === undefined ? {} : { source }), path, sourceHash });

/** An error at an image's reference: a body image knows its own line, a cover's is found at its key. */
function referenceError(ref: Reference, message: string, hint?: string): ContentError {
  const source = sourceText(ref);
  const at = ref.at ? locate({ file: ref.file, source, format: "front-matter" }, ref.at) : ref;
  return new ContentError({ file: ref.file, line: at?.line, column: at?.column, source, key: ref.key, message, hint });
}

/** Every image needs its alt text, unless it says it is decorative (and then it has none). */
function altError(ref: Reference): ContentError | undefined {
  const alt = ref.alt.trim();
  if (ref.decorative && alt) {
    return ref.cover
      ? referenceError(ref, "the cover is marked `decorative: true` but has alt text", "a decorative image has no alt text: remove one of the two")
      : referenceError(ref, `image \`${ref.url}\` is marked {decorative} but has alt text`, `a decorative image has no alt text: remove one of the two, ![](${ref.url}){decorative} or ![${alt}](${ref.url})`);
  }
  if (ref.decorative || alt) return undefined;
  const words = wordsFor(ref.lang);
  return ref.cover
    ? referenceError(ref, "the cover image has no alt text", `describe it for readers who cannot see it: \`image: { src: ${words.coverFile}, alt: "${words.coverAlt}" }\`; if it adds nothing to the text, write \`decorative: true\` instead`)
    : referenceError(
        ref,
        `image \`${ref.url}\` has no alt text`,
        `describe it for readers who cannot see it: ![${words.photoAlt}](${ref.url}); if it adds nothing to the text, mark it ![](${ref.url}){decorative}`,
      );
}

/**
 * Where an image reference points: `./x.jpg` beside the Markdown file, `/images/x.jpg` in
 * `content/images/`, any other `/x.jpg` in `public/`. Remote images are refused: the site's
 * security policy allows only its own (`img-src 'self'`).
 */
export function resolveImage(url: string, markdownFile: string, dirs: { content: string; public: string }): { path: string } | { error: string; hint: string } {
  if (/^(https?:)?\/\//i.test(url)) {
    return {
      error: `remote image \`${url}\`: pages show only the site's own images`,
      hint: "download it into content/images/ and write ![…](/images/name.jpg) (check that its licence allows it, and credit the author)",
    };
  }
  if (/^[a-z][a-z0-9+.-]*:/i.test(url)) {
    return { error: `image address \`${url}\` is not allowed`, hint: "put the image beside the article (./name.jpg) or in content/images/ (/images/name.jpg)" };
  }
  let decoded: string;
  try {
    decoded = decodeURIComponent(url.replace(/[?#].*$/, ""));
  } catch {
    decoded = url;
  }
  const file = decoded.startsWith("/images/")
    ? path.join(dirs.content, decoded)
    : decoded.startsWith("/")
      ? path.join(dirs.public, decoded)
      : path.resolve(path.dirname(markdownFile), decoded);
  const inside = (dir: string) => !path.relative(dir, file).startsWith("..");
  if (!inside(dirs.content) && !inside(dirs.public)) {
    return { error: `image \`${url}\` is outside the site's folders`, hint: "put the image beside the article (./name.jpg) or in content/images/ (/images/name.jpg)" };
  }
  return { path: file };
}

function formatOf(meta: Metadata): OutputFormat | "svg" | undefined {
  switch (meta.format) {
    case "jpeg":
    case "png":
    case "webp":
    case "gif":
    case "svg":
      return meta.format;
    case "heif":
      // AVIF is HEIF with AV1 inside; other HEIF (iPhone photos) browsers mostly do not show.
      return meta.compression === "av1" ? "avif" : undefined;
    default:
      return undefined;
  }
}

/** `Foto da Equipe.JPG` → `foto-da-equipe`: a readable, URL-safe start for the hashed names. */
function stemOf(file: string): string {
  const stem = slugify(path.basename(file, path.extname(file)));
  return stem || "image";
}

function processedImage(encoded: Encoded, urlOf: (v: Encoded["variants"][number]) => string): ProcessedImage {
  const byFormat = (format: Encoded["format"]) =>
    encoded.variants
      .filter((v) => v.format === format)
      .sort((a, b) => a.width - b.width)
      .map((v) => `${urlOf(v)} ${v.width}w`)
      .join(", ");
  const top = encoded.variants.find((v) => v.format === encoded.format && v.width === encoded.width)!;
  if (encoded.format === "svg") return { width: encoded.width, height: encoded.height, src: urlOf(top), sources: [] };
  const modern = (["avif", "webp"] as const).filter((f) => f !== encoded.format);
  return {
    width: encoded.width,
    height: encoded.height,
    src: urlOf(top),
    srcset: byFormat(encoded.format),
    sources: modern.map((f) => ({ type: MIME[f], srcset: byFormat(f) })),
  };
}
