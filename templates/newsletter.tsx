/** "Receba as Últimas Análises": on every page, directly above the footer. */
import Mail from "lucide-react/icons/mail";
import type { SiteSettings } from "./schema.js";
import type { NewsletterFormProps } from "../client/islands/newsletter-form.js";
import { NewsletterIsland } from "./islands.js";

export function Newsletter({ site }: { site: SiteSettings }) {
  const n = site.newsletter;
  const props: NewsletterFormProps = {
    label: n.label,
    placeholder: n.placeholder,
    button: n.button,
    busyLabel: n.busyLabel,
    required: n.required,
    invalid: n.invalid,
    success: n.success,
    failure: n.failure,
    endpoint: n.endpoint,
    delayMs: n.delayMs,
  };
  return (
    <section className="newsletter" aria-labelledby="newsletter-title" lang="pt-BR">
      <div className="container newsletter-inner">
        <span className="newsletter-icon" aria-hidden="true">
          <Mail size={28} />
        </span>
        <h2 id="newsletter-title" className="newsletter-title">
          {n.title}
        </h2>
        <p className="newsletter-text">{n.text}</p>
        <NewsletterIsland wake="intent" props={props} className="newsletter-island" />
        <p className="newsletter-note">{n.note}</p>
      </div>
    </section>
  );
}
