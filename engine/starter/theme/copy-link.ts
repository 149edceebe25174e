/**
 * The site's client script (bundled by the engine into /assets/main-<hash>.js): the "Copy
 * the link" button of a post. The button is in the page, hidden, so that a reader without
 * JavaScript never sees a button that does nothing.
 */
for (const button of document.querySelectorAll<HTMLButtonElement>("[data-copy-link]")) {
  if (!navigator.clipboard) continue;
  const label = button.textContent ?? "";
  button.hidden = false;
  button.addEventListener("click", () => {
    navigator.clipboard.writeText(location.href).then(
      () => (button.textContent = "Copied"),
      () => (button.textContent = "Could not copy: select the address bar instead"),
    );
    setTimeout(() => (button.textContent = label), 2000);
  });
}
