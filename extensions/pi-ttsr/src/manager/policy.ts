import type { StreamSource, TtsrRule } from "../rules/types.ts";
import type { TtsrSettings } from "../settings/schema.ts";

/** What is remembered about a rule's past firings (restored from the session on resume). */
export interface FiringRecord {
  count: number;
  /** Completed-turn counter value when it last fired. */
  lastTurn: number;
  /** Epoch ms when it last fired (for `cooldown`); 0 when unknown (restored). */
  lastTime: number;
}

/**
 * Repeat policy. `maxFirings` caps firings per session (default: 1 in `once` mode, unlimited in `after-gap`);
 * `after-gap` also requires `repeatGap` completed turns since the last firing; `cooldown` requires that many
 * seconds since the last firing.
 */
export function canFire(
  rule: Pick<TtsrRule, "maxFirings" | "cooldown">,
  record: FiringRecord | undefined,
  settings: Pick<TtsrSettings, "repeatMode" | "repeatGap">,
  turn: number,
  now: number,
): boolean {
  if (!record || record.count === 0) return true;
  const cap = rule.maxFirings ?? (settings.repeatMode === "once" ? 1 : Number.POSITIVE_INFINITY);
  if (record.count >= cap) return false;
  if (settings.repeatMode === "after-gap" && turn - record.lastTurn < settings.repeatGap) return false;
  if (rule.cooldown && record.lastTime > 0 && now - record.lastTime < rule.cooldown * 1000) return false;
  return true;
}

/**
 * Whether a match on this source aborts the stream: the rule's own `interruptMode` when it has one (the
 * reference's per-rule key), else the `ttsr.interruptMode` setting; `interrupt: false` never aborts.
 */
export function shouldInterrupt(
  rule: Pick<TtsrRule, "interrupt" | "interruptMode">,
  source: StreamSource,
  mode: TtsrSettings["interruptMode"],
): boolean {
  if (!rule.interrupt) return false;
  switch (rule.interruptMode ?? mode) {
    case "always":
      return true;
    case "never":
      return false;
    case "prose-only":
      return source !== "tool";
    case "tool-only":
      return source === "tool";
  }
}

export function recordFiring(record: FiringRecord | undefined, turn: number, now: number): FiringRecord {
  return { count: (record?.count ?? 0) + 1, lastTurn: turn, lastTime: now };
}
