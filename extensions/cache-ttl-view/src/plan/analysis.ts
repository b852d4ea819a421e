import { hash32, hex8, ownerHash, rawMessageKey } from "../model/ids.ts";
import {
  type AssistantMsg,
  isAssistant,
  isBashExecution,
  isCustom,
  isSummary,
  isToolResult,
  isUser,
  type ToolCallPart,
  type ToolResultMsg,
  type ViewMessage,
} from "../model/messages.ts";
import { turnAges } from "../turns/turns.ts";

/**
 * The blocks of a message list: what can be pruned, and where it lives. A tool block is a call and its result
 * (pruned together so the pair stays a pair); a text block is a message's prose; an image block one image part.
 */
export type Block =
  | { kind: "tool"; id: string; age: number; callMsg: number; callPart: number; resultMsg: number; tool: string }
  /** `reasoning`: an assistant message with thinking parts; they are dropped whole with the text, never shown as text. */
  | { kind: "text"; id: string; age: number; msg: number; reasoning?: boolean }
  | { kind: "image"; id: string; age: number; msg: number; part: number; chars: number };

export interface Analysis {
  ages: Int32Array;
  /** Blocks in message order; those of message i are `blocks[first[i]]` up to `blocks[first[i + 1]]`. */
  blocks: Block[];
  first: Int32Array;
  /** Index in `blocks` of the tool block whose result is message i, or -1. */
  resultTool: Int32Array;
  /** Index in `blocks` of message i's text block, or -1. */
  textBlock: Int32Array;
}

const byIdCache = new WeakMap<Analysis, Map<string, Block>>();

/** The call part of a tool block. */
export function toolCallOf(messages: readonly ViewMessage[], block: Extract<Block, { kind: "tool" }>): ToolCallPart {
  return (messages[block.callMsg] as AssistantMsg).content[block.callPart] as ToolCallPart;
}

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

/**
 * Whether the thinking of message i is dropped from the view (its text block is pruned and it has thinking): the
 * message's tool calls then lose their provider item ids, and their results follow.
 */
export function reasoningDropped(analysis: Analysis, i: number, pruned: ReadonlySet<string>): boolean {
  const t = analysis.textBlock[i] as number;
  if (t < 0) return false;
  const block = analysis.blocks[t] as Block;
  return block.kind === "text" && block.reasoning === true && pruned.has(block.id);
}

/** Whether anything in message i is in `ids`, or its tool call's message lost its reasoning (no allocation). */
export function touches(analysis: Analysis, i: number, ids: ReadonlySet<string>): boolean {
  for (let b = analysis.first[i] as number; b < (analysis.first[i + 1] as number); b++) {
    if (ids.has((analysis.blocks[b] as Block).id)) return true;
  }
  const tool = analysis.resultTool[i] as number;
  if (tool < 0) return false;
  const block = analysis.blocks[tool] as Extract<Block, { kind: "tool" }>;
  return ids.has(block.id) || reasoningDropped(analysis, block.callMsg, ids);
}

/** What a block's id is hashed from: a tool call's id, else the message's raw key (and the image part's index). */
function sourceOf(kind: Block["kind"], key: string, part = 0): [prefix: string, text: string] {
  if (kind === "tool") return ["t:", key];
  return kind === "text" ? ["m:", key] : ["i:", `${key}#${part}`];
}

/** The owner hash of a block (stored with its id when it is pruned, see `ownerHash`). */
export function ownerOf(messages: readonly ViewMessage[], block: Block): number {
  if (block.kind === "tool") return ownerHash(...sourceOf("tool", toolCallOf(messages, block).id));
  const key = rawMessageKey(messages[block.msg] as ViewMessage);
  return ownerHash(...sourceOf(block.kind, key, block.kind === "image" ? block.part : 0));
}

/**
 * Block ids are 8 hex chars (short enough to quote back), unique within one message list: when two sources hash
 * alike, the later one gets `.2`, `.3`, ... . Ids follow message order, so the ids of a prefix never change when
 * messages are appended, and a fresh block can never inherit the pruned state of an older one. An id once pruned is
 * registered with its owner (`owners`): it stays its owner's after the blocks before it are gone (compaction), and
 * no other block gets it.
 */
class IdAllocator {
  // Plain hashes taken in this list are kept as numbers (no string per block in the set).
  #used = new Set<number>();
  #suffixed = new Set<string>();
  #owners: ReadonlyMap<string, number>;
  /** Registered suffixed ids by their 8-hex base (rare: only collisions). */
  #suffixedByBase = new Map<string, string[]>();

  constructor(owners: ReadonlyMap<string, number>) {
    this.#owners = owners;
    for (const id of owners.keys()) {
      const dot = id.indexOf(".");
      if (dot < 0) continue;
      const base = id.slice(0, dot);
      const list = this.#suffixedByBase.get(base);
      if (list) list.push(id);
      else this.#suffixedByBase.set(base, [id]);
    }
  }

