// @vitest-environment happy-dom
import { afterEach, describe, expect, it } from "vitest";
import { nextIndex, previousIndex } from "../../client/carousel.js";
import { currentToast, dismissToast, showToast, subscribeToasts } from "../../client/toast.js";
import { applyLanguage, saveLanguage, storedLanguage, LANGUAGE_KEY } from "../../client/language.js";

describe("carousel arithmetic", () => {
  it("goes forward with (i+1) mod 4 and back with (i-1+4) mod 4", () => {
    expect([0, 1, 2, 3].map((i) => nextIndex(i, 4))).toEqual([1, 2, 3, 0]);
    expect([0, 1, 2, 3].map((i) => previousIndex(i, 4))).toEqual([3, 0, 1, 2]);
  });
});

describe("the toast queue", () => {
  afterEach(() => dismissToast());

  it("shows one toast at a time: a new one replaces the old", () => {
    const seen: (string | undefined)[] = [];
    const stop = subscribeToasts(() => seen.push(currentToast()?.title));
    showToast({ title: "Primeiro" });
    const second = showToast({ title: "Segundo", variant: "destructive" });
    expect(currentToast()).toEqual(second);
    expect(second.variant).toBe("destructive");
    expect(seen).toEqual(["Primeiro", "Segundo"]);
    stop();
  });

  it("closing an old toast does not close its replacement", () => {
    const first = showToast({ title: "Primeiro" });
    showToast({ title: "Segundo" });
    dismissToast(first.id);
    expect(currentToast()?.title).toBe("Segundo");
  });
});

describe("the language setting", () => {
  afterEach(() => localStorage.clear());

  it("defaults to Portuguese and remembers English", () => {
    expect(storedLanguage()).toBe("pt");
    saveLanguage("en");
    expect(localStorage.getItem(LANGUAGE_KEY)).toBe("en");
    expect(storedLanguage()).toBe("en");
  });

  it("applies a language to <html>, the title and the switch buttons", () => {
    document.documentElement.dataset.titleEn = "Professional Rebirth | Café com a Cris";
    document.documentElement.dataset.titlePt = "O Renascimento Profissional | Café com a Cris";
    document.body.innerHTML = '<button data-lang-button="pt"></button><button data-lang-button="en"></button>';
    applyLanguage(document, "en");
    expect(document.documentElement.lang).toBe("en");
    expect(document.documentElement.dataset.lang).toBe("en");
    expect(document.title).toBe("Professional Rebirth | Café com a Cris");
    expect([...document.querySelectorAll("button")].map((b) => b.getAttribute("aria-pressed"))).toEqual(["false", "true"]);
    applyLanguage(document, "pt");
    expect(document.documentElement.lang).toBe("pt-BR");
    expect(document.title).toBe("O Renascimento Profissional | Café com a Cris");
  });
});
