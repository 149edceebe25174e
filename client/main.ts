/**
 * The client entry, deferred: with the engine's islands runtime, the only JavaScript a reader
 * runs before interacting. It marks the language buttons and logs the 404; the islands
 * (templates/islands.ts) are the engine's to wake, and React loads only when one does.
 */
import { applyLanguage, currentLanguage } from "./language.js";

applyLanguage(document, currentLanguage(document));
if (document.body.dataset.page === "not-found") {
  console.error(`404 Error: User attempted to access non-existent route: ${location.pathname}`);
}
