/**
 * Language-dependent text. Both languages are in the HTML; CSS shows the one matching
 * `<html data-lang>`, which the inline head script sets before first paint. Without
 * JavaScript the page is Portuguese.
 */
import type { ReactNode } from "react";

export function T({ pt, en }: { pt: ReactNode; en?: ReactNode }) {
  if (en === undefined) return <>{pt}</>;
  return (
    <>
      <span data-l="pt">{pt}</span>
      <span data-l="en" lang="en">
        {en}
      </span>
    </>
  );
}
