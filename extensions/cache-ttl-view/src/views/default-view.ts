import { type Caps, capValue, truncateText } from "./caps.ts";
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

/** A result text as a summary value: `ref:` verbatim, else `[TRUNCATED] …` within `max`. */
export function resultText(text: string, max: number, note = ""): string {
  if (text.startsWith("ref:")) return text;
  const cut = truncateText(text, Math.max(16, max - note.length));
  return note ? `${cut}${note}` : cut;
}

const SEARCH_HIT = ["sid", "url", "title", "text"];
const FETCHED = ["url", "title", "content"];

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function only(record: Record<string, unknown>, keys: string[]): Record<string, unknown> {
  return Object.fromEntries(keys.filter((k) => Object.hasOwn(record, k)).map((k) => [k, record[k]]));
}

/** Search hits and fetched pages reduced to the fields that identify them; anything else as it is. */
export function compactKnownShapes(value: unknown): unknown {
  if (Array.isArray(value)) {
    return value.map((item) => (isRecord(item) && Object.hasOwn(item, "url") ? only(item, SEARCH_HIT) : item));
  }
  if (isRecord(value)) {
    if (Object.hasOwn(value, "url") && Object.hasOwn(value, "content")) return only(value, FETCHED);
    for (const key of ["results", "hits", "items"]) {
      if (Array.isArray(value[key])) return { ...value, [key]: compactKnownShapes(value[key]) };
    }
  }
  return value;
}

/** A JSON result, shape kept, capped per field and within `maxTextChars` (shorter fields until it fits). */
function jsonResult(text: string, caps: Caps): unknown {
  const first = text.trimStart()[0];
  if (first !== "{" && first !== "[") return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  const compact = compactKnownShapes(parsed);
  for (let field = caps.maxFieldChars; field >= 32; field = Math.floor(field / 2)) {
    const capped = capValue(compact, { ...caps, maxFieldChars: field });
    if (JSON.stringify(capped).length <= caps.maxTextChars) return capped;
  }
  return undefined;
}
