// Inlined in <head> and run before first paint, so a reader who chose English never sees a
// flash of Portuguese. Bundled on its own (no React): only what must act before paint.
import { storedLanguage } from "./language.js";

const root = document.documentElement;
root.classList.remove("no-js");
root.classList.add("js");
if (storedLanguage() === "en") {
  root.lang = "en";
  root.dataset.lang = "en";
  if (root.dataset.titleEn) document.title = root.dataset.titleEn;
}
