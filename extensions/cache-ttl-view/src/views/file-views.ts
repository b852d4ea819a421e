import { needsEscape } from "../model/json.ts";
import { capValue } from "./caps.ts";
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
  const result = fileMarker(input.id, path, input.resultText, note);
  // The marker's own text, the block id and the numbers never need escaping: only the path and the images' types.
  return {
    params,
    result,
    resultSafe: !needsEscape(input.id + note) && !(typeof path === "string" && needsEscape(path)),
  };
};

/** `write`: the written content is a file marker in the parameters; the short result is kept (capped). */
export const writeView: ToolViewFn = (input, caps) => {
  const content = input.args["content"];
  const params = capValue(pick(input.args, ["path"]), caps) as Record<string, unknown>;
  if (typeof content === "string") params["content"] = fileMarker(input.id, input.args["path"], content);
  return { params, result: resultText(input.resultText, caps.maxTextChars) };
};

/** `edit`: old/new texts capped per field (they are usually small), the diff result cut to `maxTextChars`. */
export const editView: ToolViewFn = (input, caps) => ({
  params: capValue(input.args, caps) as Record<string, unknown>,
  result: resultText(input.resultText, caps.maxTextChars),
});
