/** The Compartilhar button of an article; its behaviour per page comes from front matter. */
import { useState } from "react";
import Share2 from "lucide-react/icons/share-2";
import type { ShareSettings } from "../../templates/schema.js";
import { browserShareEnvironment, sharePage } from "../share.js";
import { showToast } from "../toast.js";

export interface ShareButtonProps {
  label: string;
  title: string;
  /** Passed to the native share sheet when `settings.text` is set. */
  text?: string;
  copiedTitle: string;
  copiedMessage: string;
  alertMessage: string;
  settings: ShareSettings;
}

export function ShareButton(props: ShareButtonProps) {
  const [busy, setBusy] = useState(false);
  const { settings } = props;

  const onClick = async () => {
    if (busy) return;
    if (settings.busyLabel) setBusy(true);
    try {
      await sharePage(
        {
          title: props.title,
          text: settings.text ? props.text : undefined,
          url: window.location.href,
          copiedTitle: props.copiedTitle,
          copiedMessage: props.copiedMessage,
          alertMessage: props.alertMessage,
          settings,
        },
        browserShareEnvironment(showToast),
      );
    } finally {
      setBusy(false);
    }
  };

  return (
    <button type="button" className="share-button needs-js" onClick={onClick} disabled={busy} aria-busy={busy || undefined}>
      <Share2 aria-hidden="true" size={18} />
      <span>{busy && settings.busyLabel ? settings.busyLabel : props.label}</span>
    </button>
  );
}
