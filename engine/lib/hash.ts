/** Hashes of content, and values sealed with the hash of their JSON (what the cache's store.json keeps). */
import { createHash, hash, type Hash } from "node:crypto";

export const hashOf = (...parts: (string | Uint8Array)[]): string => hashOfAll(parts);

/**
 * The hash of a list of parts of any length (a site's every article: no spread into a call).
 * The same bytes as `feed` gives a hash; a few strings (a route's parts, a value's JSON: a
 * hundred thousand of them in a large site's rebuild) are hashed in one call, without a hash
 * object made for each.
 */
export function hashOfAll(parts: Iterable<string | Uint8Array>): string {
  let text = "";
  let hashing: Hash | undefined;
  for (const part of parts) {
    if (typeof part === "string") {
      text += `${Buffer.byteLength(part)}:${part}`;
      if (text.length < 65_536) continue;
      (hashing ??= createHash("sha1")).update(text);
    } else (hashing ??= createHash("sha1")).update(`${text}${part.length}:`).update(part);
    text = "";
  }
  if (!hashing) return hash("sha1", text, "base64url");
  if (text !== "") hashing.update(text);
  return hashing.digest("base64url");
}

/**
 * Feeds parts to a hash, each preceded by its length in bytes: no two lists of parts feed the
 * same bytes (["a\0", "b"] and ["a", "\0b"] would, joined by a separator).
 */
export function feed(hash: Hash, parts: Iterable<string | Uint8Array>): Hash {
  // Strings are fed as one text of the same bytes (each UTF-8 part after its byte length), a
  // few tens of kilobytes at a time: a buffer and two calls into the hash for each part was
  // most of the time of hashing many small ones (a route, every article's name and text hash).
  let text = "";
  for (const part of parts) {
    if (typeof part === "string") {
      text += `${Buffer.byteLength(part)}:${part}`;
      if (text.length < 65_536) continue;
      hash.update(text);
    } else hash.update(`${text}${part.length}:`).update(part);
    text = "";
  }
  if (text !== "") hash.update(text);
  return hash;
}

/**
 * A value with the hash of its JSON: one that was damaged on disk does not match and is not
 * used. For the values of the store's store.json (the validated settings and data files); the
 * values in its shards are not sealed one by one, as each shard is checked whole.
 */
export type Sealed<T> = { value: T; check: string };

export function seal<T>(value: T): Sealed<T> {
  return { value, check: hashOf(JSON.stringify(value)) };
}

/** The value, if it is what was sealed. */
export function unseal<T>(sealed: Sealed<T> | undefined): T | undefined {
  if (!sealed || typeof sealed !== "object") return undefined;
  if (sealed.check !== hashOf(JSON.stringify(sealed.value))) return undefined;
  return sealed.value;
}

/**
 * A copy of `value` read back from its JSON: a value of JSON's kind whose strings are its own.
 * A value parsed out of a larger text holds slices of it, and V8 keeps a slice's whole text
 * alive: an article's title kept its file's whole text.
 */
export const jsonCopy = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

/** An object with keys (not null, not an array): what a stored entry read back must be before its fields are read. */
export const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/** True when a value survives JSON unchanged (no NaN, Infinity, undefined in arrays, class instances). */
export function isJsonSafe(value: unknown): boolean {
  if (value === null || typeof value === "string" || typeof value === "boolean") return true;
  if (typeof value === "number") return Number.isFinite(value);
  if (Array.isArray(value)) return value.every((v) => v !== undefined && isJsonSafe(v));
  if (typeof value === "object") {
    const proto = Object.getPrototypeOf(value);
    return (proto === Object.prototype || proto === null) && Object.values(value).every((v) => v === undefined || isJsonSafe(v));
  }
  return false;
}

/** True when JSON gives back this very value: no key whose value is undefined (JSON drops it), nothing `isJsonSafe` refuses. */
export function exactJson(value: unknown): boolean {
  if (Array.isArray(value)) return value.every(exactJson);
  if (value && typeof value === "object") return isJsonSafe(value) && Object.values(value).every((v) => v !== undefined && exactJson(v));
  return isJsonSafe(value);
}

/** A file's content in its name (`x-<hash>.png`): sha256, hex, its first `length` characters. */
export const fileHash = (data: string | Uint8Array, length = 10): string => createHash("sha256").update(data).digest("hex").slice(0, length);

/** A script as a Content-Security-Policy names it (`'sha256-…'`): sha256, base64. */
export const scriptHash = (script: string): string => createHash("sha256").update(script).digest("base64");
