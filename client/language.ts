/**
 * The reader's language choice: stored in localStorage, applied to <html> (lang, data-lang,
 * the English title where a page has one). Shared by the inline boot script and the switch.
 */
export type Language = "pt" | "en";

export const LANGUAGE_KEY = "cafe-com-a-cris:lang";

/** The stored choice; Portuguese when there is none or storage is blocked (even reading
 * `localStorage` can throw then, so it is read inside the try). */
export function storedLanguage(): Language {
  try {
    return globalThis.localStorage.getItem(LANGUAGE_KEY) === "en" ? "en" : "pt";
  } catch {
    return "pt";
  }
}

/** Applies a language to the document; the CSS shows the matching texts at once. */
export function applyLanguage(doc: Document, language: Language): void {
  const root = doc.documentElement;
  root.lang = language === "en" ? "en" : "pt-BR";
  root.dataset.lang = language;
  const title = language === "en" ? root.dataset.titleEn : root.dataset.titlePt;
  if (title) doc.title = title;
  for (const button of doc.querySelectorAll<HTMLElement>("[data-lang-button]")) {
    button.setAttribute("aria-pressed", String(button.dataset.langButton === language));
  }
}

/** Remembers the choice for the next pages and visits. */
export function saveLanguage(language: Language): void {
  try {
    globalThis.localStorage.setItem(LANGUAGE_KEY, language);
  } catch {
    // Storage blocked: the choice lasts for this page only.
  }
}

export function currentLanguage(doc: Document): Language {
  return doc.documentElement.dataset.lang === "en" ? "en" : "pt";
}
