/**
 * The words the engine shows an author in the site's own language: the dev overlay's titles,
 * and the examples its hints give (an alt text, a month, a route). The site's language is
 * the first of its theme's `languages`; English is the default, and any language without
 * words here reads English. The messages themselves are English (as the terminal's are).
 *
 * No Node module here: the dev overlay (dev-client.ts, bundled for the browser) reads it too.
 */

export interface EngineWords {
  /** The overlay's title: `count` errors, what to do. */
  overlayTitle(count: number): string;
  /** The overlay's accessible name. */
  overlayLabel: string;
  /** The heading of the page the dev server shows while no page could be built. */
  notBuilt: string;
  /** The word before a hint in the overlay. */
  hint: string;
  /** The panel of warnings' title (`count` warnings) and its accessible name. */
  warningsTitle(count: number): string;
  warningsLabel: string;
  /** An alt text for a photo of an article's body. */
  photoAlt: string;
  /** A cover image's file name and alt text. */
  coverFile: string;
  coverAlt: string;
  /** A month and year, as a date may be written. */
  monthYear: string;
  /** An article's route, and one in a section. */
  route: string;
  sectionRoute: string;
}

const ENGLISH: EngineWords = {
  overlayTitle: (count) => `${count} ${count === 1 ? "error" : "errors"} — fix and save: the page reloads by itself`,
  overlayLabel: "Build error",
  notBuilt: "The site could not be built",
  hint: "hint",
  warningsTitle: (count) => `${count} ${count === 1 ? "warning" : "warnings"} in the content`,
  warningsLabel: "Build warnings",
  photoAlt: "The team around the table",
  coverFile: "./cover.jpg",
  coverAlt: "Two people talking in a café",
  monthYear: "August 2025",
  route: "/career-change",
  sectionRoute: "/career/new-name",
};

const PORTUGUESE: EngineWords = {
  overlayTitle: (count) => `${count} ${count === 1 ? "erro" : "erros"} — corrija e salve: a página recarrega sozinha`,
  overlayLabel: "Erro de build",
  notBuilt: "O site não pôde ser construído",
  hint: "dica",
  warningsTitle: (count) => `${count} ${count === 1 ? "aviso" : "avisos"} no conteúdo`,
  warningsLabel: "Avisos do build",
  photoAlt: "Foto da equipe",
  coverFile: "./capa.jpg",
  coverAlt: "Duas pessoas conversando num café",
  monthYear: "Agosto 2025",
  route: "/artigo-transicao",
  sectionRoute: "/carreira/novo-nome",
};

/** The engine's words for a language (`pt`, `pt-BR`, `en`…): English unless the engine has that language's. */
export function wordsFor(language: string | undefined): EngineWords {
  const primary = (language ?? "").toLowerCase().split("-")[0];
  return primary === "pt" ? PORTUGUESE : ENGLISH;
}
