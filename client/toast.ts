/**
 * The toast store: one notice at a time (a new one replaces the old), shown by the Toaster
 * island, which wakes on the first toast (`wake="manual"`: the engine's runtime hydrates it
 * when asked by the `cafe:wake` event).
 */
export interface ToastInput {
  title: string;
  description?: string;
  variant?: "default" | "destructive";
}
export interface Toast extends Required<Omit<ToastInput, "description">> {
  id: number;
  description?: string;
}

/** How long a toast stays, in milliseconds. */
export const TOAST_DURATION = 5000;

type Listener = () => void;
let current: Toast | null = null;
let nextId = 1;
const listeners = new Set<Listener>();

function emit() {
  for (const listener of listeners) listener();
}

/** Shows a toast, replacing the one on screen. */
export function showToast(input: ToastInput): Toast {
  current = { id: nextId++, title: input.title, description: input.description, variant: input.variant ?? "default" };
  emit();
  globalThis.document?.dispatchEvent(new CustomEvent("cafe:wake", { detail: "toaster" }));
  return current;
}

/** Closes the toast with `id` (or whatever is shown). */
export function dismissToast(id?: number): void {
  if (current && (id === undefined || current.id === id)) {
    current = null;
    emit();
  }
}

export function subscribeToasts(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function currentToast(): Toast | null {
  return current;
}
