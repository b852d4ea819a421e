import { HashMap32, HashSet32 } from "../model/hash-table32.ts";
import { anchorBefore, contentOwner, hashBoth, hashMessageKey, hex8, momentOf, rawMessageKey } from "../model/ids.ts";
import {
  type AssistantMsg,
  anchorsCustom,
  isAssistant,
  isBashExecution,
  isCustom,
  isToolResult,
  isUser,
  type ToolCallPart,
  type ToolResultMsg,
  type ViewMessage,
} from "../model/messages.ts";

/**
 * The blocks of a message list: what can be pruned, and where it lives. A tool block is a call and its result
 * (pruned together so the pair stays a pair); a text block is a message's prose; an image block one image part.
 */
export type Block = { /** Its index in `Analysis.blocks` (what per-block caches are keyed by). */ at: number } & (
  | { kind: "tool"; id: string; callMsg: number; callPart: number; resultMsg: number; tool: string }
  /** `reasoning`: an assistant message with thinking parts; they are dropped whole with the text, never shown as text. */
  | { kind: "text"; id: string; msg: number; reasoning: boolean }
  | { kind: "image"; id: string; msg: number; part: number; chars: number }
);

/** What is asked of a set of block ids (the pruned ones: a `Set`, or the state's map of pruned ids to their caps). */
export interface IdSet {
  has(id: string): boolean;
  readonly size: number;
}

/**
 * Which blocks are pruned, asked per block: drawing asks three or four times per message, and a whole view of a long
 * session draws tens of thousands (see `PrunedBlocks`).
 */
export interface BlockSet {
  has(block: Block): boolean;
  readonly size: number;
}

/** The blocks whose ids are in `ids`. */
export const blocksIn = (ids: IdSet): BlockSet => ({
  has: (block) => ids.has(block.id),
  get size() {
    return ids.size;
  },
});

/**
 * The pruned blocks of one analysis during one pass: those whose ids are pruned (each id looked up once, then
 * remembered by block index), and those a plan takes in this pass (`add`, marked by index: no id hashed), so a slice
 * can be drawn before the plan is finished.
 */
export class PrunedBlocks implements BlockSet {
  readonly #ids: IdSet;
  /** By block index: 0 not asked yet, 1 not pruned, 2 pruned (its id), 3 taken in this pass. */
  #marks = new Uint8Array(1024);
  #added = 0;

  constructor(ids: IdSet) {
    this.#ids = ids;
  }

  #grow(at: number): void {
    let size = this.#marks.length;
    while (size <= at) size *= 2;
    const marks = new Uint8Array(size);
    marks.set(this.#marks);
    this.#marks = marks;
  }

