import { findMessageKeys } from "../model/ids.ts";
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
import {
  type Analysis,
  type Block,
  type BlockSet,
  partBlock,
  prunedText,
  reasoningDropped,
  touches,
} from "../plan/analysis.ts";
import type { StoredNotice } from "../state/entries.ts";
import type { Replacement } from "./replacements.ts";

/** Custom message type of the prune notice in the model's view. */
export const NOTICE_TYPE = "cache-ttl:pruned";

/** The notice as a pi custom message (pi sends custom messages to the model as user text). */
export function noticeMessage(notice: StoredNotice): CustomMsg {
  return { role: "custom", customType: NOTICE_TYPE, content: notice.text, display: true, timestamp: notice.at };
}

/**
 * Content parts of message i with pruned images as markers and pruned prose as one marker; `summary` (a pruned tool
 * result's) replaces every text part.
 */
function replaceContentParts(
  parts: readonly (TextPart | ImagePart)[],
  analysis: Analysis,
  i: number,
  pruned: BlockSet,
  replacement: (block: Block) => Replacement,
  summary?: string,
): (TextPart | ImagePart)[] {
  const text = prunedText(analysis, i, pruned);
  const out: (TextPart | ImagePart)[] = summary === undefined ? [] : [{ type: "text", text: summary }];
  let textDone = summary !== undefined;
  for (let p = 0; p < parts.length; p++) {
    const part = parts[p] as TextPart | ImagePart;
    const image = part.type === "image" ? partBlock(analysis, i, p) : undefined;
    if (part.type === "image") out.push(image && pruned.has(image) ? markerOf(image, replacement) : part);
    else if (!text && summary === undefined) out.push(part);
    else if (!textDone && text) out.push(markerOf(text, replacement));
    if (part.type === "text" && text) textDone = true;
  }
  return out;
}

const markerOf = (block: Block, replacement: (block: Block) => Replacement): TextPart => ({
  type: "text",
  text: (replacement(block) as { text: string }).text,
});

/** A tool call id without the provider's item id (`call_…|fc_…` from OpenAI Responses becomes `call_…`). */
export function withoutItemId(id: string): string {
  const bar = id.indexOf("|");
  return bar === -1 ? id : id.slice(0, bar);
}

/**
 * The pruned view of an assistant message. Its thinking parts are dropped whole (a signed block is never edited,
 * and reasoning never comes back as visible text); its text becomes one marker, or stays as it was (without
 * provider signatures) when it is short. A tool call whose reasoning item was dropped loses its provider item id:
 * OpenAI Responses rejects an `fc_…` function call without the reasoning item it came with.
 */
function renderAssistant(
  a: AssistantMsg,
  analysis: Analysis,
  index: number,
  pruned: BlockSet,
  replacement: (block: Block) => Replacement,
): AssistantMsg {
  const text = prunedText(analysis, index, pruned);
  const dropReasoning = text?.reasoning === true;
  const marker = text ? (replacement(text) as { text: string }).text : "";
  // The view's parts: rebuilt whole when the text is pruned, else copied only from the first call that changes (a
  // pruned call whose view keeps its arguments does not: the message is then its own view).
  let content: AssistantMsg["content"] | undefined = text
    ? marker
      ? [{ type: "text", text: marker }]
      : []
    : undefined;
  for (let p = 0; p < a.content.length; p++) {
    const part = a.content[p] as AssistantMsg["content"][number];
    if (part.type !== "toolCall") {
      if (!text) content?.push(part);
      else if (part.type === "text" && !marker && part.text.trim() !== "")
        content?.push({ type: "text", text: part.text });
      continue;
    }
    let call = part as ToolCallPart;
    const tool = partBlock(analysis, index, p);
    if (tool && pruned.has(tool)) {
      const r = replacement(tool) as Extract<Replacement, { kind: "tool" }>;
      // New arguments: a signature over the old call (Gemini's thoughtSignature) no longer belongs to it.
      if ("thoughtSignature" in call) {
        const { thoughtSignature: _signature, ...rest } = call;
        call = rest as ToolCallPart;
      }
      if (r.args !== call.arguments) call = { ...call, arguments: r.args };
    }
    if (dropReasoning && withoutItemId(call.id) !== call.id) call = { ...call, id: withoutItemId(call.id) };
    if (call !== part) content ??= a.content.slice(0, p);
    content?.push(call);
  }
  return content ? { ...a, content } : a;
}

/** The view of one message given the pruned set, or the message itself when nothing in it is pruned. */
export function renderMessage(
  messages: readonly ViewMessage[],
  analysis: Analysis,
  index: number,
  pruned: BlockSet,
  replacement: (block: Block) => Replacement,
): ViewMessage {
  return touches(analysis, index, pruned)
    ? renderTouched(messages, analysis, index, pruned, replacement)
    : (messages[index] as ViewMessage);
}

