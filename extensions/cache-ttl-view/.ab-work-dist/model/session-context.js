/**
 * The messages pi sends for a branch of session entries (root first), built the way pi's `buildSessionContext`
 * builds them: messages, custom messages, branch summaries, and a compaction replacing what it summarised. One
 * builder serves the extension (`context_restore` and `/cache-ttl` read the session's current context) and the
 * report (which replays every request of a file), without importing pi at run time.
 */
export class SessionContextBuilder {
    #context = [];
    #history = [];
    /** Add one entry (unknown shape: it comes from a file or pi's session manager); other entry types are ignored. */
    add(entry) {
        if (typeof entry !== "object" || entry === null)
            return;
        const e = entry;
        const at = () => Date.parse(String(e["timestamp"]));
        if (e["type"] === "message") {
            this.#context.push({ id: e["id"], message: e["message"] });
            this.#history.push(e["message"]);
        }
        else if (e["type"] === "custom_message") {
            this.#context.push({
                id: e["id"],
                message: {
                    role: "custom",
                    customType: String(e["customType"]),
                    content: e["content"],
                    display: e["display"] === true,
                    timestamp: at(),
                },
            });
        }
        else if (e["type"] === "branch_summary" && e["summary"]) {
            this.#context.push({ id: e["id"], message: { role: "branchSummary", summary: e["summary"], timestamp: at() } });
        }
        else if (e["type"] === "compaction") {
            const kept = this.#context.findIndex((c) => c.id === e["firstKeptEntryId"]);
            const summary = { role: "compactionSummary", summary: e["summary"], timestamp: at() };
            this.#context = [{ id: e["id"], message: summary }, ...(kept >= 0 ? this.#context.slice(kept) : [])];
        }
    }
    /** Every message of the branch so far, compacted ones included (where a restore finds what compaction cut). */
    history() {
        return this.#history.slice();
    }
    /** The messages so far (a new array; the messages themselves are shared). */
    messages() {
        return this.#context.map((c) => c.message);
    }
}
/** The context of a branch of entries (root first) and its whole history (see `SessionContextBuilder.history`). */
export function builderOf(entries) {
    const builder = new SessionContextBuilder();
    for (const entry of entries)
        builder.add(entry);
    return builder;
}
//# sourceMappingURL=session-context.js.map