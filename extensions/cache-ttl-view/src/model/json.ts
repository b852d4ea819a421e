/** Chars that JSON.stringify writes escaped in a string (a surrogate only when lone; the slow path sorts that out). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control chars are exactly what JSON escapes
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;

/** Strings up to this length are checked char by char: a regex call costs more than the loop over a short string. */
const SHORT = 64;

/** Whether JSON.stringify would write something in `s` escaped (a quote, a backslash, a control, a surrogate). */
export function needsEscape(s: string): boolean {
  if (s.length > SHORT) return NEEDS_ESCAPE.test(s);
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20 || c === 0x22 || c === 0x5c || (c >= 0xd800 && c <= 0xdfff)) return true;
  }
  return false;
}

/**
 * `JSON.stringify(s)` for a string, without the serialiser when nothing in it needs escaping (Node 20's
 * serialiser costs about a microsecond per 400 chars: a cold pass quotes 30,000 summaries).
 */
export function quoteJson(s: string): string {
  return needsEscape(s) ? JSON.stringify(s) : `"${s}"`;
}

/**
 * `s` as JSON writes it inside a string, without the quotes: `s` itself when nothing in it needs escaping. Pieces
 * escaped one by one join to the escape of the whole when ASCII stands at every join (a surrogate pair split across
 * two pieces would be escaped, where the whole keeps it).
 */
export function escapedJson(s: string): string {
  return needsEscape(s) ? JSON.stringify(s).slice(1, -1) : s;
}

/**
 * The length of `JSON.stringify(value)`, measured without building it, up to `limit`: past that, some number
 * greater than `limit`. Whether a tool call is worth pruning only needs to know whether its arguments are short;
 * serialising a written file's content to learn that it is long would allocate the whole file on every pass.
 * What is not plain data (a `toJSON`, a class instance) is measured by serialising it.
 */
export function jsonLength(value: unknown, limit = Number.POSITIVE_INFINITY): number {
  if (typeof value === "string") {
    // Past the limit, or nothing escaped: quotes plus the chars. Else the serialiser (a short string) says.
    return value.length + 2 > limit || !needsEscape(value) ? value.length + 2 : JSON.stringify(value).length;
  }
  if (typeof value !== "object" || value === null || !isPlain(value)) return JSON.stringify(value)?.length ?? 0;
  let n = 1; // the opening bracket; each member adds itself and a comma or the closing bracket
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length && n <= limit; i++) n += (measured(value[i], limit - n) ?? 4) + 1;
    return value.length === 0 ? 2 : n;
  }
  let members = 0;
  for (const key in value) {
    if (n > limit) break;
    if (!Object.hasOwn(value, key)) continue;
    const size = measured((value as Record<string, unknown>)[key], limit - n);
    if (size === undefined) continue;
    n += jsonLength(key) + 1 + size + 1;
    members++;
  }
  return members === 0 && n <= limit ? 2 : n;
}

/** The length of a member's value, or undefined when JSON leaves it out (undefined, a function, a symbol). */
function measured(value: unknown, limit: number): number | undefined {
  const type = typeof value;
  return type === "undefined" || type === "function" || type === "symbol" ? undefined : jsonLength(value, limit);
}

function isPlain(value: object): boolean {
  const proto = Object.getPrototypeOf(value);
  const plain = Array.isArray(value) || proto === Object.prototype || proto === null;
  return plain && !("toJSON" in value);
}
