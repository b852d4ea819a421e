import { stripControl } from "@pi-rails/agent-core/kit";

/**
 * Escape text placed inside the prompt's XML-like tags or attributes: a file name can never close a
 * tag, open a new one, or carry a control character (the kit's `stripControl`, the same set its CLIs strip).
 */
export function escapeXml(text: string): string {
  return stripControl(text).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}
