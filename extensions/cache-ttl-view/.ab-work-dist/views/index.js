import { quoteJson } from "../model/json.js";
import { defaultView } from "./default-view.js";
import { editView, readView, writeView } from "./file-views.js";
import { bashView, grepView, listingView } from "./search-views.js";
/** Per-tool views for pi's built-in tools; any other tool gets the default view. */
export const TOOL_VIEWS = new Map([
    ["read", readView],
    ["write", writeView],
    ["edit", editView],
    ["bash", bashView],
    ["grep", grepView],
    ["find", listingView],
    ["ls", listingView],
]);
/**
 * Render the replacement of one tool call + result pair. `argsJson` is the call's own arguments serialised, reused
 * when the view keeps them as they are. The summary is `JSON.stringify({tool, tool_call_id, id, params, result})`.
 */
export function renderToolView(input, caps, argsJson) {
    const view = TOOL_VIEWS.get(input.tool) ?? defaultView;
    const { params, result } = view(input, caps);
    const paramsJson = params === input.args && argsJson !== undefined ? argsJson : JSON.stringify(params);
    // What JSON.stringify({tool, tool_call_id, id, params, result}) writes, from the parts already serialised: joined
    // in one flat string (a template would build a tree of pieces and copy it again to flatten it).
    const resultJson = typeof result === "string" ? quoteJson(result) : JSON.stringify(result);
    const summary = [
        '{"tool":',
        quoteJson(input.tool),
        ',"tool_call_id":',
        quoteJson(input.callId),
        ',"id":',
        quoteJson(input.id),
        ',"params":',
        paramsJson,
        resultJson === undefined ? "" : ',"result":',
        resultJson ?? "",
        "}",
    ].join("");
    return { args: params, argsJson: paramsJson, summary };
}
//# sourceMappingURL=index.js.map