  has(block: Block): boolean {
    if (block.at >= this.#marks.length) this.#grow(block.at);
    let mark = this.#marks[block.at] as number;
    if (mark === 0) {
      mark = this.#ids.size > 0 && this.#ids.has(block.id) ? 2 : 1;
      this.#marks[block.at] = mark;
    }
    return mark >= 2;
  }

  /** A block the plan of this pass takes. */
  add(block: Block): void {
    if (block.at >= this.#marks.length) this.#grow(block.at);
    this.#marks[block.at] = 3;
    this.#added++;
  }

  /** How many blocks the plan of this pass took. */
  get added(): number {
    return this.#added;
  }

  get size(): number {
    return this.#ids.size + this.#added;
  }
}

/** The message a block's age is read from (a tool block: its call). */
export const messageOf = (block: Block): number => (block.kind === "tool" ? block.callMsg : block.msg);

/** The call part of a tool block. */
export function toolCallOf(messages: readonly ViewMessage[], block: Extract<Block, { kind: "tool" }>): ToolCallPart {
  return (messages[block.callMsg] as AssistantMsg).content[block.callPart] as ToolCallPart;
}

/** The tool or image block of part `part` of message i (no allocation: drawing asks this for every part). */
export function partBlock(analysis: Analysis, i: number, part: number): Block | undefined {
  for (let b = analysis.first[i] as number; b < (analysis.first[i + 1] as number); b++) {
    const block = analysis.blocks[b] as Block;
    if ((block.kind === "tool" ? block.callPart : block.kind === "image" ? block.part : -1) === part) return block;
  }
  return undefined;
}

/** Message i's text block when it is pruned. */
export function prunedText(analysis: Analysis, i: number, pruned: BlockSet) {
  const t = analysis.textBlock[i] as number;
  const block = t < 0 ? undefined : (analysis.blocks[t] as Extract<Block, { kind: "text" }>);
  return block && pruned.has(block) ? block : undefined;
}

/**
 * Whether the thinking of message i is dropped from the view (its text block is pruned and it has thinking): the
 * message's tool calls then lose their provider item ids, and their results follow.
 */
export function reasoningDropped(analysis: Analysis, i: number, pruned: BlockSet): boolean {
  return prunedText(analysis, i, pruned)?.reasoning === true;
}

/** Whether anything in message i is pruned, or its tool call's message lost its reasoning (no allocation). */
export function touches(analysis: Analysis, i: number, pruned: BlockSet): boolean {
  for (let b = analysis.first[i] as number; b < (analysis.first[i + 1] as number); b++) {
    if (pruned.has(analysis.blocks[b] as Block)) return true;
  }
  const tool = analysis.resultTool[i] as number;
  if (tool < 0) return false;
  const block = analysis.blocks[tool] as Extract<Block, { kind: "tool" }>;
  return pruned.has(block) || reasoningDropped(analysis, block.callMsg, pruned);
}

/** What a block's id is hashed from: a tool call's id, else the message's raw key (and the image part's index). */
const [TOOL, TEXT, IMAGE] = ["t:", "m:", "i:"];
const imageSource = (key: string, part: number) => `${key}#${part}`;

/** The number an id of lowercase hex digits writes (what `hex8` wrote it from), or -1 for any other string. */
function hexValue(id: string): number {
  let h = 0;
  for (let i = 0; i < id.length; i++) {
    const c = id.charCodeAt(i);
    const digit = c >= 48 && c <= 57 ? c - 48 : c >= 97 && c <= 102 ? c - 87 : -1;
    if (digit < 0) return -1;
    h = h * 16 + digit;
  }
  return h;
}

/**
 * The ids registered by earlier prunes (read back from the session): each with its owner, and which of them were
 * written with the source-only owner of older versions (`ownerHash`, not `contentOwner`).
 */
export interface Registrations {
  owners: ReadonlyMap<string, number>;
  legacyOwners?: ReadonlySet<string>;
}

const NO_REGISTRATIONS: Registrations = { owners: new Map() };

/**
 * Block ids are 8 hex chars (short enough to quote back), unique within one message list: when two sources hash
 * alike (or are the same: a repeated tool call id), the later one gets `.2`, `.3`, ... . Ids follow message order, so
 * the ids of a prefix never change when messages are appended, and a fresh block can never inherit the pruned state
 * of an older one. An id once pruned is registered with its owner (`contentOwner`): it stays its owner's after the
 * blocks before it are gone (compaction), and no other block gets it.
 */
class IdAllocator {
  /** Taken plain ids by their hash (a number: no string hashing per block), and taken suffixed ids. */
  #plain = new HashSet32();
  #taken = new Set<string>();
  #owners: ReadonlyMap<string, number>;
  #legacy: ReadonlySet<string>;
  /**
   * The owners of registered plain ids by the id's hash: a prune read back from the session registers about half the
   * blocks of a long session, and each block asks (a typed table: no string hashing per block).
   */
  #registered: HashMap32 | undefined = new HashMap32();
  /** The hashes of registered plain ids whose owner is a legacy one. */
  #legacyPlain = new HashSet32();
  /** Registered suffixed ids by their 8-hex base (rare: only collisions and repeated sources). */
  #suffixed = new Map<string, string[]>();
  /** The id hash and the source's owner hash of the last `id` (no pair allocated per block). */
  #hashes = new Uint32Array(2);
  /** The owner of the last `id`'s block (`contentOwner`). */
  #owner = 0;

  constructor({ owners, legacyOwners }: Registrations) {
    this.#owners = owners;
    this.#legacy = legacyOwners ?? new Set();
    this.#registered?.reserve(owners.size);
    // forEach: no [id, owner] pair per entry (a long session registers tens of thousands).
    owners.forEach((owner, id) => {
      if (id.length > 8) this.#suffixed.set(id.slice(0, 8), [...(this.#suffixed.get(id.slice(0, 8)) ?? []), id]);
      const h = id.length === 8 ? hexValue(id) : -1;
      if (h >= 0) this.#registered?.set(h, owner);
      if (h >= 0 && this.#legacy.has(id)) this.#legacyPlain.add(h);
      // A damaged entry's owner that no hash can be: the map itself decides (no block is its owner).
      if (owner !== owner >>> 0) this.#registered = undefined;
    });
  }

  #isTaken(id: string): boolean {
    return id.length === 8 ? this.#plain.has(Number.parseInt(id, 16)) : this.#taken.has(id);
  }

  #take(id: string): string {
    if (id.length === 8) this.#plain.add(Number.parseInt(id, 16));
    else this.#taken.add(id);
    return id;
  }

  /** Make room for `count` more plain ids. */
  reserve(count: number): void {
    this.#plain.reserve(this.#plain.size + count);
  }

  /** The owner of the last `id`'s block (what a prune stores with the id). */
  get owner(): number {
    return this.#owner;
  }

  /** Whether `id` is registered to this block: by its owner, or by its source alone when the registration is legacy. */
  #owns(id: string, legacy: boolean): boolean {
    if (this.#isTaken(id) || this.#legacy.has(id) !== legacy) return false;
    return this.#owners.get(id) === (legacy ? (this.#hashes[1] as number) : this.#owner);
  }

  /**
   * The id of a tool block (its call id, and its call message's timestamp and part: see `contentOwner`) or of an image
   * (its message's key and part, and its message's moment, see `momentOf`: a result's key is its call id). Repeated call ids are
   * common (`call_0` in every response of some providers), and these numbers never change, whatever another extension
   * does to the messages' text.
   */
  id(prefix: string, text: string, a: number, b = 0): string {
    hashBoth(prefix, text, this.#hashes);
    return this.#allocate(a, b);
  }

  /**
   * The id of a text block: its message's raw key, hashed without building it (see `hashMessageKey`), and its
   * moment (`momentOf`: its timestamp; a result's key is its call id, a custom message's its content and anchor). Nothing of the
   * text is in the owner: a text's size would tell two messages of one role in the same millisecond apart, but another
   * extension's `context` handler may rewrite old text, and the session's own copy (what `context_restore` and the
   * preparation read) would then have other owners than the request's. Such twins are told apart by their order alone.
   */
  messageId(prefix: string, m: ViewMessage, anchor: number): string {
    hashMessageKey(prefix, m, this.#hashes, anchor);
    return this.#allocate(momentOf(m, anchor), 0);
  }

  /** The id of the block whose source was just hashed. */
  #allocate(a: number, b: number): string {
    this.#owner = contentOwner(this.#hashes[1] as number, a, b);
    const h = this.#hashes[0] as number;
    const plain = hex8(h);
    // Free, and not registered to another block: taken at once (the common case, no strings looked up). A plain id
    // registered to this very block is taken back here too; a legacy registration is decided below, since an exact
    // registration of one of its suffixed ids wins over it.
    if (!this.#plain.has(h) && !(this.#legacyPlain.size > 0 && this.#legacyPlain.has(h))) {
      const owner = this.#registered ? this.#registered.get(h) : this.#owners.get(plain);
      if (owner === undefined ? this.#suffixed.size === 0 || !this.#suffixed.has(plain) : owner === this.#owner) {
        this.#plain.add(h);
        return plain;
      }
    }
    if (this.#owners.size > 0) {
      const suffixed = this.#suffixed.get(plain) ?? NO_IDS;
      const exact = this.#owns(plain, false) ? plain : suffixed.find((id) => this.#owns(id, false));
      const found = exact ?? (this.#owns(plain, true) ? plain : suffixed.find((id) => this.#owns(id, true)));
      if (found) return this.#take(found);
    }
    let id = plain;
    for (let n = 2; this.#isTaken(id) || this.#owners.has(id); n++) id = `${plain}.${n}`;
    return this.#take(id);
  }
}

const NO_IDS: readonly string[] = [];

/**
 * The analysis of a message list, extended in place when the next request's list is this one plus new messages
 * (pi's context of request N+1 is request N's plus a few messages): only the new messages are analysed, and the ids,
 * the blocks and their indexes of the prefix stay as they are.
 */
export class Analysis {
  /** Blocks in message order; those of message i are `blocks[first[i]]` up to `blocks[first[i + 1]]`. */
  readonly blocks: Block[] = [];
  // The per-message columns are typed arrays (off the JS heap: the collector never copies them), grown by doubling
  // and valid up to `length` (`first` one further).
  #first: Int32Array = new Int32Array(COLUMN_START);
  #resultTool: Int32Array = new Int32Array(COLUMN_START);
  #textBlock: Int32Array = new Int32Array(COLUMN_START);
  /** User messages up to and including message i (ages are read from it: the current turn has age 0). */
  #users: Int32Array = new Int32Array(COLUMN_START);
  /** The owner hash of each block's source, by block index (as int32 bits: a uint32 field would box half of them). */
  #owners: Int32Array = new Int32Array(COLUMN_START);
  /** What `textChars` answers, by block index (read while the parts are in hand: no second walk of them). */
  #chars: Int32Array = new Int32Array(COLUMN_START);
  #length = 0;
  readonly #ids: IdAllocator;
  #byId: Map<string, Block> | undefined;
  /** Ids of tool calls without a result: when a new message answers one, the list is analysed again whole. */
  #unanswered = new Set<string>();
  /** The keys of the first and the last analysed message. */
  #ends: string[] = [];
  /** The list being analysed in slices, until its last slice. */
  #pass: Pass | undefined;

  constructor(registered: Registrations = NO_REGISTRATIONS) {
    this.#ids = new IdAllocator(registered);
  }

  get length(): number {
    return this.#length;
  }

  /** The owner of a block (stored with its id when it is pruned, see `contentOwner`). */
  ownerOf(block: Block): number {
    return (this.#owners[block.at] as number) >>> 0;
  }

  /**
   * The text a block's replacement is weighed against, in chars: a tool block's result text; a text block's text
   * and thinking parts (one more each: the joins), or its string content; -1 for a user's bash run (always built).
   */
  textChars(block: Block): number {
    return this.#chars[block.at] as number;
  }

  /** Add a block whose id was just allocated (its owner hash is the allocator's last). */
  #push(block: Block, chars = 0): number {
    if (block.at >= this.#owners.length) {
      this.#owners = grown(this.#owners, this.#owners.length * 2);
      this.#chars = grown(this.#chars, this.#chars.length * 2);
    }
    this.#owners[block.at] = this.#ids.owner | 0;
    this.#chars[block.at] = chars;
    return this.blocks.push(block);
  }

  /** Index in `blocks` of the first block of message i (`first[length]`: the number of blocks). */
  get first(): Int32Array {
    return this.#first;
  }

  /** Index in `blocks` of the tool block whose result is message i, or -1. */
  get resultTool(): Int32Array {
    return this.#resultTool;
  }

  /** Index in `blocks` of message i's text block, or -1. */
  get textBlock(): Int32Array {
    return this.#textBlock;
  }

  /** Age in turns of message i (0: the current turn). */
  ageOf(i: number): number {
    const last = this.#pass?.users ?? (this.#length === 0 ? 0 : (this.#users[this.#length - 1] as number));
    return last - (this.#users[i] as number);
  }

  /** The block with this id. */
  byId(id: string): Block | undefined {
    this.#byId ??= new Map();
    if (this.#byId.size < this.blocks.length) for (const b of this.blocks) this.#byId.set(b.id, b);
    return this.#byId.get(id);
  }

  /** Whether `messages` is the analysed list plus new messages (compared by the keys of its ends). */
  extends(messages: readonly ViewMessage[]): boolean {
    // A pass left unfinished (a render that failed between slices) is never extended: its last slice's calls may
    // have claimed results beyond it that a new pass would not know of.
    if (this.#pass) return false;
    const n = this.length;
    if (messages.length < n) return false;
    for (let i = n; i < messages.length && this.#unanswered.size > 0; i++) {
      const m = messages[i] as ViewMessage;
      if (isToolResult(m) && this.#unanswered.has(m.toolCallId)) return false;
    }
    if (n === 0) return true;
    return (
      rawMessageKey(messages[0] as ViewMessage) === this.#ends[0] &&
      rawMessageKey(messages[n - 1] as ViewMessage, anchorBefore(messages, n - 1)) === this.#ends[1]
    );
  }

  /**
   * Analyse the messages after the analysed prefix, up to `end` (one linear pass over them). A list analysed in
   * slices (`end` short of its length, then further) ends as one analysed whole: a cold pass plans and draws each
   * slice right after analysing it, while its messages are still in the processor's cache. Ages are those of the
   * whole list from the first slice on.
   */
  extend(messages: readonly ViewMessage[], end = messages.length): this {
    const from = this.length;
    const n = messages.length;
    const pass = this.#passOver(messages);
    const { blocks } = this;
    const [first, resultTool, textBlock, userCount] = [this.#first, this.#resultTool, this.#textBlock, this.#users];
    const { claimed } = pass;
    const claim = (r: number) => {
      claimed[r] = 1;
      return r;
    };
    // A call's result is normally in the run of tool results right after its message (pi's loop writes them
    // there); anything else (a provider reusing ids, a result elsewhere) falls back to an index built on first need.
    const nextResult = (callId: string, after: number): number => {
      for (let r = after + 1; r < n && isToolResult(messages[r] as ViewMessage); r++) {
        if (claimed[r] === 0 && (messages[r] as ToolResultMsg).toolCallId === callId) return claim(r);
      }
      if (!pass.resultsOf) {
        pass.resultsOf = new Map();
        for (let r = pass.from; r < n; r++) {
          const m = messages[r] as ViewMessage;
          if (isToolResult(m)) pass.resultsOf.set(m.toolCallId, [...(pass.resultsOf.get(m.toolCallId) ?? []), r]);
        }
      }
      const r = pass.resultsOf.get(callId)?.find((r) => r > after && claimed[r] === 0);
      return r === undefined ? -1 : claim(r);
    };
    // By raw key: messages with the same one (same role and millisecond) get distinct ids through the allocator.
    const ids = this.#ids;
    // The moment of the last message that is not a custom message: what a custom message is anchored at.
    let anchor = anchorBefore(messages, from);
    const text = (i: number, m: ViewMessage, chars: number, reasoning = false) => {
      const id = ids.messageId(TEXT, m, anchor);
      return this.#push({ at: blocks.length, kind: "text", id, msg: i, reasoning }, chars);
    };
    let users = from === 0 ? 0 : (userCount[from - 1] as number);
    for (let i = from; i < end; i++) {
      first[i] = blocks.length;
      const m = messages[i] as ViewMessage;
      if (i > from && anchorsCustom(messages[i - 1] as ViewMessage))
        anchor = momentOf(messages[i - 1] as ViewMessage, 0);
      if (isUser(m)) users++;
      userCount[i] = users;
      if (isAssistant(m)) {
        let prose = false;
        let reasoning = false;
        let chars = 0;
        for (let p = 0; p < m.content.length; p++) {
          const part = m.content[p];
          chars += partChars(part);
          if (part?.type === "toolCall") {
            const call = part as ToolCallPart;
            const resultMsg = nextResult(call.id, i);
            if (resultMsg > i) resultTool[resultMsg] = blocks.length;
            else this.#unanswered.add(call.id);
            const id = ids.id(TOOL, call.id, m.timestamp, p);
            // The result's size is read now (it may lie past this slice, and the block is weighed with the slice).
            const result = resultMsg > i ? (messages[resultMsg] as ToolResultMsg).content : undefined;
            this.#push(
              { at: blocks.length, kind: "tool", id, callMsg: i, callPart: p, resultMsg, tool: call.name },
              result ? resultTextChars(result) : 0,
            );
          } else if (part?.type === "text") prose = true;
          else if (part?.type === "thinking") reasoning = true;
        }
        if (prose || reasoning) textBlock[i] = text(i, m, chars, reasoning) - 1;
      } else if (isUser(m) || isCustom(m) || isToolResult(m) || isBashExecution(m)) {
        // A string content or a user's bash run is one text block; images are blocks of their own.
        const parts = isBashExecution(m) || typeof m.content === "string" ? undefined : m.content;
        let prose = parts === undefined;
        let chars = isBashExecution(m) ? -1 : typeof m.content === "string" ? m.content.length : 0;
        for (let p = 0; parts && p < parts.length; p++) {
          const part = parts[p];
          chars += partChars(part);
          if (part?.type === "image") {
            const id = ids.id(IMAGE, imageSource(rawMessageKey(m, anchor), p), momentOf(m, anchor));
            this.#push({ at: blocks.length, kind: "image", id, msg: i, part: p, chars: part.data.length });
          } else if (part?.type === "text") prose = true;
        }
        if (prose && (parts === undefined || !isToolResult(m))) textBlock[i] = text(i, m, chars) - 1;
      }
    }
    first[end] = blocks.length;
    this.#length = end;
    this.#ends = [
      messages[0] ? rawMessageKey(messages[0]) : "",
      end > 0 ? rawMessageKey(messages[end - 1] as ViewMessage, anchorBefore(messages, end - 1)) : "",
    ];
    if (end === n) this.#pass = undefined;
    return this;
  }

  /**
   * The pass over `messages` that this extension belongs to: begun here when the list is new (columns grown for the
   * whole list, the users of the whole list counted so that ages hold from the first slice on), else the one in
   * progress.
   */
  #passOver(messages: readonly ViewMessage[]): Pass {
    if (this.#pass?.messages === messages) return this.#pass;
    const from = this.length;
    const n = messages.length;
    if (n + 1 > this.#first.length) {
      let size = this.#first.length;
      while (size < n + 1) size *= 2;
      this.#first = grown(this.#first, size);
      this.#resultTool = grown(this.#resultTool, size);
      this.#textBlock = grown(this.#textBlock, size);
      this.#users = grown(this.#users, size);
    }
    this.#resultTool.fill(-1, from, n);
    this.#textBlock.fill(-1, from, n);
    // About one block per message at most in practice (a call and its result are one block).
    this.#ids.reserve(n - from);
    let users = from === 0 ? 0 : (this.#users[from - 1] as number);
    for (let i = from; i < n; i++) if (isUser(messages[i] as ViewMessage)) users++;
    this.#pass = { messages, from, claimed: new Uint8Array(n), users };
    return this.#pass;
  }
}

/** A list being analysed in slices (see `Analysis.extend`). */
interface Pass {
  messages: readonly ViewMessage[];
  /** The analysed length when the pass began. */
  from: number;
  /** Results already paired with a call. */
  claimed: Uint8Array;
  /** The user messages of the whole list (what ages are read against until the last slice). */
  users: number;
  resultsOf?: Map<string, number[]>;
}

/** A part's text or thinking, in chars, plus one for its join (what a text block's size counts). */
function partChars(part: unknown): number {
  const { text, thinking } = part as { text?: unknown; thinking?: unknown };
  if (typeof text === "string") return text.length + 1;
  return typeof thinking === "string" ? thinking.length + 1 : 0;
}

/** The chars of a tool result's text parts (what a tool block is weighed by: its images are blocks of their own). */
function resultTextChars(parts: ToolResultMsg["content"]): number {
  let n = 0;
  for (let p = 0; p < parts.length; p++) {
    const part = parts[p];
    if (part?.type === "text") n += part.text.length;
  }
  return n;
}

/** Columns start this long (a short list allocates little) and double as the list grows. */
const COLUMN_START = 64;

/** `column` copied into a longer one. */
function grown(column: Int32Array, size: number): Int32Array<ArrayBuffer> {
  const out = new Int32Array(size);
  out.set(column);
  return out;
}

/** One linear pass over the messages; `registered`: the ids pruned before, with their owners. */
export function analyze(messages: readonly ViewMessage[], registered: Registrations = NO_REGISTRATIONS): Analysis {
  return new Analysis(registered).extend(messages);
}
