// @vitest-environment happy-dom
import { describe, expect, it, vi } from "vitest";
import { sharePage, type ShareEnvironment, type ShareRequest } from "../../client/share.js";

const request = (settings: ShareRequest["settings"] = {}, text?: string): ShareRequest => ({
  title: "Um artigo",
  text,
  url: "https://cafe.example/artigo",
  copiedTitle: "Link copiado!",
  copiedMessage: "O link do artigo foi copiado para a área de transferência.",
  alertMessage: "Link copiado para a área de transferência!",
  settings,
});

function env(overrides: Partial<ShareEnvironment> = {}) {
  return {
    share: undefined,
    writeText: vi.fn(async () => {}),
    alert: vi.fn(),
    toast: vi.fn(),
    logError: vi.fn(),
    ...overrides,
  } satisfies ShareEnvironment;
}
const abort = () => Object.assign(new Error("cancelled"), { name: "AbortError" });

describe("sharing", () => {
  it("uses the native share sheet with title and url when it exists", async () => {
    const e = env({ share: vi.fn(async () => {}) });
    expect(await sharePage(request(), e)).toBe("shared");
    expect(e.share).toHaveBeenCalledWith({ title: "Um artigo", url: "https://cafe.example/artigo" });
    expect(e.writeText).not.toHaveBeenCalled();
  });

  it("passes the text too when the page asks for it", async () => {
    const e = env({ share: vi.fn(async () => {}) });
    await sharePage(request({ text: true }, "O lead."), e);
    expect(e.share).toHaveBeenCalledWith({ title: "Um artigo", url: "https://cafe.example/artigo", text: "O lead." });
  });

  it("does nothing when the reader cancels", async () => {
    const e = env({ share: vi.fn(async () => Promise.reject(abort())) });
    expect(await sharePage(request(), e)).toBe("cancelled");
    expect(e.writeText).not.toHaveBeenCalled();
    expect(e.toast).not.toHaveBeenCalled();
  });

  it("copies the link instead when native share fails for another reason", async () => {
    const e = env({ share: vi.fn(async () => Promise.reject(new Error("NotAllowedError"))) });
    expect(await sharePage(request(), e)).toBe("copied");
    expect(e.writeText).toHaveBeenCalledWith("https://cafe.example/artigo");
    expect(e.toast).toHaveBeenCalledWith({ title: "Link copiado!", description: "O link do artigo foi copiado para a área de transferência." });
  });

  it("only logs a native-share failure on pages that say so (Material da Semana)", async () => {
    const e = env({ share: vi.fn(async () => Promise.reject(new Error("boom"))) });
    expect(await sharePage(request({ onShareError: "log" }), e)).toBe("logged");
    expect(e.logError).toHaveBeenCalled();
    expect(e.writeText).not.toHaveBeenCalled();
    expect(e.toast).not.toHaveBeenCalled();
  });

  it("copies and toasts the page's own message without the share API", async () => {
    const e = env();
    await sharePage({ ...request(), copiedMessage: "O link foi copiado para a área de transferência." }, e);
    expect(e.toast).toHaveBeenCalledWith({ title: "Link copiado!", description: "O link foi copiado para a área de transferência." });
  });

  it("uses the browser alert on pages whose fallback is alert (loyalty)", async () => {
    const e = env();
    await sharePage(request({ fallback: "alert" }), e);
    expect(e.alert).toHaveBeenCalledWith("Link copiado para a área de transferência!");
    expect(e.toast).not.toHaveBeenCalled();
  });

  it("shows the destructive copy-error toast where the page defines one (descompasso)", async () => {
    const e = env({ writeText: vi.fn(async () => Promise.reject(new Error("denied"))) });
    const copyError = { title: "Erro ao copiar", description: "Não foi possível copiar o link." };
    expect(await sharePage(request({ copyError }), e)).toBe("copy-failed");
    expect(e.toast).toHaveBeenCalledWith({ ...copyError, variant: "destructive" });
  });

  it("logs a copy failure elsewhere without a false success message", async () => {
    const e = env({ writeText: undefined });
    expect(await sharePage(request(), e)).toBe("copy-failed");
    expect(e.toast).not.toHaveBeenCalled();
    expect(e.logError).toHaveBeenCalled();
  });
});
