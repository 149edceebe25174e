/**
 * Markup that is the same wherever it appears: the header, newsletter, footer and notices
 * every page shows, an icon at one size. A build renders each once and splices the same
 * bytes into every page that shows it (engine/render.ts); a lucide icon alone costs ~20 µs
 * to render, several times per page. In the browser, and in a build that renders every page
 * whole, it is the element itself.
 */
import { createContext, useContext, type ReactElement } from "react";
import type { LucideIcon, LucideProps } from "lucide-react";

/** Renders `element` once per build under `key` and returns what stands in for it. */
export type SharePart = (key: string, element: ReactElement) => ReactElement;

export const SharedParts = createContext<SharePart | undefined>(undefined);

/** `children`, rendered once per build under the name `part`: the same markup on every page. */
export function Shared({ part, children }: { part: string; children: ReactElement }) {
  const share = useContext(SharedParts);
  return share ? share(part, children) : children;
}

/** A lucide icon, rendered once per build for each set of props. */
export function SharedIcon({ icon: Icon, ...props }: { icon: LucideIcon } & LucideProps) {
  const element = <Icon {...props} />;
  // The name and the props decide the markup; an icon without a name is rendered in place.
  return Icon.displayName ? <Shared part={`icon:${Icon.displayName}:${JSON.stringify(props)}`}>{element}</Shared> : element;
}
