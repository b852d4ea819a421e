import { capValue, truncateText } from "./caps.ts";
import { imagesNote, type ToolViewFn } from "./tool-view.ts";

/** Any tool without its own view: parameters capped per field, the result cut to `maxTextChars`. */
export const defaultView: ToolViewFn = (input, caps) => ({
  params: capValue(input.args, caps) as Record<string, unknown>,
  result: resultText(input.resultText, caps.maxTextChars, imagesNote(input.images)),
});

/** A result text as a summary value: `ref:` verbatim, else `[TRUNCATED] …` within `max`. */
export function resultText(text: string, max: number, note = ""): string {
  if (text.startsWith("ref:")) return text;
  const cut = truncateText(text, Math.max(16, max - note.length));
  return note ? `${cut}${note}` : cut;
}
