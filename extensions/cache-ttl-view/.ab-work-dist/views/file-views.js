import { capValue } from "./caps.js";
import { resultText } from "./default-view.js";
import { fileMarker, imagesNote } from "./tool-view.js";
/** Whether `args` holds `key` with a value (what `pick` keeps). */
const holds = (args, key) => Object.hasOwn(args, key) && args[key] !== undefined;
/**
 * The `keys` of `args`, in that order; `args` itself when that is all it holds, in that order (its JSON is then
 * reused). Checked without building the picked list: this runs for every pruned `read` and `write`.
 */
function pick(args, keys) {
    let k = 0;
    let same = true;
    for (const key in args) {
        if (!Object.hasOwn(args, key))
            continue;
        while (k < keys.length && !holds(args, keys[k]))
            k++;
        if (keys[k] !== key) {
            same = false;
            break;
        }
        k++;
    }
    while (same && k < keys.length && !holds(args, keys[k]))
        k++;
    if (same && k === keys.length)
        return args;
    return Object.fromEntries(keys.filter((key) => holds(args, key)).map((key) => [key, args[key]]));
}
/** `read`: the file body becomes `[TRUNCATED FILE] path=… lines=… chars=…`; errors keep their text. */
export const readView = (input, caps) => {
    const params = capValue(pick(input.args, ["path", "offset", "limit"]), caps);
    if (input.isError)
        return { params, result: resultText(input.resultText, caps.maxTextChars) };
    return { params, result: fileMarker(input.id, input.args["path"], input.resultText, imagesNote(input.images)) };
};
/** `write`: the written content is a file marker in the parameters; the short result is kept (capped). */
export const writeView = (input, caps) => {
    const content = input.args["content"];
    const params = capValue(pick(input.args, ["path"]), caps);
    if (typeof content === "string")
        params["content"] = fileMarker(input.id, input.args["path"], content);
    return { params, result: resultText(input.resultText, caps.maxTextChars) };
};
/** `edit`: old/new texts capped per field (they are usually small), the diff result cut to `maxTextChars`. */
export const editView = (input, caps) => ({
    params: capValue(input.args, caps),
    result: resultText(input.resultText, caps.maxTextChars),
});
//# sourceMappingURL=file-views.js.map