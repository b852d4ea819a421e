/**
 * The event pi-ttsr emits on `pi.events` at `session_start` to say it is loaded and will enforce
 * rules with a stream condition. Rulebook then leaves those rules to it.
 */
export const TTSR_STATUS_EVENT = "pi-rails:ttsr:status" as const;

export interface TtsrStatusPayload {
  active: boolean;
  /** Whether the patched agent core is present (interrupt-and-retry inside the loop). */
  patched: boolean;
}

export function isTtsrStatusPayload(value: unknown): value is TtsrStatusPayload {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as TtsrStatusPayload).active === "boolean" &&
    typeof ((value as TtsrStatusPayload).patched ?? false) === "boolean"
  );
}
