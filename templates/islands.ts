/**
 * This blog's islands (engine/README.md, "Islands"): each component is rendered by the server
 * and hydrated in the browser from its own chunk when it wakes. The theme lists them in
 * `assets.islands`; the templates render them with their props and when they wake.
 */
import { defineIsland } from "../engine/index.js";
import { LanguageSwitch } from "../client/islands/language-switch.js";
import { ShareButton } from "../client/islands/share-button.js";
import { NewsletterForm } from "../client/islands/newsletter-form.js";
import { EditionsCarousel } from "../client/islands/editions-carousel.js";
import { Toaster } from "../client/islands/toaster.js";

export const LanguageSwitchIsland = defineIsland({ name: "language-switch", module: "client/islands/language-switch.tsx", export: "LanguageSwitch", component: LanguageSwitch });
export const ShareIsland = defineIsland({ name: "share", module: "client/islands/share-button.tsx", export: "ShareButton", component: ShareButton });
export const NewsletterIsland = defineIsland({ name: "newsletter", module: "client/islands/newsletter-form.tsx", export: "NewsletterForm", component: NewsletterForm });
export const CarouselIsland = defineIsland({ name: "editions-carousel", module: "client/islands/editions-carousel.tsx", export: "EditionsCarousel", component: EditionsCarousel });
/** Woken by the first toast (client/toast.ts), not by the reader: until then it is an empty live region. */
export const ToasterIsland = defineIsland({ name: "toaster", module: "client/islands/toaster.tsx", export: "Toaster", component: Toaster });

export const islands = [LanguageSwitchIsland, ShareIsland, NewsletterIsland, CarouselIsland, ToasterIsland];
