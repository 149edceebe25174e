import { hydrateRoot } from "react-dom/client";
import { LanguageSwitch, type LanguageSwitchProps } from "../islands/language-switch.js";

export function hydrate(element: HTMLElement, props: unknown): void {
  hydrateRoot(element, <LanguageSwitch {...(props as LanguageSwitchProps)} />);
}
