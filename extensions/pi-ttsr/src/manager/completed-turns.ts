/** What `completedTurns` reads of a session entry (pi's `SessionEntry`, structurally). */
export interface TurnEntry {
  type: string;
  message?: { role: string; stopReason?: string; content?: unknown };
}

/**
 * The completed turns of a session branch, as the live counter counts them: its assistant messages, less the
 * attempts a stream hook interrupted. Each is kept in the session for its usage, without content, followed by the
 * retry message that replaced it (a custom message; extensions' data entries, such as pi-ttsr's cost entry, may
 * come between): on the patched pi as an aborted message, on stock pi as an emptied one that ended normally. Such
 * an attempt is not a turn of the conversation (on the patched pi it ends none; on stock pi the live counter skips
 * its `turn_end`, {@link countsAsTurn}): counting it would make an `after-gap` rule eligible again too early.
 */
export function completedTurns(branch: readonly TurnEntry[]): number {
  let turns = 0;
  for (const [i, entry] of branch.entries()) {
    const message = entry.type === "message" ? entry.message : undefined;
    if (message?.role !== "assistant") continue;
    if (isEmptied(message) && nextInContext(branch, i + 1)?.type === "custom_message") continue;
    turns++;
  }
  return turns;
}

/**
 * Whether pi's `turn_end` for this assistant message counts as a completed turn: not for a response the stream hook
 * emptied on stock pi (no content, ended normally: the rule's retry follows as a new run, as on the patched pi it
 * follows inside the same turn). A turn the user aborted, with or without content, counts.
 */
export function countsAsTurn(message: { role: string; stopReason?: string; content?: unknown } | undefined): boolean {
  return !(message?.role === "assistant" && message.stopReason === "stop" && isEmptied(message));
}

/** An assistant message without content that ended normally or was aborted: an interrupted attempt's trace. */
function isEmptied(message: { stopReason?: string; content?: unknown }): boolean {
  const empty = Array.isArray(message.content) && message.content.length === 0;
  return empty && (message.stopReason === "aborted" || message.stopReason === "stop");
}

/** The first entry from `start` that is not an extension's data entry (`custom`, never sent to the model). */
function nextInContext(branch: readonly TurnEntry[], start: number): TurnEntry | undefined {
  let i = start;
  while (branch[i]?.type === "custom") i++;
  return branch[i];
}
