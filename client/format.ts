/**
 * Fills the `{name}` placeholders of a label from content/site.yaml or templates/texts.ts:
 * `fill("{n} de {count}", { n: 1, count: 4 })` → "1 de 4". Used by the templates and the
 * islands alike, so the server's markup and the hydrated one read the same.
 */
export function fill(label: string, values: Record<string, string | number>): string {
  return label.replace(/\{(\w+)\}/g, (whole, name: string) => (name in values ? String(values[name]) : whole));
}

/** The placeholders a label uses: `placeholders("{n} de {count}")` → ["n", "count"]. */
export function placeholders(label: string): string[] {
  return [...label.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
}
