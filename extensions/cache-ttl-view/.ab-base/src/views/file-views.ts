import { capValue } from "./caps.ts";
import { resultText } from "./default-view.ts";
import { fileMarker, imagesNote, type ToolViewFn } from "./tool-view.ts";

/** The `keys` of `args`, in that order; `args` itself when that is all it holds (its JSON is then reused). */
function pick(args: Record<string, unknown>, keys: string[]): Record<string, unknown> {
  const out: [string, unknown][] = [];
  for (const key of keys) if (Object.hasOwn(args, key) && args[key] !== undefined) out.push([key, args[key]]);
  const own = Object.keys(args);
  return own.length === out.length && out.every(([key], k) => own[k] === key) ? args : Object.fromEntries(out);
}

/** `read`: the file body becomes `[TRUNCATED FILE] path=… lines=… chars=…`; errors keep their text. */
export const readView: ToolViewFn = (input, caps) => {
  const params = capValue(pick(input.args, ["path", "offset", "limit"]), caps) as Record<string, unknown>;
  if (input.isError) return { params, result: resultText(input.resultText, caps.maxTextChars) };
  return { params, result: fileMarker(input.id, input.args["path"], input.resultText, imagesNote(input.images)) };
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
