import { type Caps, capValue, findRefs, NO_REFS, type RefFinder, refFinder, refsIn, truncateText } from "./caps.ts";
import { imagesNote, type ToolViewFn } from "./tool-view.ts";

/**
 * Any tool without its own view: parameters capped per field; a JSON result keeps its shape (search hits reduced to
 * `sid`, `url`, `title`, `text`; a fetched page to `url`, `title`, `content`; then capped per field), any other
 * result is cut to `maxTextChars`.
 */
export const defaultView: ToolViewFn = (input, caps) => ({
  params: capValue(input.args, caps) as Record<string, unknown>,
  result:
    jsonResult(input.resultText, caps) ?? resultText(input.resultText, caps.maxTextChars, imagesNote(input.images)),
});

/** A result text as a summary value: `ref:` verbatim, else `[TRUNCATED] …` within `max`, plus every `ref:` it held. */
export function resultText(text: string, max: number, note = ""): string {
  if (text.startsWith("ref:") && !/\s/.test(text.trim())) return text;
  if (text.length <= max && !note) return text;
  const refs = text.length > max ? refsIn(text) : [];
  const tail = `${note}${refs.length > 0 ? ` refs: ${refs.join(" ")}` : ""}`;
  const cut = truncateText(text, Math.max(16, max - tail.length));
  return `${cut}${tail}`;
}

const SEARCH_HIT = ["sid", "url", "title", "text"];
const FETCHED = ["url", "title", "content"];

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** The identifying keys of a record, plus any key whose value holds a `ref:` reference, however deep. */
function only(record: Record<string, unknown>, keys: string[], refs: RefFinder): Record<string, unknown> {
  return Object.fromEntries(
    Object.keys(record)
      .filter((k) => keys.includes(k) || (refs !== NO_REFS && refs(record[k]).length > 0))
      .map((k) => [k, record[k]]),
  );
}

/**
 * Search hits and fetched pages reduced to the fields that identify them, and those holding references (`refs`
 * finds them, see `refFinder`); anything else as it is.
 */
export function compactKnownShapes(value: unknown, refs: RefFinder = findRefs): unknown {
  if (Array.isArray(value)) {
    return value.map((item) => (isRecord(item) && Object.hasOwn(item, "url") ? only(item, SEARCH_HIT, refs) : item));
  }
  if (isRecord(value)) {
    if (Object.hasOwn(value, "url") && Object.hasOwn(value, "content")) return only(value, FETCHED, refs);
    for (const key of ["results", "hits", "items"]) {
      if (Array.isArray(value[key])) return { ...value, [key]: compactKnownShapes(value[key], refs) };
    }
  }
  return value;
}

/**
 * A JSON result, shape kept, shrunk until it fits `maxTextChars`: shorter fields first, then fewer list items. A
 * result whose shape alone is larger keeps the smallest form of its shape (the planner still refuses a replacement
 * that is not smaller than the original).
 */
function jsonResult(text: string, caps: Caps): unknown {
  const first = text.trimStart()[0];
  if (first !== "{" && first !== "[") return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  const refs = refFinder(text);
  const compact = compactKnownShapes(parsed, refs);
  let smallest: unknown;
  for (let items = caps.maxListItems; ; items = Math.max(1, Math.floor(items / 2))) {
    for (let field = caps.maxFieldChars; ; field = Math.max(16, Math.floor(field / 2))) {
      smallest = capValue(compact, { ...caps, maxFieldChars: field, maxListItems: items }, 0, refs);
      if (JSON.stringify(smallest).length <= caps.maxTextChars) return smallest;
      if (field === 16) break;
    }
    if (items === 1) break;
  }
  return smallest;
}
