import { STEERING_EVENTS } from "@pi-rails/agent-core/kit";
import type { CancelToolCallOptions, CancelToolCallResult } from "./bridge/cancel.ts";
import type { BridgeStatus, InjectResult } from "./bridge/steering-bridge.ts";
import type { Ack, RevokeResult, SteeringItem, SteeringItemInput } from "./queue/types.ts";
import type { SteeringCheckpoint } from "./seams/seam-log.ts";

/**
 * The channels on `pi.events` (`pi-rails:steering:*`, defined once in agent-core's contracts) through which other
 * extensions in the same pi reach the bridge: listen to `ready` for the typed API of the current session (emitted at
 * every session start); `inject` is the fire-and-forget form.
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
