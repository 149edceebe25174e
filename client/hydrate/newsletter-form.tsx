import { hydrateRoot } from "react-dom/client";
import { NewsletterForm, type NewsletterFormProps } from "../islands/newsletter-form.js";

export function hydrate(element: HTMLElement, props: unknown): void {
  hydrateRoot(element, <NewsletterForm {...(props as NewsletterFormProps)} />);
}
