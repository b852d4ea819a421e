/**
 * The events the pi-rails extensions send each other on `pi.events`, named in one style (`pi-rails:<ext>:<what>`)
 * and defined once, so an emitter and a listener in two packages cannot drift apart. As LSP declares a
 * `NotificationType`, each constant is the event's name and carries its payload's type: `emitEvent` checks what is
 * sent, and a listener knows what to expect (and checks it: another version of the emitter may send it).
 */

/** An event name that carries its payload type (at run time a plain string: `pi.events.on(name, …)` takes it). */
export type EventName<P> = string & { readonly payload?: P };

/** The payload type of a typed event name. */
export type EventPayload<E> = E extends EventName<infer P> ? P : never;

/** What `emitEvent` needs of pi's event bus (`pi.events`). */
export interface EventSink {
  emit(channel: string, data: unknown): void;
}

/** Emits `payload` on the event `name`, checked against the payload type the name carries. */
export function emitEvent<P>(events: EventSink, name: EventName<P>, payload: P): void {
  events.emit(name, payload);
}

const eventName = <P>(name: string): EventName<P> => name as EventName<P>;

/** What pi-ttsr says at `session_start`. Fields past `active` may be missing when an older pi-ttsr sends it. */
export interface TtsrStatusPayload {
  /** It will enforce rules with a stream condition this session (rulebook then leaves those rules to it). */
  active: boolean;
  /** Whether the patched agent core is present (interrupt-and-retry inside the loop). */
  patched: boolean;
  /** Names of the rules it watches. */
  rules?: string[];
  /** Rules it did not load because of a problem with the rule (not the ones settings turned off), with why. */
  skipped?: { name: string; path: string; reason: string }[];
  /** Everything it warned about at session start, as text. */
  warnings?: string[];
}

/** pi-ttsr, at `session_start`: it is loaded, and whether it will enforce rules with a stream condition. */
export const TTSR_STATUS_EVENT = eventName<TtsrStatusPayload>("pi-rails:ttsr:status");

/** A listener's check of what arrived (another version of pi-ttsr may send it). */
export function isTtsrStatusPayload(value: unknown): value is TtsrStatusPayload {
  const payload = typeof value === "object" ? (value as Partial<TtsrStatusPayload> | null) : undefined;
  return typeof payload?.active === "boolean" && typeof (payload.patched ?? false) === "boolean";
}

/** One delivery of rules by pi-ttsr. */
export interface TtsrTriggeredPayload {
  rules: Array<{ name: string; path: string; content: string; description?: string }>;
  /** How the rules reached the model: an interrupt and retry, a hidden follow-up, or on a tool call's result. */
  kind: "interrupt" | "follow-up" | "tool-reminder" | "tool-block";
  /** The stream that matched. */
  source: "text" | "thinking" | "tool";
  toolCallId?: string;
}

/** pi-ttsr: one delivery of rules. */
export const TTSR_TRIGGERED_EVENT = eventName<TtsrTriggeredPayload>("pi-rails:ttsr:triggered");

/** Rules that matched without interrupting, recorded for a later delivery (`deferred`). */
export interface TtsrMatchedPayload {
  rules: string[];
  deferred: true;
}

/** pi-ttsr: every non-interrupting match as it is recorded (before its delivery), for observers. */
export const TTSR_MATCHED_EVENT = eventName<TtsrMatchedPayload>("pi-rails:ttsr:matched");

/** What pi-ttsr's interrupts cost so far this session: aborted requests are billed too. */
export interface TtsrCostPayload {
  /** Interrupts seen (aborts whose retry is pi-ttsr's). */
  interrupts: number;
  /** Of those, how many reported usage. */
  withUsage: number;
  tokens: number;
  cacheWrite: number;
  /** Dollars, summed over the attempts that had a cost. */
  cost: number;
  /** True once an attempt reported a cost. */
  costKnown: boolean;
  /** The tally as pi-ttsr says it ("interrupts cost 1,234 tokens this session ($0.01)"). */
  text: string;
}

/** pi-ttsr: what its interrupts cost so far this session (tokens, money), after each one that reported usage. */
export const TTSR_COST_EVENT = eventName<TtsrCostPayload>("pi-rails:ttsr:cost");

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
