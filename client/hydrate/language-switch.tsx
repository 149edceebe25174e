import { LanguageSwitch } from "../islands/language-switch.js";
import { hydrateWith } from "./hydrate.js";

export const hydrate = hydrateWith(LanguageSwitch);
