/** "Gestão de Pessoas em 2025!" → "gestao-de-pessoas-em-2025": lowercase ASCII letters, digits and hyphens. */
export function slugify(text: string): string {
  return text
    .normalize("NFD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "");
}
