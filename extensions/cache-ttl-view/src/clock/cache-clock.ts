import type { ViewMessage } from "../model/messages.ts";

/** Where the provider's prompt cache stands before a request. */
export type CacheState =
  | { kind: "off" }
  /** No touch time known: this request writes the cache ("armed"); nothing is pruned. */
  | { kind: "armed" }
  | { kind: "warm"; secondsLeft: number }
  /** The clock says expired, but this session's usage counters showed a cache read after an idle this long. */
  | { kind: "held"; idleSeconds: number; warmGapSeconds: number }
  | { kind: "expired"; idleSeconds: number; secondsSince: number };

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
export function judgeCache(input: ClockInput): CacheState {
  const { ttlSeconds } = input;
  if (ttlSeconds === undefined || !(ttlSeconds > 0)) return { kind: "off" };
  if (input.touchAt === undefined) return { kind: "armed" };
  const idle = (input.now - input.touchAt) / 1000;
  const usable = ttlSeconds - input.bufferSeconds;
  if (idle < usable) return { kind: "warm", secondsLeft: Math.floor(usable - idle) };
  if (input.warmGapSeconds > 0 && idle <= input.warmGapSeconds) {
    return { kind: "held", idleSeconds: Math.floor(idle), warmGapSeconds: Math.floor(input.warmGapSeconds) };
  }
  return { kind: "expired", idleSeconds: Math.floor(idle), secondsSince: Math.floor(idle - usable) };
}

/**
 * The bootstrap rule: the first request after loading a session judges expiry with the TTL stored with the last
 * touch (the cache was written under that TTL); later requests use the current one. Pruning that is off now (no
 * current TTL: turned off, an unknown model, a buffer that eats the TTL) stays off, and a stored TTL the buffer eats
 * is not used (it would judge every request expired).
 */
export function ttlForJudgement(
  bootstrapPending: boolean,
  storedTtl: number | undefined,
  currentTtl: number | undefined,
  bufferSeconds = 0,
): number | undefined {
  if (currentTtl === undefined || !(currentTtl > 0)) return currentTtl;
  return bootstrapPending && storedTtl !== undefined && storedTtl > bufferSeconds ? storedTtl : currentTtl;
}

/**
 * With neither touch nor TTL stored (the extension was added to an existing session), the last request time is
 * taken from the message just before the last assistant message (what triggered that request), else that
 * assistant message itself.
 */
export function inferTouch(messages: readonly ViewMessage[]): number | undefined {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i] as ViewMessage;
    if (m.role !== "assistant") continue;
    const before = i > 0 ? (messages[i - 1] as ViewMessage).timestamp : undefined;
    const at = typeof before === "number" ? before : m.timestamp;
    return typeof at === "number" ? at : undefined;
  }
  return undefined;
}

export function describeCache(state: CacheState): string {
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
