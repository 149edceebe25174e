/** The footer: the copyright line and the two policy links (external, new tab). */
import type { SiteSettings } from "./schema.js";

export function Footer({ site }: { site: SiteSettings }) {
  const { footer, privacyUrl } = site;
  return (
    <footer className="site-footer" lang="pt-BR">
      <div className="container footer-inner">
        <p>{footer.copyright}</p>
        <ul className="footer-links">
          <li>
            <a href={privacyUrl} target="_blank" rel="noopener noreferrer">
              {footer.privacy}
            </a>
          </li>
          <li>
            <a href={privacyUrl} target="_blank" rel="noopener noreferrer">
              {footer.cookies}
            </a>
          </li>
        </ul>
      </div>
    </footer>
  );
}
