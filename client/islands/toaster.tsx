/** The live region where notices (toasts) appear; one at a time. */
export interface ToasterProps {
  closeLabel: string;
}

export function Toaster(_props: ToasterProps) {
  return <div className="toaster" role="status" aria-live="polite" aria-atomic="true" />;
}
