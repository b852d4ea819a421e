import { jsonLength } from "../model/json.ts";
import type { AssistantMsg, ImagePart, ViewMessage } from "../model/messages.ts";
import { imageTokens, textTokens, thinkingBilled } from "../model/tokens.ts";
import type { CacheTtlSettings } from "../settings/settings.ts";
import { windowOf } from "../turns/turns.ts";
import { type Analysis, type Block, type IdSet, messageOf, toolCallOf } from "./analysis.ts";
import { isToolPinned, type PinSet } from "./pins.ts";

export interface PlanInput {
  messages: readonly ViewMessage[];
  analysis: Analysis;
  /** Already pruned (sticky): skipped, so a new plan only adds. */
  pruned: IdSet;
  pins: PinSet;
  settings: CacheTtlSettings;
  cwd?: string;
  /** The wire format of the model the view is for (`model.api`): what an image or old thinking costs there. */
  api?: string;
  /** The sizes of the block's replacement (built and memoised by the caller, who draws it). */
  replacement: (block: Block) => Measured;
  /** Told of each block the plan takes, as it takes it (a view drawn while the plan goes on). */
  taken?: { add(block: Block): void };
  /**
   * A replacement built before the plan (prepared while pi was idle), else undefined. A tool block whose
   * replacement is at hand is weighed by it, without the pre-check's walk over its arguments (`cannotShrink`).
   */
  built?: (block: Block) => Measured | undefined;
}

/** What choosing needs of a replacement (drawing builds the bytes): its sizes, see `Replacement`. */
export type Measured = { kind: Block["kind"]; origChars: number; newChars: number } & {
  heavyChars?: number;
  reasoningChars?: number;
};

/**
 * A cheap test that a block's replacement cannot be smaller than the block (so it need not be built): prose that
 * fits `maxTextChars`, a tool call whose arguments and result are shorter than a summary's fixed part.
 */
export function cannotShrink(
  messages: readonly ViewMessage[],
  analysis: Analysis,
  block: Block,
  caps: { maxTextChars: number; maxFieldChars: number },
): boolean {
  if (block.kind === "image") return false;
  const n = analysis.textChars(block);
  if (block.kind === "text") {
    if (n < 0) return false;
    if (block.reasoning) {
      // Dropping the thinking shrinks it, unless nothing would be left to send (an empty assistant message).
      return !(messages[block.msg] as AssistantMsg).content.some(
        (part) => part.type === "toolCall" || (part.type === "text" && part.text.trim() !== ""),
      );
    }
    return n <= caps.maxTextChars;
  }
  // n: the result's text (its images are blocks of their own). A result longer than a marker is usually cut: build
  // it rather than serialise the arguments twice.
  if (n > caps.maxTextChars) return false;
  const call = toolCallOf(messages, block);
  const fixed = 64 + call.name.length + call.id.length;
  // Both answers below need short arguments: they are measured only that far (never a written file's whole text).
  const args = jsonLength(call.arguments ?? {}, Math.max(fixed - n, call.name === "write" ? 0 : caps.maxFieldChars));
  if (n + args <= fixed) return true;
  // A summary repeats the arguments next to the call's own: with nothing in them to cap (the whole JSON within
  // maxFieldChars) and a result no longer than that, the pair cannot get smaller. `write` swaps its content for a
  // marker, so it is always built.
  return call.name !== "write" && args <= caps.maxFieldChars && n <= args + fixed;
}

export interface Plan {
  ids: string[];
  /** The pruned blocks, index-aligned with `ids`. */
  blocks: Block[];
  savedChars: number;
  savedTokens: number;
  counts: { tool: number; text: number; image: number };
  /** Set when candidates existed but saved less than `minGainTokens`: nothing is pruned. */
  belowMinGain?: boolean;
}

/**
 * What pruned blocks save per request, in tokens: text at 4 chars per token (rounded once over the sum), images at
 * what the API bills for them, an assistant's old thinking only where the API bills it as input. One accumulator for
 * the plan's gate and notice and for `/cache-ttl`.
 */
export class Savings {
  chars = 0;
  #textChars = 0;
  #imageTokens = 0;
  readonly #messages: readonly ViewMessage[];
  readonly #api: string | undefined;
  readonly #thinkingBilled: boolean;

  constructor(messages: readonly ViewMessage[], api: string | undefined) {
    this.#messages = messages;
    this.#api = api;
    this.#thinkingBilled = thinkingBilled(api);
  }

