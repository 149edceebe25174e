/** A heading whose level the Markdown stage chose from the section the block stands in. */
import type { ReactNode } from "react";
import type { BlockData, LeafBlockName } from "../../engine/schema.js";

export type BlockProps<N extends LeafBlockName> = { data: BlockData<N>; level: number };

export function Heading({ level, className, children }: { level: number; className?: string; children: ReactNode }) {
  const Tag = `h${Math.min(Math.max(level, 2), 6)}` as "h2";
  return <Tag className={className}>{children}</Tag>;
}
