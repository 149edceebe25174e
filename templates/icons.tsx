/** Card icons by lucide name ("heart-pulse"), validated at build time. */
import { icons, type LucideIcon } from "lucide-react";

function pascalCase(name: string): string {
  return name.replace(/(^|-)([a-z0-9])/g, (_, __, c: string) => c.toUpperCase());
}

export function iconByName(name: string): LucideIcon | undefined {
  return (icons as Record<string, LucideIcon>)[pascalCase(name)];
}
