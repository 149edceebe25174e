/**
 * Hydrates `[data-island]` elements on demand. An island wakes on the first sign of intent
 * (pointer over it, touch, focus); a click or submit that arrives before it is hydrated is
 * held and replayed once React has taken over, so no interaction is lost.
 */
import { onFirstToast } from "./toast.js";

type IslandModule = { hydrate: (element: HTMLElement, props: unknown) => Promise<void> };

const loaders: Record<string, () => Promise<IslandModule>> = {
  "language-switch": () => import("./hydrate/language-switch.js"),
  share: () => import("./hydrate/share-button.js"),
  newsletter: () => import("./hydrate/newsletter-form.js"),
  "editions-carousel": () => import("./hydrate/editions-carousel.js"),
  toaster: () => import("./hydrate/toaster.js"),
};

const hydrations = new WeakMap<HTMLElement, Promise<void>>();
const INTENT = ["pointerover", "pointerdown", "touchstart", "focusin"] as const;
const ACTIONS = ["click", "submit"] as const;

/** Hydrates one island now (once); resolves when React has hydrated it. */
export function hydrateIsland(element: HTMLElement): Promise<void> {
  let hydration = hydrations.get(element);
  if (!hydration) {
    const load = loaders[element.dataset.island ?? ""];
    if (!load) return Promise.reject(new Error(`unknown island '${element.dataset.island}'`));
    const props = JSON.parse(element.dataset.props ?? "{}") as unknown;
    hydration = load()
      .then((m) => m.hydrate(element, props))
      .then(() => {
        element.dataset.hydrated = "true";
      });
    hydrations.set(element, hydration);
  }
  return hydration;
}

/** Hydrates the island named `name` on this page, if there is one. */
export function hydrateByName(name: string): Promise<void> {
  const element = document.querySelector<HTMLElement>(`[data-island="${name}"]`);
  return element ? hydrateIsland(element) : Promise.resolve();
}

/** Arms every island of `root` to hydrate on intent; the Toaster wakes with the first toast. */
export function armIslands(root: ParentNode): void {
  onFirstToast(() => void hydrateByName("toaster"));
  for (const element of root.querySelectorAll<HTMLElement>("[data-island]")) {
    if (element.dataset.island === "toaster") continue; // woken by the first toast
    const wake = () => {
      for (const type of INTENT) element.removeEventListener(type, wake);
      void hydrateIsland(element);
    };
    for (const type of INTENT) element.addEventListener(type, wake, { passive: true });
    // Buttons do nothing until hydrated, so their clicks (and form submits) are held and
    // replayed; links work without JavaScript and are left alone.
    const hold = (event: Event) => {
      if (element.dataset.hydrated) return;
      const target = event.type === "submit" ? (event.target as HTMLFormElement) : (event.target as Element).closest("button");
      if (!target) return;
      event.preventDefault();
      event.stopImmediatePropagation();
      void hydrateIsland(element).then(() => {
        if (target instanceof HTMLFormElement) target.requestSubmit();
        else target.click();
      });
    };
    for (const type of ACTIONS) element.addEventListener(type, hold, true);
  }
}
