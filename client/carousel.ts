/** The carousel's arithmetic (SPEC §4): it wraps around in both directions. */
export const nextIndex = (index: number, count: number) => (index + 1) % count;
export const previousIndex = (index: number, count: number) => (index - 1 + count) % count;
