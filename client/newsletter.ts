/** The newsletter signup: validation (SPEC §5) and the subscription itself (SPEC §7, DECISIONS). */

/** Text, an at sign, a domain, a dot and at least two letters; case-insensitive. */
const EMAIL = /^[^\s@]+@[^\s@]+\.[a-z]{2,}$/i;

export function validateEmail(value: string, messages: { required: string; invalid: string }): string | undefined {
  const email = value.trim();
  if (email === "") return messages.required;
  if (!EMAIL.test(email)) return messages.invalid;
  return undefined;
}

export interface SubscribeOptions {
  endpoint?: string;
  delayMs: number;
  fetch?: typeof fetch;
  wait?: (ms: number) => Promise<void>;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Without an endpoint nothing is sent: it waits `delayMs` and succeeds. With one, it POSTs
 * `{"email": ...}` as JSON; a network error or non-2xx answer rejects.
 */
export async function subscribe(email: string, options: SubscribeOptions): Promise<void> {
  if (!options.endpoint) {
    await (options.wait ?? sleep)(options.delayMs);
    return;
  }
  const response = await (options.fetch ?? fetch)(options.endpoint, {
    method: "POST",
    headers: { "Content-Type": "application/json", Accept: "application/json" },
    body: JSON.stringify({ email: email.trim() }),
  });
  if (!response.ok) throw new Error(`subscription failed: HTTP ${response.status}`);
}
