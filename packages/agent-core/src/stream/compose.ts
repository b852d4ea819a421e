import type { StreamTextEvent, StreamTextHook, StreamTextResult } from "@mariozechner/pi-agent-core";

/**
 * Combine several stream hooks into the one the loop accepts: they run in order and the first abort wins,
 * so independent guards (rules, budgets, steering) can share the single per-delta call site.
 */
export function composeStreamHooks(hooks: readonly StreamTextHook[]): StreamTextHook | undefined {
  if (hooks.length === 0) return undefined;
  if (hooks.length === 1) return hooks[0];
  return (event: StreamTextEvent): StreamTextResult | undefined => {
    for (const hook of hooks) {
      const result = hook(event);
      if (result?.abort === true) return result;
    }
    return undefined;
  };
}

/** The default cap on consecutive stream-hook aborts in one turn (the loop's default too). */
export const DEFAULT_MAX_CONSECUTIVE_STREAM_ABORTS = 3;
