/**
 * The newsletter signup form: validated on submit (SPEC §5), "Enviando..." while it works,
 * then a toast. The field is uncontrolled, so what a reader typed before the island woke up
 * is kept.
 */
import { useRef, useState, type FormEvent } from "react";
import { subscribe, validateEmail } from "../newsletter.js";
import { showToast } from "../toast.js";

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

const ERROR_ID = "newsletter-error";

export function NewsletterForm(props: NewsletterFormProps) {
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const input = useRef<HTMLInputElement>(null);

  const onSubmit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (busy) return;
    const form = event.currentTarget;
    const email = input.current?.value ?? "";
    const problem = validateEmail(email, props);
    setError(problem);
    if (problem) {
      input.current?.focus();
      return;
    }
    setBusy(true);
    try {
      await subscribe(email, { endpoint: props.endpoint, delayMs: props.delayMs });
      form.reset();
      showToast({ ...props.success });
    } catch {
      showToast({ ...props.failure, variant: "destructive" });
    } finally {
      setBusy(false);
    }
  };

  return (
    <form className="newsletter-form" noValidate onSubmit={onSubmit} aria-busy={busy || undefined}>
      <div className="newsletter-field">
        <label className="sr-only" htmlFor="newsletter-email">
          {props.label}
        </label>
        <input
          ref={input}
          id="newsletter-email"
          name="email"
          type="email"
          inputMode="email"
          autoComplete="email"
          placeholder={props.placeholder}
          className="newsletter-input"
          aria-invalid={error ? true : undefined}
          aria-describedby={error ? ERROR_ID : undefined}
        />
        <p id={ERROR_ID} className="newsletter-error" aria-live="polite">
          {error}
        </p>
      </div>
      <button type="submit" className="button button-primary" disabled={busy}>
        {busy ? props.busyLabel : props.button}
      </button>
    </form>
  );
}
