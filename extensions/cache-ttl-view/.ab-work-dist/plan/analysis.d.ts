import { type ToolCallPart, type ViewMessage } from "../model/messages.ts";
/**
 * The blocks of a message list: what can be pruned, and where it lives. A tool block is a call and its result
 * (pruned together so the pair stays a pair); a text block is a message's prose; an image block one image part.
 */
export type Block = {
    at: number;
} & ({
    kind: "tool";
    id: string;
    callMsg: number;
    callPart: number;
    resultMsg: number;
    tool: string;
}
/** `reasoning`: an assistant message with thinking parts; they are dropped whole with the text, never shown as text. */
 | {
    kind: "text";
    id: string;
    msg: number;
    reasoning: boolean;
} | {
    kind: "image";
    id: string;
    msg: number;
    part: number;
    chars: number;
});
/** What is asked of a set of block ids (the pruned ones: a `Set`, or the state's map of pruned ids to their caps). */
export interface IdSet {
    has(id: string): boolean;
    readonly size: number;
}
/** The message a block's age is read from (a tool block: its call). */
export declare const messageOf: (block: Block) => number;
/** The call part of a tool block. */
export declare function toolCallOf(messages: readonly ViewMessage[], block: Extract<Block, {
    kind: "tool";
}>): ToolCallPart;
/** The tool or image block of part `part` of message i (no allocation: drawing asks this for every part). */
export declare function partBlock(analysis: Analysis, i: number, part: number): Block | undefined;
/** Message i's text block when it is in `ids`. */
export declare function prunedText(analysis: Analysis, i: number, ids: IdSet): ({
    at: number;
} & {
    kind: "text";
    id: string;
    msg: number;
    reasoning: boolean;
}) | undefined;
/**
 * Whether the thinking of message i is dropped from the view (its text block is pruned and it has thinking): the
 * message's tool calls then lose their provider item ids, and their results follow.
 */
export declare function reasoningDropped(analysis: Analysis, i: number, pruned: IdSet): boolean;
/** Whether anything in message i is in `ids`, or its tool call's message lost its reasoning (no allocation). */
export declare function touches(analysis: Analysis, i: number, ids: IdSet): boolean;
/**
 * The analysis of a message list, extended in place when the next request's list is this one plus new messages
 * (pi's context of request N+1 is request N's plus a few messages): only the new messages are analysed, and the ids,
 * the blocks and their indexes of the prefix stay as they are.
 */
export declare class Analysis {
    #private;
    /** Blocks in message order; those of message i are `blocks[first[i]]` up to `blocks[first[i + 1]]`. */
    readonly blocks: Block[];
    constructor(owners: ReadonlyMap<string, number>);
    get length(): number;
    /** The owner hash of a block's source (stored with its id when it is pruned, see `ownerHash`). */
    ownerOf(block: Block): number;
    /** Index in `blocks` of the first block of message i (`first[length]`: the number of blocks). */
    get first(): Int32Array;
    /** Index in `blocks` of the tool block whose result is message i, or -1. */
    get resultTool(): Int32Array;
    /** Index in `blocks` of message i's text block, or -1. */
    get textBlock(): Int32Array;
    /** Age in turns of message i (0: the current turn). */
    ageOf(i: number): number;
    /** The block with this id. */
    byId(id: string): Block | undefined;
    /** Whether `messages` is the analysed list plus new messages (compared by the keys of its ends). */
    extends(messages: readonly ViewMessage[]): boolean;
    /** Analyse the messages after the analysed prefix (one linear pass over them). */
    extend(messages: readonly ViewMessage[]): this;
}
/** One linear pass over the messages; `owners`: the registered ids (pruned ids with their owner hashes). */
export declare function analyze(messages: readonly ViewMessage[], owners?: ReadonlyMap<string, number>): Analysis;
//# sourceMappingURL=analysis.d.ts.map