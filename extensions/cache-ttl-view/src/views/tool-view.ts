import type { Caps } from "./caps.ts";

/** What a per-tool view sees of one tool call and its result. */
export interface ToolViewInput {
  tool: string;
  callId: string;
  /** Block id shown to the model (what `context_restore` takes). */
  id: string;
  args: Record<string, unknown>;
  /** Joined text of the result; "" when there is none. */
  resultText: string;
  images: readonly { mimeType: string; chars: number }[];
  isError: boolean;
  hasResult: boolean;
  /**
   * The lines of the text the view counts (a file body, an output, a listing), as its prune stored them: counted
   * once, when the block was first pruned. A reloaded session then draws its pruned blocks without reading every
   * output again, and the marker keeps the bytes it was first sent with.
   */
  lines?: number | undefined;
}

/** A view: the capped parameters (also sent as the call's arguments) and the result summary. */
export interface ToolView {
  params: Record<string, unknown>;
  result: unknown;
  /**
   * `result` already written as JSON, when the view built it from pieces it checked or escaped one by one: the
   * summary then takes it as it is, instead of flattening `result` and scanning it again (a cold pass writes tens of
   * thousands of file markers and output tails).
   */
  resultJson?: string;
  /** The lines the view counted (what a prune stores, see `ToolViewInput.lines`). */
  lines?: number;
}

export type ToolViewFn = (input: ToolViewInput, caps: Caps) => ToolView;

/** A file body: `[TRUNCATED FILE] id=… path=… lines=… chars=…`. */
export function fileMarker(id: string, path: unknown, text: string, lines: number, extra = ""): string {
  const where = typeof path === "string" ? ` path=${path}` : "";
  return `[TRUNCATED FILE] id=${id}${where} lines=${lines} chars=${text.length}${extra}`;
}

/** ` images=image/png:1234` when a result carried images (they are dropped with the result). */
export function imagesNote(images: ToolViewInput["images"]): string {
  return images.length === 0 ? "" : ` images=${images.map((i) => `${i.mimeType}:${i.chars}`).join(",")}`;
}
