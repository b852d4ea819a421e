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
  blocks: Block[];
  byId: Map<string, Block>;
  /** Blocks living in each message (by message index; a tool block is listed at its call and its result). */
  byMessage: (Block[] | undefined)[];
}

function attach(analysis: Analysis, block: Block, msg: number): void {
  const list = analysis.byMessage[msg];
  if (list) list.push(block);
  else analysis.byMessage[msg] = [block];
}

function add(analysis: Analysis, block: Block, msg: number): void {
  analysis.blocks.push(block);
  analysis.byId.set(block.id, block);
  attach(analysis, block, msg);
}

/** One linear pass over the messages. */
export function analyze(messages: readonly ViewMessage[]): Analysis {
  const keys = messageKeys(messages);
  const ages = turnAges(messages);
  const analysis: Analysis = { keys, ages, blocks: [], byId: new Map(), byMessage: new Array(messages.length) };
  const resultOf = new Map<string, number>();
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i] as ViewMessage;
    if (isToolResult(m)) resultOf.set(m.toolCallId, i);
  }
  for (let i = 0; i < messages.length; i++) {
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
          const block: Block = {
            kind: "tool",
            id: toolBlockId(call.id),
            age,
            callMsg: i,
            callPart: p,
            resultMsg: resultOf.get(call.id) ?? -1,
            tool: call.name,
          };
          add(analysis, block, i);
          if (block.resultMsg >= 0) attach(analysis, block, block.resultMsg);
        } else if (part?.type === "text" || part?.type === "thinking") prose = true;
      }
      if (prose) add(analysis, { kind: "text", id: textBlockId(key), age, msg: i }, i);
    } else if (isUser(m) || isCustom(m)) {
      if (typeof m.content === "string") add(analysis, { kind: "text", id: textBlockId(key), age, msg: i }, i);
      else {
        let prose = false;
        for (let p = 0; p < m.content.length; p++) {
          const part = m.content[p];
          if (part?.type === "image") {
            add(
              analysis,
              { kind: "image", id: imageBlockId(key, p), age, msg: i, part: p, chars: part.data.length },
              i,
            );
          } else if (part?.type === "text") prose = true;
        }
        if (prose) add(analysis, { kind: "text", id: textBlockId(key), age, msg: i }, i);
      }
    } else if (isToolResult(m)) {
      for (let p = 0; p < m.content.length; p++) {
        const part = m.content[p];
        if (part?.type === "image") {
          add(analysis, { kind: "image", id: imageBlockId(key, p), age, msg: i, part: p, chars: part.data.length }, i);
        }
      }
    } else if (isBashExecution(m)) {
      add(analysis, { kind: "text", id: textBlockId(key), age, msg: i }, i);
    }
  }
  return analysis;
}
