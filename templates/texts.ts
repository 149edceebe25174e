/**
 * The labels printed inside an article's body by its blocks and its Markdown (a statistic's
 * source, Antes/Depois, the plan's weeks, the tables' headers, the footnotes), per language:
 * the English version of an article shows the English ones.
 *
 * Every other label is a site setting (content/site.yaml `labels`). These are here because
 * the engine hands blocks, Markdown components and `markdownLabels` the article's language
 * but not the site settings. A word in braces is filled in by the block (`fill`).
 */
import type { Language } from "./schema.js";

export interface BodyLabels {
  /** Numbers in the content's style: 29,5 in Portuguese, 29.5 in English. */
  locale: string;
  /** `::stat-cards`: the line under a figure that names its source. */
  statSource: string;
  /** `::plan`: a week given as a number. */
  week: string;
  /** `::before-after`: the two columns. */
  before: string;
  after: string;
  /** `::hashtags`: the list's name for screen readers. */
  hashtags: string;
  /** A Markdown table's scrollable region. */
  table: string;
  /** `::tool-table` and `::score-table`. */
  tools: {
    region: string;
    caption: string;
    tool: string;
    criteria: { captura: string; pesquisa: string; ligacao: string; colaboracao: string; offline: string; ia: string };
    notes: string;
    link: string;
    open: string;
    winner: string;
  };
  scores: {
    region: string;
    caption: string;
    priceIA: string;
    online: string;
    versatility: string;
    total: string;
    outOf: string;
    overallWinner: string;
  };
  /** Markdown footnotes: the section's heading and the link back to where a note is cited. */
  footnotes: { label: string; back: string };
}

export const bodyLabels: Record<Language, BodyLabels> = {
  pt: {
    locale: "pt-BR",
    statSource: "Fonte: {source}",
    week: "Semana {n}",
    before: "Antes",
    after: "Depois",
    hashtags: "Hashtags",
    table: "Tabela",
    tools: {
      region: "Comparativo de ferramentas de notas",
      caption: "Comparativo de {count} ferramentas de notas",
      tool: "Ferramenta",
      criteria: { captura: "Captura", pesquisa: "Pesquisa", ligacao: "Ligação", colaboracao: "Colaboração", offline: "Offline", ia: "IA" },
      notes: "Notas",
      link: "Link",
      open: "Abrir",
      winner: "Vencedora",
    },
    scores: {
      region: "Top {count} por pontuação",
      caption: "Top {count}: notas de 0 a 10 por critério e total de 30",
      priceIA: "Preço/IA",
      online: "Online",
      versatility: "Versatilidade",
      total: "Total",
      outOf: "{score}/30",
      overallWinner: "Vencedora geral",
    },
    footnotes: { label: "Notas de rodapé", back: "Voltar ao texto" },
  },
  en: {
    locale: "en-US",
    statSource: "Source: {source}",
    week: "Week {n}",
    before: "Before",
    after: "After",
    hashtags: "Hashtags",
    table: "Table",
    tools: {
      region: "Note-taking tools compared",
      caption: "{count} note-taking tools compared",
      tool: "Tool",
      criteria: { captura: "Capture", pesquisa: "Search", ligacao: "Linking", colaboracao: "Collaboration", offline: "Offline", ia: "AI" },
      notes: "Notes",
      link: "Link",
      open: "Open",
      winner: "Winner",
    },
    scores: {
      region: "Top {count} by score",
      caption: "Top {count}: scores from 0 to 10 per criterion, out of 30 in total",
      priceIA: "Price/AI",
      online: "Online",
      versatility: "Versatility",
      total: "Total",
      outOf: "{score}/30",
      overallWinner: "Overall winner",
    },
    footnotes: { label: "Footnotes", back: "Back to content" },
  },
};

/** The labels of a content's language; the site's default (Portuguese) for any other. */
export function bodyLabelsFor(lang: string): BodyLabels {
  return lang === "en" ? bodyLabels.en : bodyLabels.pt;
}
