/**
 * Markup that is the same wherever it appears, such as an icon at one size. A build renders
 * it once and splices the same bytes into every page that shows it (engine/render.ts): a
 * lucide icon costs ~20 µs to render, several times per page. In the browser, and in a build
 * that renders every page whole, it is the element itself.
 */
import { createContext, useContext, type ReactElement } from "react";
import type { LucideIcon, LucideProps } from "lucide-react";

/** Renders `element` once per build under `key` and returns what stands in for it. */
export type SharePart = (key: string, element: ReactElement) => ReactElement;

export const SharedParts = createContext<SharePart | undefined>(undefined);

/** A lucide icon, rendered once per build for each set of props. */
export function SharedIcon({ icon: Icon, ...props }: { icon: LucideIcon } & LucideProps) {
  const share = useContext(SharedParts);
  const element = <Icon {...props} />;
  // The name and the props decide the markup; an icon without a name is rendered in place.
  return share && Icon.displayName ? share(`icon:${Icon.displayName}:${JSON.stringify(props)}`, element) : element;
}
