/** The sticky header: blog title and subtitle, the brand "Cris" and the language switch. */
import Coffee from "lucide-react/icons/coffee";
import type { SiteSettings } from "./schema.js";
import { T } from "./bilingual.js";
import type { LanguageSwitchProps } from "../client/islands/language-switch.js";
import { LanguageSwitchIsland } from "./islands.js";

export function Header({ site }: { site: SiteSettings }) {
  const { header, brand } = site;
  const switchProps: LanguageSwitchProps = { label: header.languageLabel, languages: header.languages };
  return (
    <header className="site-header">
      <div className="container header-inner">
        <a className="site-identity" href="/">
          <span className="site-logo" aria-hidden="true">
            <Coffee size={22} />
          </span>
          <span className="site-titles">
            <span className="site-title">
              <T pt={header.title.pt} en={header.title.en} />
            </span>
            <span className="site-subtitle">
              <T pt={header.subtitle.pt} en={header.subtitle.en} />
            </span>
          </span>
        </a>
        <div className="header-actions">
          <a className="brand" href={brand.url} target="_blank" rel="noopener noreferrer" aria-label={brand.label}>
            {brand.name}
          </a>
          <LanguageSwitchIsland wake="intent" props={switchProps} />
        </div>
      </div>
    </header>
  );
}
