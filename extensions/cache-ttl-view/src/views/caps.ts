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

/** The caps of a settings object (what a prune entry stores, so its replacements never change afterwards). */
export function capsOf(settings: Caps): Caps {
  const { maxTextChars, maxFieldChars, maxListItems, maxDictKeys } = settings;
  return { maxTextChars, maxFieldChars, maxListItems, maxDictKeys };
}

const MARK = "[TRUNCATED] ";
/**
 * Where a text was cut. ASCII on purpose: one non-ASCII char (`…`) makes V8 store the whole replacement, and every
 * string joined from it, two bytes per char; a cold pass over a long session builds tens of thousands of them.
 */
export const CUT = "...";
const MAX_DEPTH = 8;

/**
 * A text joined from pieces (a V8 cons-string tree) as one flat string (charCodeAt flattens): one object to keep,
 * which the collector copies once instead of a tree.
 */
export function flat(s: string): string {
  s.charCodeAt(0);
  return s;
}

/** `[TRUNCATED] <prefix>...`, at most `max` chars; text that fits is returned as is. */
export function truncateText(text: string, max: number): string {
  if (text.length <= max) return text;
  const keep = Math.max(0, max - MARK.length - CUT.length);
  return `${MARK}${text.slice(0, keep)}${CUT}`;
}

/** What starts a cut tail (see `truncateTail`). */
export const TAIL_MARK = `${MARK}${CUT}`;

/** `[TRUNCATED] ...<suffix>`: the end of a text, for outputs whose last lines matter (bash). */
export function truncateTail(text: string, max: number): string {
  return text.length <= max ? text : `${TAIL_MARK}${keptTail(text, max)}`;
}

/** The end of a text longer than `max` that `truncateTail` keeps after its mark (a slice: nothing copied). */
export function keptTail(text: string, max: number): string {
  return text.slice(text.length - Math.max(0, max - TAIL_MARK.length));
}

