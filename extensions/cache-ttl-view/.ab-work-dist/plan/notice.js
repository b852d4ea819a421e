function plural(n, one, many) {
    return `${n} ${n === 1 ? one : many}`;
}
/**
 * The text of the `cache_ttl_pruned` notice: what was pruned, why, about how many tokens it saves, and how to get
 * an original back. Persisted verbatim, so later requests repeat it byte for byte.
 */
export function noticeText(plan, ttlSeconds, idleSeconds) {
    const parts = [];
    if (plan.counts.tool)
        parts.push(plural(plan.counts.tool, "tool call with its result", "tool calls with their results"));
    if (plan.counts.text)
        parts.push(plural(plan.counts.text, "message", "messages"));
    if (plan.counts.image)
        parts.push(plural(plan.counts.image, "image", "images"));
    const example = plan.ids[0] ?? "";
    return (`[SYSTEM MESSAGE] Context was pruned because the prompt cache TTL (${ttlSeconds}s) was exceeded ` +
        `(idle ${idleSeconds}s). Replaced by short [TRUNCATED] / [TRUNCATED FILE] texts: ${parts.join(", ")} ` +
        `(about ${plan.savedTokens.toLocaleString("en-US")} tokens less per request). The originals are kept in the ` +
        `session: call context_restore with the ids shown in those texts, e.g. {"ids":["${example}"]}, to see them ` +
        "again (they are appended at the end of the conversation).");
}
//# sourceMappingURL=notice.js.map