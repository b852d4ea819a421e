/**
 * Pure decision: is the prompt cache still warm at `now`? Expired means `now - touch >= ttl - buffer`;
 * TTL unset or <= 0 means off.
 */
export function judgeCache(input) {
    const { ttlSeconds } = input;
    if (ttlSeconds === undefined || !(ttlSeconds > 0))
        return { kind: "off" };
    if (input.touchAt === undefined)
        return { kind: "armed" };
    const idle = (input.now - input.touchAt) / 1000;
    const usable = ttlSeconds - input.bufferSeconds;
    if (idle < usable)
        return { kind: "warm", secondsLeft: Math.floor(usable - idle) };
    if (input.warmGapSeconds > 0 && idle <= input.warmGapSeconds) {
        return { kind: "held", idleSeconds: Math.floor(idle), warmGapSeconds: Math.floor(input.warmGapSeconds) };
    }
    return { kind: "expired", idleSeconds: Math.floor(idle), secondsSince: Math.floor(idle - usable) };
}
/**
 * The bootstrap rule: the first request after loading a session judges expiry with the TTL stored with the last
 * touch (the cache was written under that TTL); later requests use the current one.
 */
export function ttlForJudgement(bootstrapPending, storedTtl, currentTtl) {
    return bootstrapPending && storedTtl !== undefined ? storedTtl : currentTtl;
}
/**
 * With neither touch nor TTL stored (the extension was added to an existing session), the last request time is
 * taken from the message just before the last assistant message (what triggered that request), else that
 * assistant message itself.
 */
export function inferTouch(messages) {
    for (let i = messages.length - 1; i >= 0; i--) {
        const m = messages[i];
        if (m.role !== "assistant")
            continue;
        const before = i > 0 ? messages[i - 1].timestamp : undefined;
        const at = typeof before === "number" ? before : m.timestamp;
        return typeof at === "number" ? at : undefined;
    }
    return undefined;
}
export function describeCache(state) {
    switch (state.kind) {
        case "off":
            return "cache-ttl-view is off (no TTL: set cacheTtl.ttlSeconds, or use a provider with a known cache TTL).";
        case "armed":
            return "No request yet in this session: the next one writes the prompt cache.";
        case "warm":
            return `Prompt cache is warm for about ${state.secondsLeft}s more.`;
        case "held":
            return `The TTL has passed (idle ${state.idleSeconds}s), but the provider reported a cache read after ${state.warmGapSeconds}s idle earlier in this session: not pruning yet.`;
        case "expired":
            return `Prompt cache expired about ${state.secondsSince}s ago: the next request re-writes the whole prefix, so old turns are pruned then.`;
    }
}
//# sourceMappingURL=cache-clock.js.map