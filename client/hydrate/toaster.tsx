import { hydrateRoot } from "react-dom/client";
import { Toaster, type ToasterProps } from "../islands/toaster.js";

export function hydrate(element: HTMLElement, props: unknown): void {
  hydrateRoot(element, <Toaster {...(props as ToasterProps)} />);
}