/**
 * The view of a message that something pruned touches (see `touches`). A tool result's or custom message's view has
 * no `details`: what a tool or an extension keeps there for the UI and the session (a truncated read's or bash run's
 * shown output, an edit's diff) is never sent to the model, and the patch, kept between requests, would keep the
 * first request's copy of it alive as long.
 */
function renderTouched(
  messages: readonly ViewMessage[],
  analysis: Analysis,
  index: number,
  pruned: BlockSet,
  replacement: (block: Block) => Replacement,
): ViewMessage {
  const m = messages[index] as ViewMessage;
  switch (m.role) {
    case "assistant":
      return renderAssistant(m as AssistantMsg, analysis, index, pruned, replacement);
    case "toolResult": {
      const t = m as ToolResultMsg;
      const owner = analysis.resultTool[index] as number;
      const tool = owner < 0 ? undefined : (analysis.blocks[owner] as Extract<Block, { kind: "tool" }>);
      const toolCallId =
        tool !== undefined && reasoningDropped(analysis, tool.callMsg, pruned)
          ? withoutItemId(t.toolCallId)
          : t.toolCallId;
      // A pruned call's summary replaces the text; images stay (or become markers) under the image budget.
      const summary = tool && pruned.has(tool) ? (replacement(tool) as { summary: string }).summary : undefined;
      return {
        ...t,
        toolCallId,
        content: replaceContentParts(t.content, analysis, index, pruned, replacement, summary),
        details: undefined,
      };
    }
    case "user":
    case "custom": {
      const u = m as UserMsg | CustomMsg;
      const content =
        typeof u.content === "string"
          ? markerOf(prunedText(analysis, index, pruned) as Block, replacement).text
          : replaceContentParts(u.content, analysis, index, pruned, replacement);
      return (u.role === "custom" ? { ...u, content, details: undefined } : { ...u, content }) as ViewMessage;
    }
    case "bashExecution": {
      const r = replacement(prunedText(analysis, index, pruned) as Block) as Extract<Replacement, { kind: "text" }>;
      return { ...(m as BashExecutionMsg), command: r.command ?? (m as BashExecutionMsg).command, output: r.text };
    }
    default:
      return m;
  }
}

/** Where the view differs from the message list: replaced messages and inserted notices. */
export interface ViewPatch {
  /**
   * The view of message i, where it differs from the message (a hole elsewhere). By index, not a `Map`: a cold pass
   * replaces 40,000 messages of a 100k session, and a map's inserts cost 5 ms of it; the array is also smaller.
   */
  replaced: (ViewMessage | undefined)[];
  /** Notices inserted after message index (ascending). */
  inserts: [number, ViewMessage][];
  /** How many notices `inserts` was built from. */
  notices: number;
}

/**
 * Mark the messages whose view changes when `block` is pruned: its own, and the results of calls that lose their
 * reasoning with it (exactly the messages `touches` holds for).
 */
function markAffected(analysis: Analysis, block: Block, marks: Uint8Array): void {
  if (block.kind === "tool") {
    marks[block.callMsg] = 1;
    if (block.resultMsg >= 0) marks[block.resultMsg] = 1;
    return;
  }
  marks[block.msg] = 1;
  if (block.kind !== "text" || !block.reasoning) return;
  for (let b = analysis.first[block.msg] as number; b < (analysis.first[block.msg + 1] as number); b++) {
    const call = analysis.blocks[b] as Block;
    if (call.kind === "tool" && call.resultMsg >= 0) marks[call.resultMsg] = 1;
  }
}

/**
 * The patch that turns `messages` into the model's view. With `previous` (the patch of the analysed prefix of
 * `from` messages, before `added` were pruned) only what changed is drawn again: the new messages and the messages
 * of the newly pruned blocks; everything else keeps its view (a prune only adds). Without it, a whole view (see
 * `WholeView`). `anchors`: message indexes already known for notice keys (a notice made by this request anchors at
 * its last message: no scan for it).
 */
export function patchFor(
  messages: readonly ViewMessage[],
  analysis: Analysis,
  pruned: BlockSet,
  notices: readonly StoredNotice[],
  replacement: (block: Block) => Replacement,
  previous?: { patch: ViewPatch; from: number; added: readonly Block[] },
  anchors?: ReadonlyMap<string, number>,
): ViewPatch {
  if (!previous) {
    const view = new WholeView(messages, analysis, replacement);
    view.drawUpTo(messages.length, pruned);
    return view.finish(pruned, notices, anchors);
  }
  const { replaced } = previous.patch;
  // Holes for the new messages (a fast array: writes past its end would make it a dictionary).
  if (replaced.length < messages.length) replaced.length = messages.length;
  const draw = (index: number) => {
    const view = renderMessage(messages, analysis, index, pruned, replacement);
    replaced[index] = view !== messages[index] ? view : undefined;
  };
  // The new messages, then the earlier ones that the newly pruned blocks change.
  if (pruned.size > 0) for (let index = previous.from; index < messages.length; index++) draw(index);
  const marks = new Uint8Array(messages.length);
  for (const block of previous.added) markAffected(analysis, block, marks);
  for (let index = 0; index < previous.from; index++) if (marks[index] === 1) draw(index);
  return { replaced, inserts: noticeInserts(messages, notices, previous.patch, anchors), notices: notices.length };
}

