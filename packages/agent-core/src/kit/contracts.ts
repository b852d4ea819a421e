/**
 * The events the pi-rails extensions send each other on `pi.events`, named in one style (`pi-rails:<ext>:<what>`)
 * and defined once, so an emitter and a listener in two packages cannot drift apart.
 */

/**
 * pi-ttsr, at `session_start`: it is loaded and will enforce rules with a stream condition (`active`). rulebook
 * then leaves those rules to it.
 */
export const TTSR_STATUS_EVENT = "pi-rails:ttsr:status";

export interface TtsrStatusPayload {
  active: boolean;
  /** Whether the patched agent core is present (interrupt-and-retry inside the loop). */
  patched: boolean;
}

/** A listener's check of what arrived (another version of pi-ttsr may send it). */
export function isTtsrStatusPayload(value: unknown): value is TtsrStatusPayload {
  const payload = typeof value === "object" ? (value as Partial<TtsrStatusPayload> | null) : undefined;
  return typeof payload?.active === "boolean" && typeof (payload.patched ?? false) === "boolean";
}

/** pi-ttsr: one delivery of rules (`{ rules, kind, source, toolCallId? }`). */
export const TTSR_TRIGGERED_EVENT = "pi-rails:ttsr:triggered";
/** pi-ttsr: every non-interrupting match as it is recorded (before its delivery), for observers. */
export const TTSR_MATCHED_EVENT = "pi-rails:ttsr:matched";
/** pi-ttsr: what its interrupts cost so far this session (tokens, money). */
export const TTSR_COST_EVENT = "pi-rails:ttsr:cost";

/**
 * steering-bridge's channels. Listen to `ready` for the typed API of the current session (emitted at every session
 * start); emit `inject` to queue an item without holding the API. Payload types live with steering-bridge's API
 * (`SteeringEventPayloads`), which the emitters and listeners share.
 */
export const STEERING_EVENTS = {
  /** Emitted at each session start, with the bridge's API. */
  ready: "pi-rails:steering:ready",
  /** Every item's end state (its ack). */
  ack: "pi-rails:steering:ack",
  /** Every seam pass (a `LoopCheckpoint`). */
  checkpoint: "pi-rails:steering:checkpoint",
  /** Emit to queue an item. */
  inject: "pi-rails:steering:inject",
  /** Emitted when an `inject` event was refused. */
  rejected: "pi-rails:steering:rejected",
} as const;
