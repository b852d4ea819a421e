import type { ViewMessage } from "../model/messages.ts";
import type { CacheTtlSettings } from "../settings/settings.ts";
import { type Analysis, type Block, type IdSet } from "./analysis.ts";
import { type PinSet } from "./pins.ts";
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
}
/** What choosing needs of a replacement (drawing builds the bytes): its sizes, see `Replacement`. */
export type Measured = {
    kind: Block["kind"];
    origChars: number;
    newChars: number;
} & {
    heavyChars?: number;
    reasoningChars?: number;
};
/**
 * A cheap test that a block's replacement cannot be smaller than the block (so it need not be built): prose that
 * fits `maxTextChars`, a tool call whose arguments and result are shorter than a summary's fixed part.
 */
export declare function cannotShrink(messages: readonly ViewMessage[], block: Block, caps: {
    maxTextChars: number;
    maxFieldChars: number;
}): boolean;
export interface Plan {
    ids: string[];
    /** The pruned blocks, index-aligned with `ids`. */
    blocks: Block[];
    savedChars: number;
    savedTokens: number;
    counts: {
        tool: number;
        text: number;
        image: number;
    };
    /** Set when candidates existed but saved less than `minGainTokens`: nothing is pruned. */
    belowMinGain?: boolean;
}
/**
 * Which blocks to prune now that the cache has expired. Older than `keepRecentTurns`: every tool and text block
 * whose replacement is smaller. Between the windows: only heavy tool blocks (more than `maxBase64Chars`). The last
 * `keepRecentIntactTurns` turns: nothing. Images anywhere outside the intact window: newest first, kept while
 * within `keepRecentImages` and `maxImageBase64Total`, the newest always kept.
 */
export declare function planPrune(input: PlanInput): Plan;
//# sourceMappingURL=plan.d.ts.map