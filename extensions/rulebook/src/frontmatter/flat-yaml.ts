/**
 * The YAML most rule files have, read without a YAML parser: one `key: value` per line, each value a quoted string
 * with simple escapes, a plain word-like string, `true` / `false` / `null`, or a small integer. Loading js-yaml costs
 * a start about 10 ms of CPU (measured: 8-9 ms to load, 2 ms for its first parse), paid whenever one rule file is new
 * or edited. Anything else (lists, nesting, block scalars, anchors, tabs, `\u` escapes, a duplicate key, a value
 * YAML would read as a date or a float) is not answered here (`undefined`) and goes to js-yaml, so an answer is
 * always the one js-yaml gives (a property test holds it to that).
 */
export function flatYaml(text: string): Record<string, unknown> | undefined {
  if (text.includes("\t") || text.includes("\r")) return undefined;
  const data: Record<string, unknown> = {};
  let read = false;
  for (const line of text.split("\n")) {
    if (line === "" || /^ *$/.test(line)) continue;
    // js-yaml refuses a control character anywhere, comments included
    if (line.startsWith("#")) {
      if (!PRINTABLE.test(line)) return undefined;
      continue;
    }
    const entry = ENTRY.exec(line);
    if (!entry) return undefined;
    const key = entry[1]!;
    // a repeated key is an error to js-yaml; `true:` is the key "true" there (the boolean, as text)
    if (Object.hasOwn(data, key) || key === "__proto__" || WORDS.has(key)) return undefined;
    const value = flatValue(entry[2]!);
    if (value === NOT_FLAT) return undefined;
    data[key] = value;
    read = true;
  }
  // only comments and blank lines: js-yaml's answer is no mapping at all
  return read ? data : undefined;
}

/** Printable characters (no controls, surrogates, BOM or non-characters). */
const PRINTABLE = /^[ -~\u00a0-\ud7ff\ue000-\ufefe\uff00-\ufffd]*$/;
/** `key: value` at the start of a line, one space or more after the colon, nothing but spaces after the value. */
const ENTRY = /^([A-Za-z_][A-Za-z0-9_-]*): +(.*?) *$/;
/**
 * A double-quoted string: printable characters (no controls, surrogates, BOM or non-characters), and JSON's escapes
 * but `\u` (YAML reads those the same).
 */
const DOUBLE = /^"(?:[ !#-[\]-~\u00a0-\ud7ff\ue000-\ufefe\uff00-\ufffd]|\\["\\/bfnrt])*"$/;
/** A single-quoted string: printable characters, `''` for a quote. */
const SINGLE = /^'(?:[ -&(-~\u00a0-\ud7ff\ue000-\ufefe\uff00-\ufffd]|'')*'$/;
/**
 * A plain string YAML reads as that very text: a letter first, then letters, digits, a few marks, and colons not
 * followed by a space (`tool:bash`).
 */
const PLAIN = /^[A-Za-z](?:[A-Za-z0-9 _.,/()!?+='-]|:(?! |$))*$/;
/** An integer YAML and JSON read alike (no sign, no leading zero: `010` is octal to js-yaml 3). */
const INTEGER = /^(?:0|[1-9][0-9]{0,14})$/;
/** The plain words YAML's core schema reads as booleans and null. */
const WORDS = new Map<string, boolean | null>([
  ...["true", "True", "TRUE"].map((w) => [w, true] as const),
  ...["false", "False", "FALSE"].map((w) => [w, false] as const),
  ...["null", "Null", "NULL"].map((w) => [w, null] as const),
]);
const NOT_FLAT = Symbol("not flat");

function flatValue(value: string): unknown {
  if (value.startsWith('"')) return DOUBLE.test(value) ? (JSON.parse(value) as string) : NOT_FLAT;
  if (value.startsWith("'")) return SINGLE.test(value) ? value.slice(1, -1).replaceAll("''", "'") : NOT_FLAT;
  if (INTEGER.test(value)) return Number(value);
  if (WORDS.has(value)) return WORDS.get(value);
  // a plain string: a comment (` #`) or a colon would make it something else
  return PLAIN.test(value) ? value : NOT_FLAT;
}
