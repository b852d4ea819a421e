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
  /** The compact JSON summary that replaces the tool result. */
  summary: string;
}

/** Render the replacement of one tool call + result pair. */
export function renderToolView(input: ToolViewInput, caps: Caps): RenderedToolView {
  const view = TOOL_VIEWS.get(input.tool) ?? defaultView;
  const { params, result } = view(input, caps);
  const summary = JSON.stringify({ tool: input.tool, tool_call_id: input.callId, id: input.id, params, result });
  return { args: params, summary };
}

export type { Caps } from "./caps.ts";
export type { ToolViewInput } from "./tool-view.ts";
