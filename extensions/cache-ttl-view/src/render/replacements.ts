import { jsonLength } from "../model/json.ts";
import {
  type AssistantMsg,
  type BashExecutionMsg,
  type ImagePart,
  partsOf,
  type TextPart,
  type ToolResultMsg,
  textOf,
  type ViewMessage,
} from "../model/messages.ts";
import { type Block, toolCallOf } from "../plan/analysis.ts";
import { type Caps, CUT, flat, truncateText } from "../views/caps.ts";
import { renderToolView } from "../views/index.ts";

/** What a pruned block shows instead of its original, with the sizes that decide whether pruning pays. */
export type Replacement =
  | {
      kind: "tool";
      args: Record<string, unknown>;
      summary: string;
      origChars: number;
      newChars: number;
      /** The largest artifact: the result text or the longest string argument (a written file). */
      heavyChars: number;
      /** The lines its view counted (stored with its prune, see `ToolViewInput.lines`). */
      lines?: number;
    }
  | {
      kind: "text";
      text: string;
      command?: string;
      origChars: number;
      newChars: number;
      /** Of `origChars`, the assistant's thinking (dropped whole; billed as input only on some APIs). */
      reasoningChars?: number;
    }
  | { kind: "image"; text: string; origChars: number; newChars: number };

const NO_IMAGES: readonly never[] = [];

/** `[TRUNCATED] id=… chars=…: <start>...` within `max` chars. */
export function textMarker(id: string, text: string, max: number): string {
  const head = `[TRUNCATED] id=${id} chars=${text.length}: `;
  const room = Math.max(0, max - head.length - CUT.length);
  return text.length <= room ? `${head}${text}` : `${head}${text.slice(0, room)}${CUT}`;
}

/** `[TRUNCATED FILE] id=… mime=… base64=…` for an image. */
export function imageMarker(id: string, image: ImagePart): string {
  return `[TRUNCATED FILE] id=${id} mime=${image.mimeType} base64=${image.data.length}`;
}

/**
 * The visible prose of a message that a text block covers. An assistant's thinking is not prose: it is dropped
 * whole when the block is pruned and never shown (or restored) as text.
 */
export function proseOf(m: ViewMessage): string {
  if (m.role === "assistant") {
    let out = "";
    for (const part of (m as AssistantMsg).content) {
      const t = part.type === "text" ? part.text : undefined;
      if (typeof t === "string" && t !== "") out += out ? `\n${t}` : t;
    }
    return out;
  }
  if (m.role === "bashExecution") return (m as BashExecutionMsg).output ?? "";
  const content = (m as { content?: unknown }).content;
  if (typeof content === "string") return content;
  return Array.isArray(content) ? textOf(content as TextPart[]) : "";
}

/** Chars of an assistant message's thinking parts (text and signature: both go on the wire). */
export function reasoningChars(m: AssistantMsg): number {
  let n = 0;
  for (const part of m.content) {
    if (part.type !== "thinking") continue;
    n += typeof part.thinking === "string" ? part.thinking.length : 0;
    const signature = (part as { thinkingSignature?: unknown }).thinkingSignature;
    if (typeof signature === "string") n += signature.length;
  }
  return n;
}

/**
 * Build the replacement of one block (deterministic: same input, caps and line count, same bytes). `lines`: the
 * count its prune stored, if any (see `ToolViewInput.lines`).
 */
export function replacementFor(
  messages: readonly ViewMessage[],
  block: Block,
  caps: Caps,
  lines?: number,
): Replacement {
  if (block.kind === "tool") {
    const call = toolCallOf(messages, block);
    const result = block.resultMsg >= 0 ? (messages[block.resultMsg] as ToolResultMsg) : undefined;
    const parts = result ? result.content : [];
    const resultText = textOf(parts);
    const args = call.arguments && typeof call.arguments === "object" ? call.arguments : {};
    const view = renderToolView(
      {
        tool: call.name,
        callId: call.id,
        id: block.id,
        args,
        resultText,
        // Images of the result are blocks of their own (the image budget decides them): not counted here.
        images: NO_IMAGES,
        isError: result?.isError === true,
        hasResult: result !== undefined,
        lines,
      },
      caps,
    );
    // Arguments the view kept as they are were serialised by it; others are measured without serialising them.
    const origChars = (view.args === args ? view.argsJson.length : jsonLength(args)) + resultText.length;
    const newChars = view.argsJson.length + view.summary.length;
    let longestArg = 0;
    for (const key in args) {
      const value = Object.hasOwn(args, key) ? args[key] : undefined;
      if (typeof value === "string" && value.length > longestArg) longestArg = value.length;
    }
    const heavyChars = Math.max(resultText.length, longestArg);
    const { args: shown, summary } = view;
    return view.lines === undefined
      ? { kind: "tool", args: shown, summary, origChars, newChars, heavyChars }
      : { kind: "tool", args: shown, summary, origChars, newChars, heavyChars, lines: view.lines };
  }
  const m = messages[block.msg] as ViewMessage;
  if (block.kind === "image") {
    const image = partsOf((m as { content: string | (TextPart | ImagePart)[] }).content)[block.part] as ImagePart;
    const text = imageMarker(block.id, image);
    return { kind: "image", text, origChars: image.data.length, newChars: text.length };
  }
  const prose = proseOf(m);
  if (m.role === "assistant") {
    // Short text stays as it is (empty marker); thinking goes whole either way.
    const text = prose.length > caps.maxTextChars ? flat(textMarker(block.id, prose, caps.maxTextChars)) : "";
    const reasoning = reasoningChars(m as AssistantMsg);
    const origChars = prose.length + reasoning;
    const newChars = text ? text.length : prose.length;
    return { kind: "text", text, origChars, newChars, ...(reasoning > 0 ? { reasoningChars: reasoning } : {}) };
  }
  const text = flat(textMarker(block.id, prose, caps.maxTextChars));
  if (m.role === "bashExecution") {
    const command = truncateText((m as BashExecutionMsg).command, caps.maxFieldChars);
    const orig = (m as BashExecutionMsg).command.length + prose.length;
    return { kind: "text", text, command, origChars: orig, newChars: text.length + command.length };
  }
  return { kind: "text", text, origChars: prose.length, newChars: text.length };
}
