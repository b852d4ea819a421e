import { imageBlockId, messageKeys, textBlockId, toolBlockId } from "../model/ids.ts";
import {
  isAssistant,
  isBashExecution,
  isCustom,
  isSummary,
  isToolResult,
  isUser,
  type ToolCallPart,
  type ViewMessage,
} from "../model/messages.ts";
import { turnAges } from "../turns/turns.ts";

/**
 * The blocks of a message list: what can be pruned, and where it lives. A tool block is a call and its result
 * (pruned together so the pair stays a pair); a text block is a message's prose; an image block one image part.
 */
export type Block =
  | { kind: "tool"; id: string; age: number; callMsg: number; callPart: number; resultMsg: number; tool: string }
  | { kind: "text"; id: string; age: number; msg: number }
  | { kind: "image"; id: string; age: number; msg: number; part: number; chars: number };

export interface Analysis {
  keys: string[];
  ages: Int32Array;
  /** Blocks in message order; those of message i are `blocks[first[i]]` up to `blocks[first[i + 1]]`. */
  blocks: Block[];
  first: Int32Array;
  /** Index in `blocks` of the tool block whose result is message i, or -1. */
  resultTool: Int32Array;
}

const byIdCache = new WeakMap<Analysis, Map<string, Block>>();

/** Find a block by id (built on first use: only restores and tests need it). */
export function blockById(analysis: Analysis, id: string): Block | undefined {
  let map = byIdCache.get(analysis);
  if (!map) {
    map = new Map(analysis.blocks.map((b) => [b.id, b]));
    byIdCache.set(analysis, map);
  }
  return map.get(id);
}

/** The blocks living in message i: its own, plus the tool block it is the result of. */
export function blocksOf(analysis: Analysis, i: number): Block[] {
  const out = analysis.blocks.slice(analysis.first[i], analysis.first[i + 1]);
  const tool = analysis.resultTool[i] as number;
  if (tool >= 0) out.push(analysis.blocks[tool] as Block);
  return out;
}

/** Whether anything in message i is in `ids` (no allocation). */
export function touches(analysis: Analysis, i: number, ids: ReadonlySet<string>): boolean {
  for (let b = analysis.first[i] as number; b < (analysis.first[i + 1] as number); b++) {
    if (ids.has((analysis.blocks[b] as Block).id)) return true;
  }
  const tool = analysis.resultTool[i] as number;
  return tool >= 0 && ids.has((analysis.blocks[tool] as Block).id);
}

/** One linear pass over the messages. */
export function analyze(messages: readonly ViewMessage[]): Analysis {
  const keys = messageKeys(messages);
  const ages = turnAges(messages);
  const n = messages.length;
  const analysis: Analysis = {
    keys,
    ages,
    blocks: [],
    first: new Int32Array(n + 1),
    resultTool: new Int32Array(n).fill(-1),
  };
  const blocks = analysis.blocks;
  const resultOf = new Map<string, number>();
  for (let i = 0; i < n; i++) {
    const m = messages[i] as ViewMessage;
    if (isToolResult(m)) resultOf.set(m.toolCallId, i);
  }
  for (let i = 0; i < n; i++) {
    analysis.first[i] = blocks.length;
    const m = messages[i] as ViewMessage;
    if (isSummary(m)) continue;
    const key = keys[i] as string;
    const age = ages[i] as number;
    if (isAssistant(m)) {
      let prose = false;
      for (let p = 0; p < m.content.length; p++) {
        const part = m.content[p];
        if (part?.type === "toolCall") {
          const call = part as ToolCallPart;
          const resultMsg = resultOf.get(call.id) ?? -1;
          if (resultMsg > i) analysis.resultTool[resultMsg] = blocks.length;
          blocks.push({
            kind: "tool",
            id: toolBlockId(call.id),
            age,
            callMsg: i,
            callPart: p,
            resultMsg,
            tool: call.name,
          });
        } else if (part?.type === "text" || part?.type === "thinking") prose = true;
      }
      if (prose) blocks.push({ kind: "text", id: textBlockId(key), age, msg: i });
    } else if (isUser(m) || isCustom(m) || isToolResult(m)) {
      const content = m.content;
      if (typeof content === "string") {
        blocks.push({ kind: "text", id: textBlockId(key), age, msg: i });
        continue;
      }
      let prose = false;
      for (let p = 0; p < content.length; p++) {
        const part = content[p];
        if (part?.type === "image") {
          blocks.push({ kind: "image", id: imageBlockId(key, p), age, msg: i, part: p, chars: part.data.length });
        } else if (part?.type === "text") prose = true;
      }
      if (prose && !isToolResult(m)) blocks.push({ kind: "text", id: textBlockId(key), age, msg: i });
    } else if (isBashExecution(m)) {
      blocks.push({ kind: "text", id: textBlockId(key), age, msg: i });
    }
  }
  analysis.first[n] = blocks.length;
  return analysis;
}
