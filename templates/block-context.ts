/** The blocks resolved from one article's directives, read by the `cafe-block` slots. */
import { createContext } from "react";
import type { ResolvedBlock } from "../engine/markdown.js";

export const BlockContext = createContext<readonly ResolvedBlock[]>([]);
