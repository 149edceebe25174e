import { NewsletterForm } from "../islands/newsletter-form.js";
import { hydrateWith } from "./hydrate.js";

export const hydrate = hydrateWith(NewsletterForm);
