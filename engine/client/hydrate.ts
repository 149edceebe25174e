/**
 * The hydration an island's chunk runs (the assets stage writes each chunk's entry: the
 * island's component, this, and React as the site has it). React is handed in rather than
 * imported so that the chunk uses the site's one copy of it, wherever the engine is installed.
 */
import type { ComponentType, ReactNode } from "react";
import type { hydrateRoot as HydrateRoot } from "react-dom/client";

type ReactApi = Pick<typeof import("react"), "createElement" | "useEffect">;

/** Hydrates `Component` into its island's element, and resolves once React has committed it (its handlers are attached). */
export function hydrator<P extends object>(Component: ComponentType<P>, React: ReactApi, hydrateRoot: typeof HydrateRoot) {
  function Committed({ onCommit, children }: { onCommit: () => void; children?: ReactNode }) {
    React.useEffect(onCommit, [onCommit]);
    return children;
  }
  return (element: HTMLElement, props: unknown): Promise<void> =>
    new Promise((resolve) => {
      hydrateRoot(element, React.createElement(Committed, { onCommit: resolve }, React.createElement(Component, props as P)));
    });
}
