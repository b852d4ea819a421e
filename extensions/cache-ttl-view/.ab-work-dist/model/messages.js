/**
 * The shape of pi's agent messages as this package reads them. Structural on purpose: the pure modules work on
 * plain data (the `context` event's deep copy, or a session file being replayed) and never import pi.
 */
export const isUser = (m) => m.role === "user";
export const isAssistant = (m) => m.role === "assistant";
export const isToolResult = (m) => m.role === "toolResult";
export const isCustom = (m) => m.role === "custom";
export const isBashExecution = (m) => m.role === "bashExecution";
/** Summaries pi writes (compaction, branch) are never pruned: they already are the short form. */
export function isSummary(m) {
    return m.role === "compactionSummary" || m.role === "branchSummary";
}
/** Parts of a user/custom/toolResult content, string content as one text part. */
export function partsOf(content) {
    return typeof content === "string" ? [{ type: "text", text: content }] : content;
}
/** Joined text of text parts. */
export function textOf(parts) {
    let out = "";
    for (const part of parts) {
        if (part.type === "text" && typeof part.text === "string")
            out += out ? `\n${part.text}` : part.text;
    }
    return out;
}
//# sourceMappingURL=messages.js.map