/** The two-button language switch of the header. */
export interface LanguageSwitchProps {
  label: string;
  languages: { pt: string; en: string };
}

export function LanguageSwitch({ label, languages }: LanguageSwitchProps) {
  return (
    <div className="lang-switch" role="group" aria-label={label}>
      <button type="button" className="lang-button" data-lang-button="pt" aria-pressed="true" lang="pt-BR">
        {languages.pt}
      </button>
      <button type="button" className="lang-button" data-lang-button="en" aria-pressed="false" lang="en">
        {languages.en}
      </button>
    </div>
  );
}
