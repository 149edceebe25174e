import { Toaster } from "../islands/toaster.js";
import { hydrateWith } from "./hydrate.js";

export const hydrate = hydrateWith(Toaster);
