/**
 * What Compartilhar does (SPEC §4, §8, DECISIONS "Sharing"): the native share sheet where
 * there is one, otherwise the link is copied. Every per-page difference comes from the
 * page's front matter (`settings`), never from a branch on the route.
 */
import type { ShareSettings } from "../templates/schema.js";
import type { ToastInput } from "./toast.js";

export interface ShareRequest {
  title: string;
  text?: string;
  url: string;
  copiedTitle: string;
  copiedMessage: string;
  alertMessage: string;
  settings: ShareSettings;
}

/** The browser features sharing uses, passed in so tests can stand in for them. */
export interface ShareEnvironment {
  share?: (data: ShareData) => Promise<void>;
  writeText?: (text: string) => Promise<void>;
  alert: (message: string) => void;
  toast: (toast: ToastInput) => void;
  logError: (...args: unknown[]) => void;
}

export type ShareOutcome = "shared" | "cancelled" | "logged" | "copied" | "copy-failed";

export async function sharePage(request: ShareRequest, env: ShareEnvironment): Promise<ShareOutcome> {
  const { settings } = request;
  if (env.share) {
    try {
      await env.share({ title: request.title, url: request.url, ...(request.text ? { text: request.text } : {}) });
      return "shared";
    } catch (error) {
      if ((error as Error | undefined)?.name === "AbortError") return "cancelled";
      if (settings.onShareError === "log") {
        env.logError("Erro ao compartilhar:", error);
        return "logged";
      }
      // Any other failure: copy the link instead.
    }
  }
  return copyLink(request, env);
}

async function copyLink(request: ShareRequest, env: ShareEnvironment): Promise<ShareOutcome> {
  try {
    if (!env.writeText) throw new Error("Clipboard API unavailable");
    await env.writeText(request.url);
  } catch (error) {
    env.logError("Não foi possível copiar o link:", error);
    if (request.settings.copyError) {
      env.toast({ ...request.settings.copyError, variant: "destructive" });
    }
    return "copy-failed";
  }
  if (request.settings.fallback === "alert") env.alert(request.alertMessage);
  else env.toast({ title: request.copiedTitle, description: request.copiedMessage });
  return "copied";
}

/** The real browser, for the island. */
export function browserShareEnvironment(toast: (t: ToastInput) => void): ShareEnvironment {
  return {
    share: typeof navigator.share === "function" ? (data) => navigator.share(data) : undefined,
    writeText: navigator.clipboard?.writeText ? (text) => navigator.clipboard.writeText(text) : undefined,
    alert: (message) => window.alert(message),
    toast,
    logError: (...args) => console.error(...args),
  };
}
