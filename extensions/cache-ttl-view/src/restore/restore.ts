import type { ImagePart, TextPart, ToolResultMsg, ViewMessage } from "../model/messages.ts";
import { partsOf } from "../model/messages.ts";
import type { Block } from "../plan/analysis.ts";
import { proseOf, toolCallOf } from "../plan/replacements.ts";

/** Tool name the model calls to get pruned originals back. */
export const RESTORE_TOOL = "context_restore";

/**
 * The content `context_restore` returns for found originals: it lands at the tail of the conversation, so the
 * cached (pruned) prefix stays byte-identical and the model still sees the full original.
 */
export function restoredContent(
  found: readonly { id: string; block: Block; messages: readonly ViewMessage[] }[],
  missing: readonly string[],
): (TextPart | ImagePart)[] {
  const out: (TextPart | ImagePart)[] = [];
  for (const { id, block, messages } of found) {
    if (block.kind === "tool") {
      const call = toolCallOf(messages, block);
      const result = block.resultMsg >= 0 ? (messages[block.resultMsg] as ToolResultMsg) : undefined;
      out.push({
        type: "text",
        text: `<original id="${id}" tool="${call.name}" tool_call_id="${call.id}">\narguments: ${JSON.stringify(call.arguments)}\nresult:`,
      });
      for (const part of result?.content ?? []) out.push(part);
      out.push({ type: "text", text: "</original>" });
    } else if (block.kind === "image") {
      const m = messages[block.msg] as { content: string | (TextPart | ImagePart)[] };
      out.push({ type: "text", text: `<original id="${id}" kind="image">` });
      out.push(partsOf(m.content)[block.part] as ImagePart);
      out.push({ type: "text", text: "</original>" });
    } else {
      const m = messages[block.msg] as ViewMessage;
      out.push({ type: "text", text: `<original id="${id}" role="${m.role}">\n${proseOf(m)}\n</original>` });
    }
  }
  if (missing.length > 0) {
    out.push({
      type: "text",
      text: `Unknown id(s): ${missing.join(", ")}. Use the ids shown as id=… in [TRUNCATED] texts or in tool summaries.`,
    });
  }
  return out;
}
