import type { ViewMessage } from "../model/messages.ts";
/** Where the provider's prompt cache stands before a request. */
export type CacheState = {
    kind: "off";
}
/** No touch time known: this request writes the cache ("armed"); nothing is pruned. */
 | {
    kind: "armed";
} | {
    kind: "warm";
    secondsLeft: number;
}
/** The clock says expired, but this session's usage counters showed a cache read after an idle this long. */
 | {
    kind: "held";
    idleSeconds: number;
    warmGapSeconds: number;
} | {
    kind: "expired";
    idleSeconds: number;
    secondsSince: number;
};
export interface ClockInput {
    now: number;
    touchAt: number | undefined;
    ttlSeconds: number | undefined;
    bufferSeconds: number;
    /** Longest idle after which the provider still reported a cache read (0: no evidence). */
    warmGapSeconds: number;
}
/**
 * Pure decision: is the prompt cache still warm at `now`? Expired means `now - touch >= ttl - buffer`;
 * TTL unset or <= 0 means off.
 */
export declare function judgeCache(input: ClockInput): CacheState;
/**
 * The bootstrap rule: the first request after loading a session judges expiry with the TTL stored with the last
 * touch (the cache was written under that TTL); later requests use the current one.
 */
export declare function ttlForJudgement(bootstrapPending: boolean, storedTtl: number | undefined, currentTtl: number | undefined): number | undefined;
/**
 * With neither touch nor TTL stored (the extension was added to an existing session), the last request time is
 * taken from the message just before the last assistant message (what triggered that request), else that
 * assistant message itself.
 */
export declare function inferTouch(messages: readonly ViewMessage[]): number | undefined;
export declare function describeCache(state: CacheState): string;
//# sourceMappingURL=cache-clock.d.ts.map