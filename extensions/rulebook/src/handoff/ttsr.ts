/**
 * The handoff from pi-ttsr (see `@pi-rails/agent-core/kit` contracts): while pi-ttsr says it is active, rulebook
 * leaves rules with a stream condition to it, and a rule pi-ttsr reports skipping is "not delivered" in every view
 * (`/rulebook` then says what `/ttsr` says, including what only pi-ttsr's compiler can judge).
 */
import type { TtsrStatusPayload } from "@pi-rails/agent-core/kit";

export { isTtsrStatusPayload, TTSR_STATUS_EVENT, type TtsrStatusPayload } from "@pi-rails/agent-core/kit";

/** The rules a status payload says pi-ttsr skipped, by name, with the reason; empty for an older pi-ttsr. */
export function ttsrSkippedRules(payload: unknown): Map<string, string> {
  const skipped = (payload as Partial<TtsrStatusPayload> | null | undefined)?.skipped;
  const out = new Map<string, string>();
  if (!Array.isArray(skipped)) return out;
  for (const entry of skipped as unknown[]) {
    const { name, reason } = (entry ?? {}) as { name?: unknown; reason?: unknown };
    if (typeof name === "string" && typeof reason === "string") out.set(name, reason);
  }
  return out;
}
