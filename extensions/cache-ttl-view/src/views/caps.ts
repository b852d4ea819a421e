/**
 * Field-aware truncation shared by every tool view. Strings starting with `ref:` are references the model may need
 * to quote exactly, so they are never cut; everything else is capped per string, list and object.
 */

export interface Caps {
  maxTextChars: number;
  maxFieldChars: number;
  maxListItems: number;
  maxDictKeys: number;
}

const MARK = "[TRUNCATED] ";
const MAX_DEPTH = 8;

/** `[TRUNCATED] <prefix>…`, at most `max` chars; text that fits is returned as is. */
export function truncateText(text: string, max: number): string {
  if (text.length <= max) return text;
  const keep = Math.max(0, max - MARK.length - 1);
  return `${MARK}${text.slice(0, keep)}…`;
}

/** `[TRUNCATED] …<suffix>`: the end of a text, for outputs whose last lines matter (bash). */
export function truncateTail(text: string, max: number): string {
  if (text.length <= max) return text;
  const keep = Math.max(0, max - MARK.length - 1);
  return `${MARK}…${text.slice(text.length - keep)}`;
}

/** Cap a JSON-like value: strings to `maxFieldChars` (except `ref:`), lists and objects to their item caps. */
export function capValue(value: unknown, caps: Caps, depth = 0): unknown {
  if (typeof value === "string") return value.startsWith("ref:") ? value : truncateText(value, caps.maxFieldChars);
  if (value === null || typeof value !== "object") return value;
  if (depth >= MAX_DEPTH) return `${MARK}nested value`;
  if (Array.isArray(value)) {
    const kept = value.slice(0, caps.maxListItems).map((item) => capValue(item, caps, depth + 1));
    if (value.length > caps.maxListItems) kept.push(`${MARK}+${value.length - caps.maxListItems} items`);
    return kept;
  }
  const keys = Object.keys(value);
  const entries: [string, unknown][] = [];
  for (const key of keys.slice(0, caps.maxDictKeys)) {
    entries.push([key, capValue((value as Record<string, unknown>)[key], caps, depth + 1)]);
  }
  if (keys.length > caps.maxDictKeys) entries.push(["…", `${MARK}+${keys.length - caps.maxDictKeys} keys`]);
  // fromEntries defines own data properties: a key named `__proto__` stays a key.
  return Object.fromEntries(entries);
}

/** Lines of a text without a trailing empty line. */
export function linesOf(text: string): string[] {
  if (text === "") return [];
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  return lines;
}

/** Shrink a list until `render(list)` fits `max` chars (at least one item is dropped per step). */
export function fitList<T>(items: T[], max: number, render: (kept: T[], dropped: number) => string): string {
  let n = items.length;
  let out = render(items, 0);
  while (out.length > max && n > 0) {
    n = Math.max(0, Math.min(n - 1, Math.floor(n * 0.7)));
    out = render(items.slice(0, n), items.length - n);
  }
  return out;
}
