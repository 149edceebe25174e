/** Hydrates a component into its island and resolves once React has committed it. */
import { useEffect, type ComponentType } from "react";
import { hydrateRoot } from "react-dom/client";

function Committed({ onCommit, children }: { onCommit: () => void; children: React.ReactNode }) {
  useEffect(onCommit, [onCommit]);
  return children;
}

export function hydrateWith<P extends object>(Component: ComponentType<P>) {
  return (element: HTMLElement, props: unknown): Promise<void> =>
    new Promise((resolve) => {
      hydrateRoot(
        element,
        <Committed onCommit={resolve}>
          <Component {...(props as P)} />
        </Committed>,
      );
    });
}
