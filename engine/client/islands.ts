/**
 * The islands' runtime, in the browser: the one script a page with islands loads before the
 * reader does anything (the assets stage bundles it; the render stage adds its
 * `<script type="module">` to a page that renders an island). It reads each
 * `<div data-island data-wake data-props>` the server rendered and hydrates it when it wakes
 * (islands.tsx, `Wake`): it imports the island's chunk (which brings React the first time) and hands it the element and its props. A click on a button or a
 * form submitted before an island is hydrated is held, and replayed once React has taken
 * over (or let through as it is when the chunk cannot load), so no interaction is lost; links
 * work without JavaScript and are left alone.
 *
 * Plain DOM and nothing imported: it is what every page with an island pays before interaction.
 * The assets stage's entry calls `startIslands` with the site's chunks.
 */
type Chunk = { hydrate(element: HTMLElement, props: unknown): Promise<void> };
/** Each island's chunk by its name: `() => import("./chunks/share-XXXX.js")` (the assets stage writes the list). */
export type IslandChunks = Record<string, () => Promise<Chunk>>;

const INTENT = ["pointerover", "pointerdown", "touchstart", "focusin"];

/** Arms every island of the page to hydrate when it wakes. */
export function startIslands(doc: Document, chunks: IslandChunks): void {
  const hydrations = new WeakMap<HTMLElement, Promise<void>>();
  // Once per element: a second wake (intent after a click, a second `cafe:wake`) waits for the first.
  const hydrate = (element: HTMLElement): Promise<void> => {
    const { island = "", props = "null" } = element.dataset;
    let hydration = hydrations.get(element);
    if (!hydration) {
      hydrations.set(
        element,
        (hydration = Promise.resolve()
          // An island the build has no chunk for throws here, and is logged like a chunk that does not load.
          .then(() => chunks[island]!())
          .then((chunk) => chunk.hydrate(element, JSON.parse(props)))
          .catch((error: unknown) => console.error(`island ${island}:`, error))
          .then(() => void (element.dataset.hydrated = "true"))),
      );
    }
    return hydration;
  };

  doc.addEventListener("cafe:wake", (event) => {
    for (const element of doc.querySelectorAll<HTMLElement>("[data-island]")) if (element.dataset.island === (event as CustomEvent).detail) void hydrate(element);
  });

  for (const element of doc.querySelectorAll<HTMLElement>("[data-island]")) {
    const wake = element.dataset.wake;
    const now = () => void hydrate(element);
    if (wake === "load") now();
    // Safari has no requestIdleCallback: a moment after load instead.
    else if (wake === "idle") void ("requestIdleCallback" in globalThis ? requestIdleCallback(now) : setTimeout(now, 200));
    else if (wake === "visible") {
      const observer = new IntersectionObserver(
        (entries) => {
          if (entries.some((e) => e.isIntersecting)) observer.disconnect(), now();
        },
        { rootMargin: "200px" },
      );
      observer.observe(element);
    } else if (wake === "intent") for (const type of INTENT) element.addEventListener(type, now, { passive: true, once: true });
    // Whatever wakes it: an action that comes first is held and replayed.
    const hold = (event: Event) => {
      if (element.dataset.hydrated) return;
      const target = event.type === "submit" ? (event.target as HTMLFormElement) : (event.target as Element).closest("button");
      if (!target) return;
      event.preventDefault();
      event.stopImmediatePropagation();
      void hydrate(element).then(() => (target instanceof HTMLFormElement ? target.requestSubmit() : target.click()));
    };
    for (const type of ["click", "submit"]) element.addEventListener(type, hold, true);
  }
}
