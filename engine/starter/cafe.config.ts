/** The site's config: `cafe build`, `cafe dev` and the other commands read it from this folder. */
import { defineConfig } from "cafe-engine";
import { theme } from "./theme/theme.js";

export default defineConfig({ theme });
