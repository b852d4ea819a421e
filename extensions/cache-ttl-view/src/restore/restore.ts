import type { ImagePart, TextPart, ToolResultMsg, ViewMessage } from "../model/messages.ts";
import { partsOf } from "../model/messages.ts";
import { type Analysis, type Block, type IdSet, partBlock, toolCallOf } from "../plan/analysis.ts";
import { proseOf } from "../render/replacements.ts";

/** Tool name the model calls to get pruned originals back. */
export const RESTORE_TOOL = "context_restore";

/**
 * `context_restore`'s parameters as plain JSON Schema (what TypeBox's `Type.Object` would write, key for key): pi
 * loads the extension's bundle with Node's own loader, outside the alias that hands TypeScript extensions pi's
 * TypeBox, and TypeBox is only an optional peer of this package. pi-ai validates plain schemas as well.
 */
export const RESTORE_PARAMETERS = {
  type: "object",
  required: ["ids"],
  properties: {
    ids: { type: "array", items: { type: "string" }, description: 'Block ids, e.g. ["ab12cd34"]' },
    inPlace: { type: "boolean", description: "Unprune in place instead of appending (default false)" },
  },
} as const;

/** `context_restore` as pi registers it (its `execute` is the session's `restore`). */
export const RESTORE_TOOL_INFO = {
  name: RESTORE_TOOL,
  label: "Restore context",
  description:
    "Show again the original of blocks that were pruned from the context after the prompt cache expired. " +
    "Pass the ids shown as id=… in [TRUNCATED] texts or in pruned tool summaries. By default the originals are " +
    "appended here, at the end of the conversation (the cached prefix stays valid); inPlace: true puts them " +
    "back where they were from the next request on (this re-writes the prompt cache from that point).",
  promptSnippet: "Restore pruned context blocks by id (ids from [TRUNCATED] texts)",
  parameters: RESTORE_PARAMETERS,
};

/** What `context_restore` is called with (validated against `RESTORE_PARAMETERS` by pi before it runs). */
export interface RestoreParams {
  ids: string[];
  inPlace?: boolean;
}

/**
 * The content `context_restore` returns for found originals: it lands at the tail of the conversation, so the
 * cached (pruned) prefix stays byte-identical and the model still sees the full original.
 */
export function restoredContent(
  found: readonly { id: string; block: Block; messages: readonly ViewMessage[] }[],
  notes: readonly string[] = [],
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
  for (const text of notes) out.push({ type: "text", text });
  return out;
}

const ORIGINAL_OPEN = /<original id="([^"]+)"/g;

const ORIGINAL_CLOSE = "</original>";

/**
 * Ids whose originals an earlier `context_restore` already appended and that are still in view there, whole: its
 * result is not pruned, and neither is any image inside that original (the image budget prunes images of restore
 * results like any other). Asking again for one in view would append the whole original a second time.
 */
export function shownOriginals(messages: readonly ViewMessage[], analysis: Analysis, pruned: IdSet): Set<string> {
  const out = new Set<string>();
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i] as ViewMessage;
    if (m.role !== "toolResult" || (m as ToolResultMsg).toolName !== RESTORE_TOOL) continue;
    const owner = analysis.resultTool[i] as number;
    if (owner >= 0 && pruned.has((analysis.blocks[owner] as Block).id)) continue;
    const here = new Set<string>();
    const cut = new Set<string>();
    /** The original whose parts are being read (its opening tag came, its closing tag not yet). */
    let open: string | undefined;
    const parts = (m as ToolResultMsg).content;
    for (let p = 0; p < parts.length; p++) {
      const part = parts[p] as TextPart | ImagePart;
      if (part.type === "image") {
        const image = partBlock(analysis, i, p);
        if (open !== undefined && image !== undefined && pruned.has(image.id)) cut.add(open);
        continue;
      }
      if (part.type !== "text" || typeof part.text !== "string") continue;
      for (const match of part.text.matchAll(ORIGINAL_OPEN)) {
        open = match[1] as string;
        here.add(open);
      }
      if (part.text.lastIndexOf(ORIGINAL_CLOSE) > part.text.lastIndexOf("<original id=")) open = undefined;
    }
    for (const id of here) if (!cut.has(id)) out.add(id);
  }
  return out;
}

/** The text `context_restore` answers for ids it does not append again (already shown, not pruned, unknown). */
export function restoreNotes(ids: { notPruned: string[]; alreadyShown: string[]; missing: string[] }): string[] {
  const out: string[] = [];
  if (ids.alreadyShown.length > 0) {
    out.push(
      `Already restored above in this conversation (not repeated): ${ids.alreadyShown.join(", ")}. Scroll back to the earlier context_restore result.`,
    );
  }
  if (ids.notPruned.length > 0) {
    out.push(`Not pruned (already shown in full where they are): ${ids.notPruned.join(", ")}.`);
  }
  if (ids.missing.length > 0) {
    out.push(
      `Unknown id(s): ${ids.missing.join(", ")}. Use the ids shown as id=… in [TRUNCATED] texts or in tool summaries.`,
    );
  }
  return out;
}
