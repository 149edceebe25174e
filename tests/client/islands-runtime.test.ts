// @vitest-environment happy-dom
/**
 * The engine's islands runtime (engine/client/islands.ts) in a DOM: each island wakes when
 * its template said (on load, when idle, when visible, on intent, when the page asks), once;
 * an action that comes before is replayed after, and a chunk that does not load lets the
 * action through and says so.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { startIslands, type IslandChunks } from "../../engine/client/islands.js";

/** A page of islands (a document of its own: one runtime each), and chunks that record each hydration and give each button a counter once hydrated. */
function page(html: string) {
  const document = window.document.implementation.createHTMLDocument("islands");
  document.body.innerHTML = html;
  const hydrated: [string, unknown][] = [];
  const clicks: string[] = [];
  const chunk = (name: string) => async () => ({
    hydrate: async (element: HTMLElement, props: unknown) => {
      hydrated.push([name, props]);
      element.querySelector("button")?.addEventListener("click", () => clicks.push(name));
    },
  });
  const chunks: IslandChunks = { a: chunk("a"), b: chunk("b"), toaster: chunk("toaster") };
  startIslands(document, chunks);
  return { document, hydrated, clicks, island: (name: string) => document.querySelector<HTMLElement>(`[data-island=${name}]`)! };
}

const island = (name: string, wake: string, props: unknown = {}) => `<div data-island="${name}" data-wake="${wake}" data-props='${JSON.stringify(props)}'><button type="button">${name}</button></div>`;
const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

describe("the islands runtime", () => {
  it("hydrates an island on load at once, with its props", async () => {
    const { hydrated, island: at } = page(island("a", "load", { label: "Olá", n: 2 }));
    await vi.waitFor(() => expect(at("a").dataset.hydrated).toBe("true"));
    expect(hydrated).toEqual([["a", { label: "Olá", n: 2 }]]);
  });

  it("hydrates an island on intent at the first sign of it, once, and not before", async () => {
    const { hydrated, island: at } = page(island("a", "intent") + island("b", "intent"));
    await settle();
    expect(hydrated).toEqual([]);
    at("a").dispatchEvent(new Event("pointerover", { bubbles: true }));
    at("a").dispatchEvent(new Event("focusin", { bubbles: true }));
    await vi.waitFor(() => expect(at("a").dataset.hydrated).toBe("true"));
    expect(hydrated.map(([name]) => name)).toEqual(["a"]);
  });

  it("holds a click that comes before the island is hydrated and replays it once it is", async () => {
    const { clicks, hydrated, island: at } = page(island("a", "visible"));
    at("a").querySelector("button")!.click();
    await vi.waitFor(() => expect(clicks).toEqual(["a"]));
    expect(hydrated).toHaveLength(1);
  });

  it("hydrates a manual island only when the page asks for it by name", async () => {
    const { hydrated, document } = page(island("toaster", "manual") + island("a", "manual"));
    await settle();
    expect(hydrated).toEqual([]);
    document.dispatchEvent(new CustomEvent("cafe:wake", { detail: "toaster" }));
    await vi.waitFor(() => expect(hydrated.map(([name]) => name)).toEqual(["toaster"]));
  });

  it("hydrates an island when idle, or when it comes into view", async () => {
    const idle: (() => void)[] = [];
    vi.stubGlobal("requestIdleCallback", (run: () => void) => idle.push(run));
    const seen: ((entries: { isIntersecting: boolean }[]) => void)[] = [];
    vi.stubGlobal(
      "IntersectionObserver",
      class {
        constructor(callback: (entries: { isIntersecting: boolean }[]) => void) {
          seen.push(callback);
        }
        observe() {}
        disconnect() {}
      },
    );
    const { hydrated } = page(island("a", "idle") + island("b", "visible"));
    await settle();
    expect(hydrated).toEqual([]);
    idle.forEach((run) => run());
    await vi.waitFor(() => expect(hydrated.map(([name]) => name)).toEqual(["a"]));
    seen.forEach((callback) => callback([{ isIntersecting: true }]));
    await vi.waitFor(() => expect(hydrated.map(([name]) => name)).toEqual(["a", "b"]));
  });

  it("says which island could not start, and lets the action through", async () => {
    const errors = vi.spyOn(console, "error").mockImplementation(() => {});
    const { island: at, document } = page(island("missing", "intent"));
    const through = vi.fn();
    document.addEventListener("click", through);
    at("missing").querySelector("button")!.click();
    await vi.waitFor(() => expect(through).toHaveBeenCalledTimes(1));
    expect(errors.mock.calls[0]?.[0]).toBe("island missing:");
    document.removeEventListener("click", through);
  });
});
