/** The newsletter signup form: one labelled e-mail field and the submit button. */
export interface NewsletterFormProps {
  label: string;
  placeholder: string;
  button: string;
  busyLabel: string;
  required: string;
  invalid: string;
  success: { title: string; description: string };
  failure: { title: string; description: string };
  endpoint?: string;
  delayMs: number;
}

export function NewsletterForm({ label, placeholder, button }: NewsletterFormProps) {
  return (
    <form className="newsletter-form" noValidate>
      <label className="sr-only" htmlFor="newsletter-email">
        {label}
      </label>
      <input
        id="newsletter-email"
        name="email"
        type="email"
        inputMode="email"
        autoComplete="email"
        placeholder={placeholder}
        className="newsletter-input"
      />
      <button type="submit" className="button button-primary">
        {button}
      </button>
    </form>
  );
}
