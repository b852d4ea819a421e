import { type EventName, STEERING_EVENTS } from "@pi-rails/agent-core/kit";
import type { CancelToolCallOptions, CancelToolCallResult } from "./bridge/cancel.ts";
import type { BridgeStatus, InjectResult } from "./bridge/steering-bridge.ts";
import type { Ack, RevokeResult, SteeringItem, SteeringItemInput } from "./queue/types.ts";
import type { SteeringCheckpoint } from "./seams/seam-log.ts";

/**
 * The channels on `pi.events` (`pi-rails:steering:*`, named once in agent-core's contracts) through which other
 * extensions in the same pi reach the bridge: listen to `ready` for the typed API of the current session (emitted at
 * every session start); `inject` is the fire-and-forget form. `STEERING_EVENTS` is the table of the names.
 */
export { STEERING_EVENTS };

/** The bridge of the current session, for extensions in the same process. */
export interface SteeringApi {
  sessionId: string;
  /** Throws SteeringInputError (with `field`) on bad input. */
  inject(input: SteeringItemInput): InjectResult;
  revoke(id: string): RevokeResult;
  pending(): SteeringItem[];
  status(): BridgeStatus;
  /** Cancels one running call of pi's built-in tools (stock or patched pi); the rest of the batch runs on. */
  cancelToolCall(callId: string, options?: CancelToolCallOptions): Promise<CancelToolCallResult>;
  /** The control socket, when it is listening. */
  socketPath(): string | undefined;
}

export interface SteeringReadyEvent {
  api: SteeringApi;
}

export interface SteeringRejectedEvent {
  input: unknown;
  error: string;
}

/** Payload types by channel, so an emitter and a listener agree on what travels. */
export interface SteeringEventPayloads {
  [STEERING_EVENTS.ready]: SteeringReadyEvent;
  [STEERING_EVENTS.ack]: Ack;
  [STEERING_EVENTS.checkpoint]: SteeringCheckpoint;
  [STEERING_EVENTS.inject]: SteeringItemInput;
  [STEERING_EVENTS.rejected]: SteeringRejectedEvent;
}

/*
 * Each channel as one constant whose name carries its payload type, as pi-ttsr's `TTSR_*_EVENT` (the kit's
 * `EventName`) and the socket's methods in protocol.ts are declared: `emitEvent(pi.events, STEERING_ACK_EVENT, ack)`
 * checks what is sent, and a listener reads the payload type off the name.
 */
/** Emitted at each session start, with the bridge's API. */
export const STEERING_READY_EVENT: EventName<SteeringReadyEvent> = STEERING_EVENTS.ready;
/** Every item's end state. */
export const STEERING_ACK_EVENT: EventName<Ack> = STEERING_EVENTS.ack;
/** Every seam pass. */
export const STEERING_CHECKPOINT_EVENT: EventName<SteeringCheckpoint> = STEERING_EVENTS.checkpoint;
/** Emit to queue an item without holding the API. */
export const STEERING_INJECT_EVENT: EventName<SteeringItemInput> = STEERING_EVENTS.inject;
/** Emitted when an `inject` event was refused. */
export const STEERING_REJECTED_EVENT: EventName<SteeringRejectedEvent> = STEERING_EVENTS.rejected;
