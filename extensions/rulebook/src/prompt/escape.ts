// biome-ignore lint/suspicious/noControlCharactersInRegex: removing control characters is the point
const CONTROL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]/g;

/** Remove control characters (NUL, ESC sequences, BEL, C1) from text bound for a prompt or a terminal. */
export function stripControl(text: string): string {
  return text.replace(CONTROL, "");
}

/**
 * Escape text placed inside the prompt's XML-like tags or attributes: a file name can never close a
 * tag, open a new one, or carry a control character.
 */
export function escapeXml(text: string): string {
  return stripControl(text).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}
