/** SPEC §9: rating labels and score bands and the colour each one takes. */
export type Tone = "green" | "blue" | "yellow" | "orange" | "red" | "grey";

export function ratingTone(label: string): Tone {
  switch (label.trim().toLowerCase()) {
    case "excelente":
      return "green";
    case "boa":
      return "blue";
    case "média":
      return "yellow";
    case "básica":
      return "orange";
    case "limitada":
    case "limitado":
      return "red";
    default:
      return "grey";
  }
}

/** 9 or above green (bold), 8 or above blue, 7 or above yellow, below 7 red. */
export function scoreTone(score: number): Tone {
  if (score >= 9) return "green";
  if (score >= 8) return "blue";
  if (score >= 7) return "yellow";
  return "red";
}

/** Scores as a reader of the content's language writes them: 29,5 in pt-BR, 29.5 in en-US. */
export function formatScore(score: number, locale: string): string {
  return score.toLocaleString(locale, { maximumFractionDigits: 1 });
}
