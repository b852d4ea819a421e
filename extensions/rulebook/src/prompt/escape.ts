/** Escape text placed inside the prompt's XML-like tags or attributes: a file name can never close a tag. */
export function escapeXml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}
