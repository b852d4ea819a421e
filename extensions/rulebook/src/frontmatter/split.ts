const CLOSERS: Record<string, string> = { "(": ")", "{": "}", "[": "]" };

/**
 * Splits `value` on commas (and whitespace, with `whitespace: true`) outside the `brackets` it is given (openers,
 * default `{[`; a glob list passes `{` so an unclosed `[` stays a glob error), so a glob's brace set (`*.{ts,tsx}`)
 * or a scope's argument stays whole. Pieces are returned as written (untrimmed, empty ones included); callers trim,
 * unquote or drop empties as their format needs. The one bracket-aware splitter of rulebook's frontmatter
 * fallback, its glob lists and pi-ttsr's scopes.
 */
export function splitOutsideBrackets(
  value: string,
  options: { brackets?: string; whitespace?: boolean } = {},
): string[] {
  const open = options.brackets ?? "{[";
  const close = [...open].map((ch) => CLOSERS[ch] ?? "").join("");
  const out: string[] = [];
  let depth = 0;
  let current = "";
  for (const ch of value) {
    if (open.includes(ch)) depth++;
    if (close.includes(ch) && depth > 0) depth--;
    if (depth === 0 && (ch === "," || (options.whitespace === true && /\s/.test(ch)))) {
      out.push(current);
      current = "";
    } else {
      current += ch;
    }
  }
  out.push(current);
  return out;
}
