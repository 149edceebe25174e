/** Hydrates `[data-island]` elements, each when the browser is idle or it becomes visible. */
type IslandModule = { hydrate: (element: HTMLElement, props: unknown) => void };

const loaders: Record<string, () => Promise<IslandModule>> = {
  "language-switch": () => import("./hydrate/language-switch.js"),
  share: () => import("./hydrate/share-button.js"),
  newsletter: () => import("./hydrate/newsletter-form.js"),
  "editions-carousel": () => import("./hydrate/editions-carousel.js"),
  toaster: () => import("./hydrate/toaster.js"),
};

export function loadIslands(root: ParentNode): void {
  for (const element of root.querySelectorAll<HTMLElement>("[data-island]")) {
    const load = loaders[element.dataset.island ?? ""];
    if (!load) continue;
    const props = JSON.parse(element.dataset.props ?? "{}") as unknown;
    const start = () => void load().then((m) => m.hydrate(element, props));
    if ("requestIdleCallback" in window) requestIdleCallback(start, { timeout: 2000 });
    else setTimeout(start, 1);
  }
}