  #taken(id: string, hash: number): boolean {
    return id.length === 8 ? this.#used.has(hash) : this.#suffixed.has(id);
  }

  #take(id: string, hash: number): string {
    if (id.length === 8) this.#used.add(hash);
    else this.#suffixed.add(id);
    return id;
  }

  id(prefix: string, text: string): string {
    const hash = hash32(prefix, text);
    const plain = hex8(hash);
    const suffixed = this.#suffixedByBase.get(plain);
    if (suffixed !== undefined || this.#owners.has(plain)) {
      const owner = ownerHash(prefix, text);
      for (const id of [plain, ...(suffixed ?? [])]) {
        if (this.#owners.get(id) === owner && !this.#taken(id, hash)) return this.#take(id, hash);
      }
      let id = plain;
      for (let n = 2; this.#owners.has(id) || this.#taken(id, hash); n++) id = `${plain}.${n}`;
      return this.#take(id, hash);
    }
    if (!this.#used.has(hash)) return this.#take(plain, hash);
    let id = `${plain}.2`;
    for (let n = 3; this.#suffixed.has(id); n++) id = `${plain}.${n}`;
    return this.#take(id, hash);
  }
}

/** One linear pass over the messages; `owners`: the registered ids (pruned ids with their owner hashes). */
export function analyze(messages: readonly ViewMessage[], owners: ReadonlyMap<string, number> = new Map()): Analysis {
  const ages = turnAges(messages);
  const n = messages.length;
  const analysis: Analysis = {
    ages,
    blocks: [],
    first: new Int32Array(n + 1),
    resultTool: new Int32Array(n).fill(-1),
    textBlock: new Int32Array(n).fill(-1),
  };
  const blocks = analysis.blocks;
  // A call's result is normally in the run of tool results right after its message (pi's loop writes them
  // there); anything else (a provider reusing ids, a result elsewhere) falls back to an index built on first need.
  const claimed = new Uint8Array(n);
  let resultsOf: Map<string, number[]> | undefined;
  const ids = new IdAllocator(owners);
  const nextResult = (callId: string, after: number): number => {
    for (let r = after + 1; r < n && isToolResult(messages[r] as ViewMessage); r++) {
      if (claimed[r] === 0 && (messages[r] as ToolResultMsg).toolCallId === callId) {
        claimed[r] = 1;
        return r;
      }
    }
    if (!resultsOf) {
      resultsOf = new Map();
      for (let r = 0; r < n; r++) {
        const m = messages[r] as ViewMessage;
        if (!isToolResult(m)) continue;
        const list = resultsOf.get(m.toolCallId);
        if (list) list.push(r);
        else resultsOf.set(m.toolCallId, [r]);
      }
    }
    for (const r of resultsOf.get(callId) ?? []) {
      if (r > after && claimed[r] === 0) {
        claimed[r] = 1;
        return r;
      }
    }
    return -1;
  };
  for (let i = 0; i < n; i++) {
    analysis.first[i] = blocks.length;
    const m = messages[i] as ViewMessage;
    if (isSummary(m)) continue;
    // By raw key: messages with the same one (same role and millisecond) get distinct ids through the allocator.
    const age = ages[i] as number;
    if (isAssistant(m)) {
      let prose = false;
      let reasoning = false;
      for (let p = 0; p < m.content.length; p++) {
        const part = m.content[p];
        if (part?.type === "toolCall") {
          const call = part as ToolCallPart;
          const resultMsg = nextResult(call.id, i);
          if (resultMsg > i) analysis.resultTool[resultMsg] = blocks.length;
          blocks.push({
            kind: "tool",
            id: ids.id(...sourceOf("tool", call.id)),
            age,
            callMsg: i,
            callPart: p,
            resultMsg,
            tool: call.name,
          });
        } else if (part?.type === "text") prose = true;
        else if (part?.type === "thinking") reasoning = true;
      }
      if (prose || reasoning) {
        const id = ids.id(...sourceOf("text", rawMessageKey(m)));
        analysis.textBlock[i] = blocks.length;
        blocks.push({ kind: "text", id, age, msg: i, ...(reasoning ? { reasoning } : {}) });
      }
    } else if (isUser(m) || isCustom(m) || isToolResult(m)) {
      const content = m.content;
      if (typeof content === "string") {
        blocks.push({ kind: "text", id: ids.id(...sourceOf("text", rawMessageKey(m))), age, msg: i });
        continue;
      }
      let prose = false;
      for (let p = 0; p < content.length; p++) {
        const part = content[p];
        if (part?.type === "image") {
          const id = ids.id(...sourceOf("image", rawMessageKey(m), p));
          blocks.push({ kind: "image", id, age, msg: i, part: p, chars: part.data.length });
        } else if (part?.type === "text") prose = true;
      }
      if (prose && !isToolResult(m))
        blocks.push({ kind: "text", id: ids.id(...sourceOf("text", rawMessageKey(m))), age, msg: i });
    } else if (isBashExecution(m)) {
      blocks.push({ kind: "text", id: ids.id(...sourceOf("text", rawMessageKey(m))), age, msg: i });
    }
  }
  analysis.first[n] = blocks.length;
  return analysis;
}
