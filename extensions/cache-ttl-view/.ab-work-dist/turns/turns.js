/**
 * Turns and windows. A turn is a user message and everything until the next one; its age is 0 for the current
 * (last) turn (`Analysis.ageOf`). Messages before the first user message (a compaction summary, say) are older
 * than every turn.
 */
/**
 * Window of a turn age: the last `keepRecentIntactTurns` turns are intact, turns older than `keepRecentTurns` are
 * old (fully prunable), and between them is the cold-recent window (only heavy artifacts go).
 */
export function windowOf(age, windows) {
    // The current turn is always intact, whatever the settings: it holds the prompt being answered and the tool loop
    // in progress (Anthropic requires its thinking blocks first and unmodified).
    if (age < Math.max(1, windows.keepRecentIntactTurns))
        return "intact";
    if (age < windows.keepRecentTurns)
        return "cold";
    return "old";
}
//# sourceMappingURL=turns.js.map