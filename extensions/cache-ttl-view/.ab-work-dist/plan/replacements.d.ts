import { type AssistantMsg, type ImagePart, type ToolCallPart, type ViewMessage } from "../model/messages.ts";
import { type Caps } from "../views/caps.ts";
import type { Block } from "./analysis.ts";
/** What a pruned block shows instead of its original, with the sizes that decide whether pruning pays. */
export type Replacement = {
    kind: "tool";
    args: Record<string, unknown>;
    summary: string;
    origChars: number;
    newChars: number;
    /** The largest artifact: the result text or the longest string argument (a written file). */
    heavyChars: number;
} | {
    kind: "text";
    text: string;
    command?: string;
    origChars: number;
    newChars: number;
    /** Of `origChars`, the assistant's thinking (dropped whole; billed as input only on some APIs). */
    reasoningChars?: number;
} | {
    kind: "image";
    text: string;
    origChars: number;
    newChars: number;
};
/** `[TRUNCATED] id=… chars=…: <start>…` within `max` chars. */
export declare function textMarker(id: string, text: string, max: number): string;
/** `[TRUNCATED FILE] id=… mime=… base64=…` for an image. */
export declare function imageMarker(id: string, image: ImagePart): string;
/**
 * The visible prose of a message that a text block covers. An assistant's thinking is not prose: it is dropped
 * whole when the block is pruned and never shown (or restored) as text.
 */
export declare function proseOf(m: ViewMessage): string;
/** Chars of an assistant message's thinking parts (text and signature: both go on the wire). */
export declare function reasoningChars(m: AssistantMsg): number;
/**
 * A cheap test that a block's replacement cannot be smaller than the block (so it need not be built): prose that
 * fits `maxTextChars`, a tool call whose arguments and result are shorter than a summary's fixed part.
 */
export declare function cannotShrink(messages: readonly ViewMessage[], block: Block, caps: {
    maxTextChars: number;
    maxFieldChars: number;
}): boolean;
export declare function toolCallOf(messages: readonly ViewMessage[], block: Extract<Block, {
    kind: "tool";
}>): ToolCallPart;
/** Build the replacement of one block (deterministic: same input and caps, same bytes). */
export declare function replacementFor(messages: readonly ViewMessage[], block: Block, caps: Caps): Replacement;
//# sourceMappingURL=replacements.d.ts.map