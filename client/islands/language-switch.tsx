/**
 * The two-button language switch of the header. The server renders Portuguese pressed; the
 * entry script and then this component keep `aria-pressed` in step with <html data-lang>.
 */
import { useEffect, useState } from "react";
import { applyLanguage, currentLanguage, saveLanguage, type Language } from "../language.js";

export interface LanguageSwitchProps {
  label: string;
  languages: { pt: string; en: string };
}

export function LanguageSwitch({ label, languages }: LanguageSwitchProps) {
  const [language, setLanguage] = useState<Language>("pt");
  useEffect(() => setLanguage(currentLanguage(document)), []);

  const choose = (next: Language) => {
    applyLanguage(document, next);
    saveLanguage(next);
    setLanguage(next);
  };

  return (
    <div className="lang-switch" role="group" aria-label={label}>
      {(["pt", "en"] as const).map((code) => (
        <button
          key={code}
          type="button"
          className="lang-button"
          data-lang-button={code}
          aria-pressed={language === code}
          lang={code === "en" ? "en" : "pt-BR"}
          onClick={() => choose(code)}
        >
          {languages[code]}
        </button>
      ))}
    </div>
  );
}