const REF = "ref:";
/** A `ref:` reference written inside a text (a whole value starting with `ref:` is one reference, spaces and all). */
const REF_IN_TEXT = /(?<![\w/])ref:[^\s"'<>,;)\]}]+/g;

/** The `ref:` references in a text, in order, each once. */
export function refsIn(text: string): string[] {
  return [...new Set(text.match(REF_IN_TEXT) ?? [])];
}

/**
 * Every `ref:` reference a JSON-like value holds, in order: string values starting with `ref:` whole, and references
 * written inside other strings. What a cut drops, its marker names, so no reference leaves a default view's
 * summary.
 */
export function refsOf(value: unknown, out: string[] = [], depth = 0): string[] {
  if (typeof value === "string") {
    if (value.startsWith(REF)) out.push(value);
    else if (value.includes(REF)) out.push(...refsIn(value));
  } else if (value !== null && typeof value === "object" && depth < 64) {
    for (const item of Array.isArray(value) ? value : Object.values(value)) refsOf(item, out, depth + 1);
  }
  return out;
}

/**
 * The references a cut drops (see `refsOf`): those `value` holds, or for a list from item `from` on. `NO_REFS`: the
 * value holds none (nothing is searched, and a cut allocates nothing more than before).
 */
export type RefFinder = (value: unknown, from?: number) => readonly string[];

const NONE: readonly string[] = [];

/** The finder of a value that holds no reference. */
export const NO_REFS: RefFinder = () => NONE;

/** `refsOf`, as a finder (each cut searches what it drops). */
export const findRefs: RefFinder = (value, from = 0) =>
  Array.isArray(value) && from > 0 ? refsOf(value.slice(from)) : refsOf(value);

/**
 * The finder for one JSON document: `NO_REFS` when its text holds no `ref:`, else one that remembers what each
 * object and each list's tail holds (fitting a document cuts the same lists and records many times).
 */
export function refFinder(text: string): RefFinder {
  if (!text.includes(REF)) return NO_REFS;
  const seen = new WeakMap<object, string[]>();
  const tails = new WeakMap<object, Map<number, string[]>>();
  const find = (value: unknown, depth: number): string[] => {
    if (value === null || typeof value !== "object" || depth >= 64) return refsOf(value, [], 64);
    let refs = seen.get(value);
    if (!refs) {
      refs = [];
      for (const item of Array.isArray(value) ? value : Object.values(value)) refs.push(...find(item, depth + 1));
      seen.set(value, refs);
    }
    return refs;
  };
  return (value, from = 0) => {
    if (!Array.isArray(value) || from === 0) return find(value, 0);
    let byFrom = tails.get(value);
    if (!byFrom) {
      byFrom = new Map();
      tails.set(value, byFrom);
    }
    let refs = byFrom.get(from);
    if (!refs) {
      refs = [];
      for (let i = from; i < value.length; i++) refs.push(...find(value[i], 1));
      byFrom.set(from, refs);
    }
    return refs;
  };
}

/** Each list of references once, joined (a finder hands out the same list for the same cut). */
const joined = new WeakMap<readonly string[], string>();

/** `marker refs: <each reference once>` when a cut dropped references, else the marker. */
function withRefs(marker: string, refs: readonly string[]): string {
  if (refs.length === 0) return marker;
  let list = joined.get(refs);
  if (list === undefined) {
    list = [...new Set(refs)].join(" ");
    joined.set(refs, list);
  }
  return `${marker} refs: ${list}`;
}

/** A text cut to `max` (see `truncateText`), naming the references the cut part held. */
function capText(text: string, max: number): string {
  const cut = truncateText(text, max);
  if (cut === text || !text.includes(REF)) return cut;
  const kept = new Set(refsIn(cut));
  return withRefs(
    cut,
    refsIn(text).filter((ref) => !kept.has(ref)),
  );
}

/**
 * Cap a JSON-like value: strings to `maxFieldChars` (except `ref:`), lists and objects to their item caps; a cut
 * names the `ref:` references it dropped (`refs` finds them, see `refFinder`). A value that needs no cut is returned
 * as is (same reference), so the common case allocates nothing.
 */
export function capValue(value: unknown, caps: Caps, depth = 0, refs: RefFinder = findRefs): unknown {
  if (typeof value === "string") return value.startsWith(REF) ? value : capText(value, caps.maxFieldChars);
  if (value === null || typeof value !== "object") return value;
  if (depth >= MAX_DEPTH) return withRefs(`${MARK}nested value`, refs(value));
  if (Array.isArray(value)) {
    let out: unknown[] | undefined;
    const n = Math.min(value.length, caps.maxListItems);
    for (let i = 0; i < n; i++) {
      const capped = capValue(value[i], caps, depth + 1, refs);
      if (capped !== value[i] && !out) out = value.slice(0, i);
      out?.push(capped);
    }
    if (value.length <= caps.maxListItems) return out ?? value;
    out ??= value.slice(0, n);
    out.push(withRefs(`${MARK}+${value.length - caps.maxListItems} items`, refs(value, n)));
    return out;
  }
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record);
  // Entries are collected only from the first change on (a record that needs no cut allocates nothing).
  let entries: [string, unknown][] | undefined = keys.length > caps.maxDictKeys ? [] : undefined;
  for (let k = 0; k < Math.min(keys.length, caps.maxDictKeys); k++) {
    const key = keys[k] as string;
    const capped = capValue(record[key], caps, depth + 1, refs);
    if (!entries && (capped !== record[key] || key === "__proto__")) {
      entries = keys.slice(0, k).map((done): [string, unknown] => [done, record[done]]);
    }
    entries?.push([key, capped]);
  }
  if (!entries) return value;
  if (keys.length > caps.maxDictKeys) {
    const dropped = refs === NO_REFS ? NONE : refs(keys.slice(caps.maxDictKeys).map((key) => record[key]));
    entries.push([CUT, withRefs(`${MARK}+${keys.length - caps.maxDictKeys} keys`, dropped)]);
  }
  // fromEntries defines own data properties: a key named `__proto__` stays a key.
  return Object.fromEntries(entries);
}

/** Number of lines of a text (a trailing newline does not start a line); counts without splitting. */
export function countLines(text: string): number {
  if (text === "") return 0;
  let n = 1;
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) n++;
  return text.endsWith("\n") ? n - 1 : n;
}

/** The first `max` lines of a text (without splitting the rest). */
export function firstLines(text: string, max: number): string[] {
  const out: string[] = [];
  let start = 0;
  while (out.length < max && start < text.length) {
    const end = text.indexOf("\n", start);
    out.push(text.slice(start, end === -1 ? text.length : end));
    if (end === -1) break;
    start = end + 1;
  }
  return out;
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
