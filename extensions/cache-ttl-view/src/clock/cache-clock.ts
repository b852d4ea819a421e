import type { CacheTtlSettings } from "../settings/settings.ts";

/** Where the provider's prompt cache stands, judged from the time of the last provider response. */
export type CacheState =
  | { kind: "off" }
  | { kind: "unknown" }
  | { kind: "warm"; secondsLeft: number }
  | { kind: "expired"; secondsSince: number };

/** Pure decision: is the prompt cache (probably) still warm at `now`? */
export function judgeCache(lastResponseAt: number | undefined, now: number, settings: CacheTtlSettings): CacheState {
  if (!settings.enabled) return { kind: "off" };
  if (lastResponseAt === undefined) return { kind: "unknown" };
  const elapsed = (now - lastResponseAt) / 1000;
  const usable = settings.ttlSeconds - settings.bufferSeconds;
  if (elapsed < usable) return { kind: "warm", secondsLeft: Math.floor(usable - elapsed) };
  return { kind: "expired", secondsSince: Math.floor(elapsed - usable) };
}

export function describeCache(state: CacheState): string {
  switch (state.kind) {
    case "off":
      return "cache-ttl-view is disabled (cacheTtl.enabled: false).";
    case "unknown":
      return "No provider response yet in this session: the prompt cache is cold.";
    case "warm":
      return `Prompt cache is warm for about ${state.secondsLeft}s more.`;
    case "expired":
      return `Prompt cache expired about ${state.secondsSince}s ago: the next request re-writes the whole prefix.`;
  }
}
