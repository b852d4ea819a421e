import { escapedJson, quoteJson } from "../model/json.ts";
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
  /** The lines the view counted, if it counted any (see `ToolViewInput.lines`). */
  lines?: number;
}

/**
 * Render the replacement of one tool call + result pair. The summary is
 * `JSON.stringify({tool, tool_call_id, id, params, result})`, joined from its pieces.
 */
export function renderToolView(input: ToolViewInput, caps: Caps): RenderedToolView {
  const view = TOOL_VIEWS.get(input.tool) ?? defaultView;
  const { params, result, resultJson, lines } = view(input, caps);
  const argsJson = JSON.stringify(params);
  const resultPiece = resultJson ?? (typeof result === "string" ? quoteJson(result) : JSON.stringify(result));
  // Joined in one flat string from pieces (a template would build a tree of pieces and copy it again to flatten
  // it); the names are quoted in place (no quoted copy of each).
  const summary = [
    '{"tool":"',
    escapedJson(input.tool),
    '","tool_call_id":"',
    escapedJson(input.callId),
    '","id":"',
    escapedJson(input.id),
    '","params":',
    argsJson,
    resultPiece === undefined ? "" : ',"result":',
    resultPiece ?? "",
    "}",
  ].join("");
  return lines === undefined ? { args: params, argsJson, summary } : { args: params, argsJson, summary, lines };
}

export type { Caps } from "./caps.ts";
export type { ToolViewInput } from "./tool-view.ts";
