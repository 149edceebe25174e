/**
 * The client entry, deferred: the only JavaScript a reader runs before interacting. It
 * marks the language buttons, logs the 404 and arms the islands; React itself loads only
 * when the reader reaches for an island.
 */
import { applyLanguage, currentLanguage } from "./language.js";
import { armIslands } from "./islands-loader.js";

applyLanguage(document, currentLanguage(document));
if (document.body.dataset.page === "not-found") {
  console.error(`404 Error: User attempted to access non-existent route: ${location.pathname}`);
}
armIslands(document);
