// @vitest-environment happy-dom
/**
 * The dev overlay speaks the site's language (issue 39): English on an English site (and
 * on one whose language the engine has no words for), Portuguese on this blog; a code error
 * is not called a content error.
 */
import { afterEach, beforeAll, describe, expect, it } from "vitest";

/** The EventSource the overlay listens to: the test sends its events. */
class FakeEvents extends EventTarget {
  static last: FakeEvents | undefined;
  constructor(readonly url: string) {
    super();
    FakeEvents.last = this;
  }
  send(event: string, data: unknown) {
    this.dispatchEvent(new MessageEvent(event, { data: JSON.stringify(data) }));
  }
}

beforeAll(async () => {
  (globalThis as { EventSource?: unknown }).EventSource = FakeEvents;
  await import("../../engine/servers/dev-client.js");
});
afterEach(() => document.getElementById("cafe-dev-overlay")?.remove());

const error = { location: "theme/theme.tsx:3:5", message: "Expected \";\" but found \")\"", hint: "fix the code and save" };
const overlay = () => document.getElementById("cafe-dev-overlay")!;

describe("the dev overlay", () => {
  it("is English on an English site: title, accessible name and hint", () => {
    FakeEvents.last!.send("build-error", { errors: [error], language: "en" });
    expect(overlay().querySelector("h2")!.textContent).toBe("1 error — fix and save: the page reloads by itself");
    expect(overlay().getAttribute("aria-label")).toBe("Build error");
    expect(overlay().querySelector(".cafe-dev-hint")!.textContent).toBe("hint: fix the code and save");
  });

  it("is English when the language is one the engine has no words for, or not said", () => {
    FakeEvents.last!.send("build-error", { errors: [error, error], language: "de" });
    expect(overlay().querySelector("h2")!.textContent).toBe("2 errors — fix and save: the page reloads by itself");
    FakeEvents.last!.send("build-error", { errors: [error] });
    expect(overlay().querySelector(".cafe-dev-hint")!.textContent).toBe("hint: fix the code and save");
  });

  it("is Portuguese on a Portuguese site, and calls no code error a content error", () => {
    FakeEvents.last!.send("build-error", { errors: [error], language: "pt" });
    expect(overlay().querySelector("h2")!.textContent).toBe("1 erro — corrija e salve: a página recarrega sozinha");
    expect(overlay().getAttribute("aria-label")).toBe("Erro de build");
    expect(overlay().querySelector(".cafe-dev-hint")!.textContent).toBe("dica: fix the code and save");
  });
});
