/**
 * Turns and windows. A turn is a user message and everything until the next one; its age is 0 for the current
 * (last) turn (`Analysis.ageOf`). Messages before the first user message (a compaction summary, say) are older
 * than every turn.
 */
export type Window = "intact" | "cold" | "old";
export interface TurnWindows {
    keepRecentTurns: number;
    keepRecentIntactTurns: number;
}
/**
 * Window of a turn age: the last `keepRecentIntactTurns` turns are intact, turns older than `keepRecentTurns` are
 * old (fully prunable), and between them is the cold-recent window (only heavy artifacts go).
 */
export declare function windowOf(age: number, windows: TurnWindows): Window;
//# sourceMappingURL=turns.d.ts.map