import { ShareButton } from "../islands/share-button.js";
import { hydrateWith } from "./hydrate.js";

export const hydrate = hydrateWith(ShareButton);
