/** What every benchmark prints its figures with: medians, ranges, and the machine's load. */
import { execFileSync } from "node:child_process";

/** The median of the samples (the upper one of an even count). */
export const median = (xs: readonly number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** "median (min–max)", with `digits` decimals. */
export const range = (xs: readonly number[], digits = 2) => `${median(xs).toFixed(digits)} (${Math.min(...xs).toFixed(digits)}–${Math.max(...xs).toFixed(digits)})`;

/** `uptime`'s line: the load a series started and ended at, written beside its figures. */
export const uptime = () => execFileSync("uptime", { encoding: "utf8" }).trim();
