import { needsEscape } from "../model/json.ts";
import { capValue, countLines } from "./caps.ts";
import { resultText } from "./default-view.ts";
import { fileMarker, imagesNote, type ToolViewFn } from "./tool-view.ts";

/** Whether `args` holds `key` with a value (what `pick` keeps). */
const holds = (args: Record<string, unknown>, key: string) => Object.hasOwn(args, key) && args[key] !== undefined;

/**
 * The `keys` of `args`, in that order; `args` itself when that is all it holds, in that order (its JSON is then
 * reused). Checked without building the picked list: this runs for every pruned `read` and `write`.
 */
function pick(args: Record<string, unknown>, keys: readonly string[]): Record<string, unknown> {
  let k = 0;
  let same = true;
  for (const key in args) {
    if (!Object.hasOwn(args, key)) continue;
    while (k < keys.length && !holds(args, keys[k] as string)) k++;
    if (keys[k] !== key) {
      same = false;
      break;
    }
    k++;
  }
  while (same && k < keys.length && !holds(args, keys[k] as string)) k++;
  if (same && k === keys.length) return args;
  return Object.fromEntries(keys.filter((key) => holds(args, key)).map((key) => [key, args[key]]));
}

/** `read`: the file body becomes `[TRUNCATED FILE] path=… lines=… chars=…`; errors keep their text. */
export const readView: ToolViewFn = (input, caps) => {
  const params = capValue(pick(input.args, ["path", "offset", "limit"]), caps) as Record<string, unknown>;
  if (input.isError) return { params, result: resultText(input.resultText, caps.maxTextChars) };
  const path = input.args["path"];
  const note = imagesNote(input.images);
  const lines = input.lines ?? countLines(input.resultText);
  const result = fileMarker(input.id, path, input.resultText, lines, note);
  // The marker's own text, the block id and the numbers never need escaping: only the path and the images' types.
  const safe = !needsEscape(input.id + note) && !(typeof path === "string" && needsEscape(path));
  return safe ? { params, result, resultJson: `"${result}"`, lines } : { params, result, lines };
};

/** `write`: the written content is a file marker in the parameters; the short result is kept (capped). */
export const writeView: ToolViewFn = (input, caps) => {
  const content = input.args["content"];
  const params = capValue(pick(input.args, ["path"]), caps) as Record<string, unknown>;
  const result = resultText(input.resultText, caps.maxTextChars);
  if (typeof content !== "string") return { params, result };
  const lines = input.lines ?? countLines(content);
  params["content"] = fileMarker(input.id, input.args["path"], content, lines);
  return { params, result, lines };
};

/** `edit`: old/new texts capped per field (they are usually small), the diff result cut to `maxTextChars`. */
export const editView: ToolViewFn = (input, caps) => ({
  params: capValue(input.args, caps) as Record<string, unknown>,
  result: resultText(input.resultText, caps.maxTextChars),
});
