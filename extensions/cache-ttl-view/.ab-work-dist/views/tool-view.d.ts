import { type Caps } from "./caps.ts";
/** What a per-tool view sees of one tool call and its result. */
export interface ToolViewInput {
    tool: string;
    callId: string;
    /** Block id shown to the model (what `context_restore` takes). */
    id: string;
    args: Record<string, unknown>;
    /** Joined text of the result; "" when there is none. */
    resultText: string;
    images: readonly {
        mimeType: string;
        chars: number;
    }[];
    isError: boolean;
    hasResult: boolean;
}
/** A view: the capped parameters (also sent as the call's arguments) and the result summary. */
export interface ToolView {
    params: Record<string, unknown>;
    result: unknown;
}
export type ToolViewFn = (input: ToolViewInput, caps: Caps) => ToolView;
/** A file body: `[TRUNCATED FILE] id=… path=… lines=… chars=…`. */
export declare function fileMarker(id: string, path: unknown, text: string, extra?: string): string;
/** ` images=image/png:1234` when a result carried images (they are dropped with the result). */
export declare function imagesNote(images: ToolViewInput["images"]): string;
//# sourceMappingURL=tool-view.d.ts.map