  add(block: Block, r: Measured): void {
    this.chars += r.origChars - r.newChars;
    if (block.kind === "image") {
      const part = imagePart(this.#messages, block);
      this.#imageTokens += Math.max(0, (part ? imageTokens(part, this.#api) : 0) - textTokens(r.newChars));
    } else {
      const unbilled = r.kind === "text" && !this.#thinkingBilled ? (r.reasoningChars ?? 0) : 0;
      this.#textChars += r.origChars - unbilled - r.newChars;
    }
  }

  get tokens(): number {
    return Math.max(0, textTokens(Math.max(0, this.#textChars)) + this.#imageTokens);
  }
}

function imagePart(messages: readonly ViewMessage[], block: Extract<Block, { kind: "image" }>): ImagePart | undefined {
  const content = (messages[block.msg] as { content?: unknown }).content;
  return Array.isArray(content) ? (content[block.part] as ImagePart | undefined) : undefined;
}

function pinned(input: PlanInput, block: Block): boolean {
  if (input.pins.ids.size > 0 && input.pins.ids.has(block.id)) return true;
  if (block.kind !== "tool" || (input.pins.tools.size === 0 && input.pins.paths.length === 0)) return false;
  const call = toolCallOf(input.messages, block);
  const args = call.arguments && typeof call.arguments === "object" ? call.arguments : {};
  return isToolPinned(input.pins, block.id, block.tool, args, input.cwd);
}

/**
 * Which blocks to prune now that the cache has expired. Older than `keepRecentTurns`: every tool and text block
 * whose replacement is smaller. Between the windows: only heavy tool blocks (more than `maxBase64Chars`). The last
 * `keepRecentIntactTurns` turns: nothing. Images anywhere outside the intact window: newest first, kept while
 * within `keepRecentImages` and `maxImageBase64Total`, the newest always kept.
 */
export function planPrune(input: PlanInput): Plan {
  const planner = new Planner(input);
  planner.consider(input.analysis.blocks.length);
  return planner.finish();
}

/**
 * `planPrune` in slices: the tool and text blocks as the analysis reaches them (`consider`), then the images, which
 * are chosen newest first over the whole list, and the gain gate (`finish`). A cold pass weighs each slice's blocks
 * right after analysing them, while their messages are still in the processor's cache.
 */
export class Planner {
  readonly #input: PlanInput;
  readonly #plan: Plan = { ids: [], blocks: [], savedChars: 0, savedTokens: 0, counts: { tool: 0, text: 0, image: 0 } };
  readonly #savings: Savings;
  /** Blocks before this one were considered. */
  #next = 0;

  constructor(input: PlanInput) {
    this.#input = input;
    this.#savings = new Savings(input.messages, input.api);
  }

  #take(block: Block, r: Measured): void {
    this.#plan.ids.push(block.id);
    this.#plan.blocks.push(block);
    this.#plan.counts[block.kind]++;
    this.#input.taken?.add(block);
    this.#savings.add(block, r);
  }

  /** Weigh the tool and text blocks up to block index `end` (those of the messages analysed so far). */
  consider(end: number): void {
    const input = this.#input;
    const { analysis, settings } = input;
    for (let b = this.#next; b < end; b++) {
      const block = analysis.blocks[b] as Block;
      if (block.kind === "image" || (input.pruned.size > 0 && input.pruned.has(block.id))) continue;
      const window = windowOf(analysis.ageOf(messageOf(block)), settings);
      if (window === "intact") continue;
      if (window === "cold" && block.kind === "text") continue;
      if (pinned(input, block)) continue;
      // A tool block's pre-check only weighs sizes; a text block's also keeps an assistant message from going empty.
      const known = block.kind === "tool" ? input.built?.(block) : undefined;
      if (!known && cannotShrink(input.messages, analysis, block, settings)) continue;
      const r = known ?? input.replacement(block);
      if (r.newChars >= r.origChars) continue;
      if (window === "cold" && (r.kind !== "tool" || (r.heavyChars ?? 0) <= settings.maxBase64Chars)) continue;
      this.#take(block, r);
    }
    this.#next = Math.max(this.#next, end);
  }

  /** Choose the images (every block must have been considered) and apply the gain gate. */
  finish(): Plan {
    const input = this.#input;
    const { analysis, settings } = input;
    const plan = this.#plan;
    // Images, newest first, wherever they are (a prompt, a tool result, pruned or not): the newest is always kept,
    // and so are images of the intact window and of pinned tools; the rest are kept while the budget allows.
    let kept = 0;
    let keptChars = 0;
    for (let b = analysis.blocks.length - 1; b >= 0; b--) {
      const block = analysis.blocks[b] as Block;
      if (block.kind !== "image" || input.pruned.has(block.id)) continue;
      const ownerIndex = analysis.resultTool[block.msg] as number;
      const owner = ownerIndex >= 0 ? (analysis.blocks[ownerIndex] as Block) : undefined;
      const intact = windowOf(analysis.ageOf(messageOf(block)), settings) === "intact";
      const fits = kept < settings.keepRecentImages && keptChars + block.chars <= settings.maxImageBase64Total;
      if (intact || kept === 0 || fits || pinned(input, block) || (owner !== undefined && pinned(input, owner))) {
        kept++;
        keptChars += block.chars;
        continue;
      }
      const r = input.replacement(block);
      if (r.newChars < r.origChars) this.#take(block, r);
    }

    plan.savedChars = this.#savings.chars;
    plan.savedTokens = this.#savings.tokens;
    if (plan.ids.length > 0 && plan.savedTokens < settings.minGainTokens) {
      return {
        ...plan,
        ids: [],
        blocks: [],
        savedChars: 0,
        savedTokens: 0,
        counts: { tool: 0, text: 0, image: 0 },
        belowMinGain: true,
      };
    }
    return plan;
  }
}
