import type {
  AssistantMsg,
  BashExecutionMsg,
  CustomMsg,
  ImagePart,
  TextPart,
  ToolCallPart,
  ToolResultMsg,
  UserMsg,
  ViewMessage,
} from "../model/messages.ts";
import type { StoredNotice } from "../state/entries.ts";
import { type Analysis, type Block, blocksOf, touches } from "./analysis.ts";
import type { Replacement } from "./replacements.ts";

/** Custom message type of the prune notice in the model's view. */
export const NOTICE_TYPE = "cache_ttl_pruned";

/** The notice as a pi custom message (pi sends custom messages to the model as user text). */
export function noticeMessage(notice: StoredNotice): CustomMsg {
  return { role: "custom", customType: NOTICE_TYPE, content: notice.text, display: true, timestamp: notice.at };
}

function replaceContentParts(
  parts: (TextPart | ImagePart)[],
  blocks: Block[],
  pruned: ReadonlySet<string>,
  replacement: (block: Block) => Replacement,
): (TextPart | ImagePart)[] {
  const out: (TextPart | ImagePart)[] = [];
  const text = blocks.find((b) => b.kind === "text" && pruned.has(b.id));
  let textDone = false;
  for (let p = 0; p < parts.length; p++) {
    const part = parts[p] as TextPart | ImagePart;
    if (part.type === "image") {
      const image = blocks.find((b) => b.kind === "image" && b.part === p);
      if (image && pruned.has(image.id))
        out.push({ type: "text", text: (replacement(image) as { text: string }).text });
      else out.push(part);
    } else if (text) {
      if (!textDone) out.push({ type: "text", text: (replacement(text) as { text: string }).text });
      textDone = true;
    } else out.push(part);
  }
  return out;
}

/** The view of one message given the pruned set, or the message itself when nothing in it is pruned. */
export function renderMessage(
  messages: readonly ViewMessage[],
  index: number,
  blocks: Block[],
  pruned: ReadonlySet<string>,
  replacement: (block: Block) => Replacement,
): ViewMessage {
  const m = messages[index] as ViewMessage;
  if (!blocks.some((b) => pruned.has(b.id))) return m;
  switch (m.role) {
    case "assistant": {
      const a = m as AssistantMsg;
      const text = blocks.find((b) => b.kind === "text" && pruned.has(b.id));
      const content: AssistantMsg["content"] = [];
      if (text) content.push({ type: "text", text: (replacement(text) as { text: string }).text });
      for (let p = 0; p < a.content.length; p++) {
        const part = a.content[p] as AssistantMsg["content"][number];
        if (part.type !== "toolCall") {
          if (!text) content.push(part);
          continue;
        }
        const tool = blocks.find((b) => b.kind === "tool" && b.callMsg === index && b.callPart === p);
        if (tool && pruned.has(tool.id)) {
          const r = replacement(tool) as Extract<Replacement, { kind: "tool" }>;
          content.push({ ...(part as ToolCallPart), arguments: r.args });
        } else content.push(part);
      }
      return { ...a, content };
    }
    case "toolResult": {
      const t = m as ToolResultMsg;
      const tool = blocks.find((b) => b.kind === "tool" && b.resultMsg === index);
      if (tool && pruned.has(tool.id)) {
        const r = replacement(tool) as Extract<Replacement, { kind: "tool" }>;
        return { ...t, content: [{ type: "text", text: r.summary }] };
      }
      return { ...t, content: replaceContentParts(t.content, blocks, pruned, replacement) as ToolResultMsg["content"] };
    }
    case "user":
    case "custom": {
      const u = m as UserMsg | CustomMsg;
      if (typeof u.content === "string") {
        return { ...u, content: (replacement(blocks[0] as Block) as { text: string }).text } as ViewMessage;
      }
      return { ...u, content: replaceContentParts(u.content, blocks, pruned, replacement) } as ViewMessage;
    }
    case "bashExecution": {
      const r = replacement(blocks[0] as Block) as Extract<Replacement, { kind: "text" }>;
      return { ...(m as BashExecutionMsg), command: r.command ?? (m as BashExecutionMsg).command, output: r.text };
    }
    default:
      return m;
  }
}

/** Where the view differs from the message list: replaced messages and inserted notices. */
export interface ViewPatch {
  replaced: [number, ViewMessage][];
  /** Notices inserted after message index (ascending). */
  inserts: [number, ViewMessage][];
}

/** Compute the patch that turns `messages` into the model's view. */
export function patchFor(
  messages: readonly ViewMessage[],
  analysis: Analysis,
  pruned: ReadonlySet<string>,
  notices: readonly StoredNotice[],
  replacement: (block: Block) => Replacement,
): ViewPatch {
  const replaced: [number, ViewMessage][] = [];
  if (pruned.size > 0) {
    for (let index = 0; index < messages.length; index++) {
      if (!touches(analysis, index, pruned)) continue;
      const view = renderMessage(messages, index, blocksOf(analysis, index), pruned, replacement);
      if (view !== messages[index]) replaced.push([index, view]);
    }
  }
  const inserts: [number, ViewMessage][] = [];
  if (notices.length > 0) {
    const indexOf = new Map<string, number>();
    for (let i = 0; i < analysis.keys.length; i++) indexOf.set(analysis.keys[i] as string, i);
    for (const notice of notices) {
      const at = indexOf.get(notice.after);
      if (at !== undefined) inserts.push([at, noticeMessage(notice)]);
    }
    inserts.sort((a, b) => a[0] - b[0]);
  }
  return { replaced, inserts };
}

/** Apply a patch to a (mutable, pi-cloned) message array, in place; returns it. */
export function applyPatch(messages: ViewMessage[], patch: ViewPatch): ViewMessage[] {
  for (const [index, view] of patch.replaced) messages[index] = view;
  for (let k = patch.inserts.length - 1; k >= 0; k--) {
    const [after, notice] = patch.inserts[k] as [number, ViewMessage];
    messages.splice(after + 1, 0, notice);
  }
  return messages;
}
