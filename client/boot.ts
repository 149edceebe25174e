// Inlined in <head>: runs before first paint so a reader who chose English never sees a
// flash of Portuguese. Kept tiny and dependency-free; see client/language.ts for the key.
(() => {
  const root = document.documentElement;
  root.classList.remove("no-js");
  root.classList.add("js");
  try {
    if (localStorage.getItem("cafe-com-a-cris:lang") === "en") {
      root.lang = "en";
      root.dataset.lang = "en";
    }
  } catch {
    // Storage blocked (private mode, policy): stay in Portuguese.
  }
})();
