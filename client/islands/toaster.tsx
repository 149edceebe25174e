/**
 * The notices (toasts): one at a time, closable, gone after 5 s, in a live region that is in
 * the page from the start so screen readers announce what appears in it.
 */
import { useEffect, useSyncExternalStore } from "react";
import X from "lucide-react/icons/x";
import { TOAST_DURATION, currentToast, dismissToast, subscribeToasts } from "../toast.js";

export interface ToasterProps {
  closeLabel: string;
}

export function Toaster({ closeLabel }: ToasterProps) {
  const toast = useSyncExternalStore(subscribeToasts, currentToast, () => null);
  useEffect(() => {
    if (!toast) return;
    const timer = setTimeout(() => dismissToast(toast.id), TOAST_DURATION);
    return () => clearTimeout(timer);
  }, [toast]);

  return (
    <div className="toaster" role="status" aria-live="polite" aria-atomic="true" lang="pt-BR">
      {toast ? (
        <div key={toast.id} className={`toast toast-${toast.variant}`} data-variant={toast.variant}>
          <div className="toast-body">
            <p className="toast-title">{toast.title}</p>
            {toast.description ? <p className="toast-description">{toast.description}</p> : null}
          </div>
          <button type="button" className="toast-close" aria-label={closeLabel} onClick={() => dismissToast(toast.id)}>
            <X aria-hidden="true" size={18} />
          </button>
        </div>
      ) : null}
    </div>
  );
}
