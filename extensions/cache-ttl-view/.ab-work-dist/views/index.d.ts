import type { Caps } from "./caps.ts";
import type { ToolViewFn, ToolViewInput } from "./tool-view.ts";
/** Per-tool views for pi's built-in tools; any other tool gets the default view. */
export declare const TOOL_VIEWS: ReadonlyMap<string, ToolViewFn>;
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
export declare function renderToolView(input: ToolViewInput, caps: Caps, argsJson?: string): RenderedToolView;
export type { Caps } from "./caps.ts";
export type { ToolViewInput } from "./tool-view.ts";
//# sourceMappingURL=index.d.ts.map