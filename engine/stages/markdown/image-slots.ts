/**
 * Where the Markdown stage leaves an article's images: each image of a body is noted
 * (`MarkdownImage`) and its place marked in the HTML (`ImageSlot`); the images stage makes
 * the files, and a page's render puts each `<picture>` in its marker's place (images.ts).
 */
import { createElement, type ReactElement } from "react";

/** An image written in an article's Markdown, in order. */
export interface MarkdownImage {
  url: string;
  alt: string;
  decorative: boolean;
  line?: number;
  column?: number;
}

/** The marker of the image at an index of its body's list, as the HTML holds it. */
export const IMAGE_MARKER = /<engine-image data-image="(\d+)"><\/engine-image>/g;

/** Where the Markdown stage puts an image: a marker the page render replaces with its `<picture>`. */
export function ImageSlot({ "data-image": index }: { "data-image"?: string }): ReactElement {
  return createElement("engine-image", { "data-image": index });
}
