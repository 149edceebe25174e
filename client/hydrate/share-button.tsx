import { hydrateRoot } from "react-dom/client";
import { ShareButton, type ShareButtonProps } from "../islands/share-button.js";

export function hydrate(element: HTMLElement, props: unknown): void {
  hydrateRoot(element, <ShareButton {...(props as ShareButtonProps)} />);
}
