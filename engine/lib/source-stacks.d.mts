/** Stack traces that name the sources, the source maps read only when a stack is shown (source-stacks.mjs). */
export declare function sourceStacks(...dirs: string[]): void;
