/** What `completedTurns` reads of a session entry (pi's `SessionEntry`, structurally). */
export interface TurnEntry {
  type: string;
  message?: { role: string; stopReason?: string; content?: unknown };
}

/**
 * The completed turns of a session branch, as the live counter counts them (one per `turn_end`): its assistant
 * messages, less the billed attempts a stream hook interrupted. The patched pi keeps each of those in the session
 * for its usage, as an aborted assistant message without content, followed by the retry message that replaced it
 * (a custom message; extensions' data entries, such as pi-ttsr's cost entry, may come between). That attempt ended
 * no turn: counting it would make an `after-gap` rule eligible again too early after a resume.
 */
export function completedTurns(branch: readonly TurnEntry[]): number {
  let turns = 0;
  for (const [i, entry] of branch.entries()) {
    const message = entry.type === "message" ? entry.message : undefined;
    if (message?.role !== "assistant") continue;
    const empty = Array.isArray(message.content) && message.content.length === 0;
    if (message.stopReason === "aborted" && empty && nextInContext(branch, i + 1)?.type === "custom_message") continue;
    turns++;
  }
  return turns;
}

/** The first entry from `start` that is not an extension's data entry (`custom`, never sent to the model). */
function nextInContext(branch: readonly TurnEntry[], start: number): TurnEntry | undefined {
  let i = start;
  while (branch[i]?.type === "custom") i++;
  return branch[i];
}
