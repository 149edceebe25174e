import { hydrateRoot } from "react-dom/client";
import { EditionsCarousel, type EditionsCarouselProps } from "../islands/editions-carousel.js";

export function hydrate(element: HTMLElement, props: unknown): void {
  hydrateRoot(element, <EditionsCarousel {...(props as EditionsCarouselProps)} />);
}
