import type { ViewMessage } from "../model/messages.ts";

/**
 * Turns and windows. A turn is a user message and everything until the next one; its age is 0 for the current
 * (last) turn. Messages before the first user message (a compaction summary, say) are older than every turn.
 */

export type Window = "intact" | "cold" | "old";

export interface TurnWindows {
  keepRecentTurns: number;
  keepRecentIntactTurns: number;
}

/** Age in turns of every message (0 = current turn). */
export function turnAges(messages: readonly ViewMessage[]): Int32Array {
  const ages = new Int32Array(messages.length);
  // Walking back: a user message belongs to the turn it opens, so the age grows after it is stamped.
  for (let i = messages.length - 1, a = 0; i >= 0; i--) {
    const m = messages[i] as ViewMessage;
    ages[i] = a;
    if (m.role === "user") a++;
  }
  return ages;
}

/**
 * Window of a turn age: the last `keepRecentIntactTurns` turns are intact, turns older than `keepRecentTurns` are
 * old (fully prunable), and between them is the cold-recent window (only heavy artifacts go).
 */
export function windowOf(age: number, windows: TurnWindows): Window {
  // The current turn is always intact, whatever the settings: it holds the prompt being answered and the tool loop
  // in progress (Anthropic requires its thinking blocks first and unmodified).
  if (age < Math.max(1, windows.keepRecentIntactTurns)) return "intact";
  if (age < windows.keepRecentTurns) return "cold";
  return "old";
}
