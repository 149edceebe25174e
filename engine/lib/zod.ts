/**
 * zod as the engine's bundle holds it. A site's config and theme import "zod" from here (the
 * launcher makes their import of "zod" one of this entry of the engine's bundle): one copy of
 * zod, whose registry keeps the schemas' `.describe()` texts that the engine reads for the
 * editors' schemas, and whose classes the engine's checks recognise.
 */
export * from "zod";
export { default } from "zod";
