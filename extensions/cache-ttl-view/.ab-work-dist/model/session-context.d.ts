import type { ViewMessage } from "./messages.ts";
/**
 * The messages pi sends for a branch of session entries (root first), built the way pi's `buildSessionContext`
 * builds them: messages, custom messages, branch summaries, and a compaction replacing what it summarised. One
 * builder serves the extension (`context_restore` and `/cache-ttl` read the session's current context) and the
 * report (which replays every request of a file), without importing pi at run time.
 */
export declare class SessionContextBuilder {
    #private;
    /** Add one entry (unknown shape: it comes from a file or pi's session manager); other entry types are ignored. */
    add(entry: unknown): void;
    /** Every message of the branch so far, compacted ones included (where a restore finds what compaction cut). */
    history(): ViewMessage[];
    /** The messages so far (a new array; the messages themselves are shared). */
    messages(): ViewMessage[];
}
/** The context of a branch of entries (root first) and its whole history (see `SessionContextBuilder.history`). */
export declare function builderOf(entries: readonly unknown[]): SessionContextBuilder;
//# sourceMappingURL=session-context.d.ts.map