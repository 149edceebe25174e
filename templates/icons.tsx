/**
 * Card icons by lucide name ("heart-pulse"). Each icon is its own module, loaded when a card
 * asks for it, so a build never loads the thousands of icons it does not use.
 */
import type { LucideIcon } from "lucide-react";

const loaded = new Map<string, LucideIcon | undefined>();

/** Loads the named icons; returns the names that do not exist. */
export async function loadIcons(names: readonly string[]): Promise<string[]> {
  const missing: string[] = [];
  await Promise.all(
    [...new Set(names)].map(async (name) => {
      if (!loaded.has(name)) {
        const icon = /^[a-z0-9]+(-[a-z0-9]+)*$/.test(name)
          ? await import(`lucide-react/icons/${name}`).then((m: { default: LucideIcon }) => m.default, () => undefined)
          : undefined;
        loaded.set(name, icon);
      }
      if (!loaded.get(name)) missing.push(name);
    }),
  );
  return missing;
}

/** An icon loaded by `loadIcons`. */
export function iconByName(name: string): LucideIcon | undefined {
  return loaded.get(name);
}
