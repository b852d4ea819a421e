import { quoteJson } from "../model/json.ts";
import type { Caps } from "./caps.ts";
import { defaultView } from "./default-view.ts";
import { editView, readView, writeView } from "./file-views.ts";
import { bashView, grepView, listingView } from "./search-views.ts";
import type { ToolViewFn, ToolViewInput } from "./tool-view.ts";

/** Per-tool views for pi's built-in tools; any other tool gets the default view. */
export const TOOL_VIEWS: ReadonlyMap<string, ToolViewFn> = new Map([
  ["read", readView],
  ["write", writeView],
  ["edit", editView],
  ["bash", bashView],
  ["grep", grepView],
  ["find", listingView],
  ["ls", listingView],
]);

export interface RenderedToolView {
  /** Arguments the pruned tool call is sent with. */
  args: Record<string, unknown>;
  /** `JSON.stringify(args)`. */
  argsJson: string;
  /** The compact JSON summary that replaces the tool result. */
  summary: string;
}

/**
 * Render the replacement of one tool call + result pair. `argsJson` is the call's own arguments serialised, reused
 * when the view keeps them as they are. The summary is `JSON.stringify({tool, tool_call_id, id, params, result})`.
 */
export function renderToolView(input: ToolViewInput, caps: Caps, argsJson?: string): RenderedToolView {
  const view = TOOL_VIEWS.get(input.tool) ?? defaultView;
  const { params, result, resultSafe } = view(input, caps);
  const paramsJson = params === input.args && argsJson !== undefined ? argsJson : JSON.stringify(params);
  // What JSON.stringify({tool, tool_call_id, id, params, result}) writes, from the parts already serialised: joined
  // in one flat string (a template would build a tree of pieces and copy it again to flatten it).
  const resultJson =
    typeof result === "string" ? (resultSafe ? `"${result}"` : quoteJson(result)) : JSON.stringify(result);
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

export type { Caps } from "./caps.ts";
export type { ToolViewInput } from "./tool-view.ts";
