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
  const { params, result } = view(input, caps);
  const paramsJson = params === input.args && argsJson !== undefined ? argsJson : JSON.stringify(params);
  // One stringify writes one flat string (pieces joined by hand would be a tree of cons strings, kept that way).
  const summary = JSON.stringify({ tool: input.tool, tool_call_id: input.callId, id: input.id, params, result });
  return { args: params, argsJson: paramsJson, summary };
}

export type { Caps } from "./caps.ts";
export type { ToolViewInput } from "./tool-view.ts";
