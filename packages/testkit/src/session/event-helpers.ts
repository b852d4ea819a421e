/**
 * Small readers for what pi emits, shared by in-process events (`TestSession.events`) and the
 * CLI's JSON mode (`RunPiResult.events`), so tests assert on text rather than event plumbing.
 */

/** Streamed delta kinds carried by `message_update` events. */
export type DeltaKind = "text_delta" | "thinking_delta" | "toolcall_delta";

interface MaybeUpdate {
  type: string;
  assistantMessageEvent?: { type: string; delta?: string };
}

/** The `delta` strings of every `message_update` of one kind, in order. */
export function deltasOf(events: readonly object[], kind: DeltaKind): string[] {
  const out: string[] = [];
  for (const event of events as readonly MaybeUpdate[]) {
    const inner = event.assistantMessageEvent;
    if (event.type === "message_update" && inner?.type === kind && typeof inner.delta === "string") {
      out.push(inner.delta);
    }
  }
  return out;
}

/**
 * Plain text of a message or its content, whatever the shape: a string, pi content blocks
 * (`{type:"text",text}`), or OpenAI content parts. Non-text blocks are skipped.
 */
export function messageText(messageOrContent: unknown): string {
  const content =
    messageOrContent && typeof messageOrContent === "object" && "content" in messageOrContent
      ? (messageOrContent as { content: unknown }).content
      : messageOrContent;
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((part: unknown) => {
      const block = part as { type?: string; text?: unknown };
      return block?.type === "text" && typeof block.text === "string" ? block.text : "";
    })
    .join("");
}