/**
 * A whole view drawn in slices, as the analysis reaches them: only the messages of pruned blocks are drawn (one
 * pass over the blocks, not over every message), each slice right after its blocks were decided, while its
 * messages are still in the processor's cache. A message's view depends on its own blocks and on the call it
 * answers, which comes before it; a message with images waits for `finish`, since images are chosen last, newest
 * first over the whole list.
 */
export class WholeView {
  readonly replaced: (ViewMessage | undefined)[];
  readonly #messages: readonly ViewMessage[];
  readonly #analysis: Analysis;
  readonly #replacement: (block: Block) => Replacement;
  /** Messages a pruned block changes (marks only point forward: a call's result, a reasoning's results). */
  readonly #marks: Uint8Array;
  /** Messages with images, drawn by `finish`. */
  readonly #withImages: number[] = [];
  #next = 0;

  constructor(messages: readonly ViewMessage[], analysis: Analysis, replacement: (block: Block) => Replacement) {
    this.#messages = messages;
    this.#analysis = analysis;
    this.#replacement = replacement;
    this.#marks = new Uint8Array(messages.length);
    this.replaced = new Array(messages.length);
  }

  /**
   * Draw the messages before `end` (analysed, with every tool and text block of theirs decided) as `pruned` says.
   */
  drawUpTo(end: number, pruned: BlockSet): void {
    const analysis = this.#analysis;
    const { blocks, first } = analysis;
    const marks = this.#marks;
    const from = this.#next;
    if (pruned.size > 0) {
      for (let b = first[from] as number; b < (first[end] as number); b++) {
        const block = blocks[b] as Block;
        if (pruned.has(block)) markAffected(analysis, block, marks);
      }
    }
    for (let index = from; index < end; index++) {
      let images = false;
      for (let b = first[index] as number; b < (first[index + 1] as number); b++) {
        if ((blocks[b] as Block).kind === "image") images = true;
      }
      if (images) this.#withImages.push(index);
      else if (marks[index] === 1) this.#draw(index, pruned, true);
    }
    this.#next = Math.max(from, end);
  }

  #draw(index: number, pruned: BlockSet, touched: boolean): void {
    const [messages, analysis, replacement] = [this.#messages, this.#analysis, this.#replacement];
    const view = touched
      ? renderTouched(messages, analysis, index, pruned, replacement)
      : renderMessage(messages, analysis, index, pruned, replacement);
    if (view !== messages[index]) this.replaced[index] = view;
  }

  /** Draw the messages with images by the final `pruned`, and place the notices. */
  finish(pruned: BlockSet, notices: readonly StoredNotice[], anchors?: ReadonlyMap<string, number>): ViewPatch {
    if (pruned.size > 0) for (const index of this.#withImages) this.#draw(index, pruned, false);
    return {
      replaced: this.replaced,
      inserts: noticeInserts(this.#messages, notices, undefined, anchors),
      notices: notices.length,
    };
  }
}

/**
 * Where the notices go: those of `previous` keep their places (they anchor in the prefix), new ones are looked up
 * by key (only those: a map of every message key would cost as much as the analysis).
 */
function noticeInserts(
  messages: readonly ViewMessage[],
  notices: readonly StoredNotice[],
  previous: ViewPatch | undefined,
  anchors: ReadonlyMap<string, number> | undefined,
): [number, ViewMessage][] {
  const inserts = previous ? previous.inserts.slice() : [];
  const fresh = notices.slice(previous?.notices ?? 0);
  if (fresh.length > 0) {
    const unknown = fresh.filter((n) => !anchors?.has(n.after)).map((n) => n.after);
    const at = unknown.length > 0 ? findMessageKeys(messages, new Set(unknown)) : undefined;
    for (const notice of fresh) {
      const index = anchors?.get(notice.after) ?? at?.get(notice.after);
      if (index !== undefined) inserts.push([index, noticeMessage(notice)]);
    }
    inserts.sort((a, b) => a[0] - b[0]);
  }
  return inserts;
}

/** Apply a patch to a (mutable, pi-cloned) message array, in place; returns it. */
export function applyPatch(messages: ViewMessage[], patch: ViewPatch): ViewMessage[] {
  const { replaced } = patch;
  for (let index = 0; index < replaced.length; index++) {
    const view = replaced[index];
    if (view !== undefined) messages[index] = view;
  }
  for (let k = patch.inserts.length - 1; k >= 0; k--) {
    const [after, notice] = patch.inserts[k] as [number, ViewMessage];
    messages.splice(after + 1, 0, notice);
  }
  return messages;
}
