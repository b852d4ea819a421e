import { type Caps, countLines } from "./caps.ts";

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
}

/** A view: the capped parameters (also sent as the call's arguments) and the result summary. */
export interface ToolView {
  params: Record<string, unknown>;
  result: unknown;
  /**
   * Set when the view joined a string `result` from pieces it checked: no char of it needs a JSON escape, so the
   * summary quotes it without scanning it again (a cold pass quotes tens of thousands of file markers).
   */
  resultSafe?: boolean;
}

export type ToolViewFn = (input: ToolViewInput, caps: Caps) => ToolView;

/** A file body: `[TRUNCATED FILE] id=… path=… lines=… chars=…`. */
export function fileMarker(id: string, path: unknown, text: string, extra = ""): string {
  const lines = countLines(text);
  const where = typeof path === "string" ? ` path=${path}` : "";
  return `[TRUNCATED FILE] id=${id}${where} lines=${lines} chars=${text.length}${extra}`;
}

/** ` images=image/png:1234` when a result carried images (they are dropped with the result). */
export function imagesNote(images: ToolViewInput["images"]): string {
  return images.length === 0 ? "" : ` images=${images.map((i) => `${i.mimeType}:${i.chars}`).join(",")}`;
}
