/** The Compartilhar button of an article; its behaviour per page comes from front matter. */
import { Share2 } from "lucide-react";
import type { ShareSettings } from "../../engine/schema.js";

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

export function ShareButton({ label }: ShareButtonProps) {
  return (
    <button type="button" className="share-button needs-js">
      <Share2 aria-hidden="true" size={18} />
      <span>{label}</span>
    </button>
  );
}
