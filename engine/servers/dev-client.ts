/**
 * Dev mode only (never in a built site): live reload, the error overlay and the panel of
 * warnings. The dev server sends `ok` with the routes a rebuild changed, or `build-error` with
 * the errors and the site's language, which the overlay's own words follow (English unless the
 * engine has the language's: engine/lib/language.ts), and `warnings` with the site's warnings
 * whenever they change.
 */
import { wordsFor } from "../lib/language.js";

interface ReportedError {
  location: string;
  message: string;
  hint?: string;
  frame?: string;
}

/** A warning as the dev server sends it. */
interface ReportedWarning {
  location: string;
  message: string;
  notice?: boolean;
}

const OVERLAY_ID = "cafe-dev-overlay";
const WARNINGS_ID = "cafe-dev-warnings";

/**
 * The warnings of the site (an editorial rule the text breaks, a title an app will cut): a
 * panel in a corner, closed to a line until opened, that never covers the page the way the
 * error overlay does. Replaced on every build; gone when there are none.
 */
function showWarnings(warnings: ReportedWarning[], language: string | undefined): void {
  const words = wordsFor(language);
  document.getElementById(WARNINGS_ID)?.remove();
  const problems = warnings.filter((w) => !w.notice);
  if (problems.length === 0) return;
  const panel = document.createElement("aside");
  panel.id = WARNINGS_ID;
  panel.setAttribute("aria-label", words.warningsLabel);
  panel.style.cssText =
    "position:fixed;right:1rem;bottom:1rem;z-index:2147483646;max-width:min(40rem,calc(100vw - 2rem));max-height:60vh;overflow:auto;background:#2a1a10;color:#fdf3e7;border-left:4px solid #fcd34d;border-radius:8px;box-shadow:0 4px 16px rgba(0,0,0,.35);font:13px/1.5 ui-monospace,SFMono-Regular,Menlo,monospace";
  const details = document.createElement("details");
  const summary = document.createElement("summary");
  summary.textContent = words.warningsTitle(problems.length);
  summary.style.cssText = "cursor:pointer;padding:.5rem 1rem;font:700 14px/1.3 system-ui,sans-serif;color:#fcd34d";
  const list = document.createElement("ul");
  list.style.cssText = "margin:0;padding:0 1rem .75rem 2rem";
  for (const warning of problems) {
    const item = document.createElement("li");
    item.className = "cafe-dev-warning";
    const where = document.createElement("span");
    where.className = "cafe-dev-location";
    where.textContent = warning.location;
    where.style.color = "#fcd34d";
    item.append(where, `: ${warning.message}`);
    item.style.margin = ".35rem 0";
    list.append(item);
  }
  details.append(summary, list);
  panel.append(details);
  document.body.append(panel);
}

function showOverlay(errors: ReportedError[], language: string | undefined): void {
  const words = wordsFor(language);
  document.getElementById(OVERLAY_ID)?.remove();
  const overlay = document.createElement("div");
  overlay.id = OVERLAY_ID;
  overlay.setAttribute("role", "alertdialog");
  overlay.setAttribute("aria-modal", "true");
  overlay.setAttribute("aria-label", words.overlayLabel);
  overlay.style.cssText =
    "position:fixed;inset:0;z-index:2147483647;overflow:auto;padding:2rem;background:rgba(20,12,8,.92);color:#fdf3e7;font:14px/1.5 ui-monospace,SFMono-Regular,Menlo,monospace";
  const title = document.createElement("h2");
  title.textContent = words.overlayTitle(errors.length);
  title.style.cssText = "margin:0 0 1.5rem;font:700 18px/1.3 system-ui,sans-serif;color:#fecaca";
  overlay.append(title);
  for (const error of errors) {
    const box = document.createElement("section");
    box.className = "cafe-dev-error";
    box.style.cssText = "margin:0 0 1.5rem;padding:1rem 1.25rem;border-left:4px solid #f87171;background:#2a1a10;border-radius:8px";
    const where = document.createElement("p");
    where.className = "cafe-dev-location";
    where.textContent = error.location;
    where.style.cssText = "margin:0;color:#fcd34d";
    const message = document.createElement("p");
    message.className = "cafe-dev-message";
    message.textContent = error.message;
    message.style.cssText = "margin:.25rem 0 .75rem;font-weight:700;color:#fff";
    box.append(where, message);
    if (error.frame) {
      const frame = document.createElement("pre");
      frame.textContent = error.frame;
      frame.style.cssText = "margin:0 0 .75rem;overflow:auto;color:#e7d5c2";
      box.append(frame);
    }
    if (error.hint) {
      const hint = document.createElement("p");
      hint.className = "cafe-dev-hint";
      hint.textContent = `${words.hint}: ${error.hint}`;
      hint.style.cssText = "margin:0;color:#86efac";
      box.append(hint);
    }
    overlay.append(box);
  }
  document.body.append(overlay);
}

// The page says where it is: a rebuild renders the pages open in a browser first, and reloads each as soon as it is written.
const events = new EventSource(`/__cafe/events?page=${encodeURIComponent(location.pathname)}`);
events.addEventListener("open", () => {
  document.documentElement.dataset.devServer = "connected";
});
events.addEventListener("build-error", (event) => {
  const { errors, language } = JSON.parse((event as MessageEvent<string>).data) as { errors: ReportedError[]; language?: string };
  showOverlay(errors, language);
});
events.addEventListener("warnings", (event) => {
  const { warnings, language } = JSON.parse((event as MessageEvent<string>).data) as { warnings: ReportedWarning[]; language?: string };
  showWarnings(warnings, language);
});
events.addEventListener("ok", (event) => {
  const { routes } = JSON.parse((event as MessageEvent<string>).data) as { routes: string[] };
  const hadOverlay = document.getElementById(OVERLAY_ID) !== null;
  // The dev server's own pages (the share preview) show every page: any change is theirs.
  const devPage = location.pathname.startsWith("/__cafe/");
  if (hadOverlay || devPage || routes.includes("*") || routes.includes(location.pathname)) location.reload();
});
