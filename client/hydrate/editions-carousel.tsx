import { EditionsCarousel } from "../islands/editions-carousel.js";
import { hydrateWith } from "./hydrate.js";

export const hydrate = hydrateWith(EditionsCarousel);
