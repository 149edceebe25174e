/**
 * The "Copy the link" button of a post: the site's island (the engine's README, "Islands").
 * The server renders it hidden, so that a reader without JavaScript never sees a button that
 * does nothing; the browser hydrates it when it is idle, and it shows itself.
 */
import { useEffect, useState } from "react";

export interface CopyLinkProps {
  label: string;
  copied: string;
  failed: string;
}

export function CopyLink({ label, copied, failed }: CopyLinkProps) {
  const [ready, setReady] = useState(false);
  const [text, setText] = useState(label);
  useEffect(() => setReady(Boolean(navigator.clipboard)), []);
  const copy = () => {
    navigator.clipboard.writeText(location.href).then(
      () => setText(copied),
      () => setText(failed),
    );
    setTimeout(() => setText(label), 2000);
  };
  return (
    <button type="button" className="copy-link" hidden={!ready} onClick={copy}>
      <span aria-live="polite">{text}</span>
    </button>
  );
}
