/** A heading whose level the Markdown stage chose from the section the block stands in. */
import type { ReactNode } from "react";
import type { BlockProps as EngineBlockProps } from "../../engine/index.js";
import type { BlockData, LeafBlockName } from "../schema.js";

/** What the block `N` receives: its validated data, its heading level, its page's language. */
export type BlockProps<N extends LeafBlockName> = EngineBlockProps<BlockData<N>>;

export function Heading({ level, className, children }: { level: number; className?: string; children: ReactNode }) {
  const Tag = `h${Math.min(Math.max(level, 2), 6)}` as "h2";
  return <Tag className={className}>{children}</Tag>;
}
