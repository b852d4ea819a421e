import type { LoopCheckpoint } from "@pi-rails/agent-core/kit";
import type { CancelToolCallOptions, CancelToolCallResult } from "./bridge/cancel.ts";
import type { BridgeStatus, InjectResult } from "./bridge/steering-bridge.ts";
import type { Ack, RevokeResult, SteeringItem, SteeringItemInput } from "./queue/types.ts";

/**
 * Channels on `pi.events` through which other extensions in the same pi reach the bridge. Listen to `ready` to get
 * the typed API of the current session (emitted at every session start); `inject` is the fire-and-forget form.
 */
export const STEERING_EVENTS = {
  /** Emitted at each session start: `SteeringReadyEvent`. */
  ready: "steering:ready",
  /** Every item's end state: `Ack`. */
  ack: "steering:ack",
  /** Every seam pass: `LoopCheckpoint`. */
  checkpoint: "steering:checkpoint",
  /** Emit to queue an item: `SteeringItemInput`. */
  inject: "steering:inject",
  /** Emitted when an `inject` event was refused: `SteeringRejectedEvent`. */
  rejected: "steering:rejected",
} as const;

/** The bridge of the current session, for extensions in the same process. */
export interface SteeringApi {
  sessionId: string;
  /** Throws SteeringInputError (with `field`) on bad input. */
  inject(input: SteeringItemInput): InjectResult;
  revoke(id: string): RevokeResult;
  pending(): SteeringItem[];
  status(): BridgeStatus;
  /** Rejects with UnavailableError on a pi without the cancel_tool_call patch feature. */
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

/** Payload types by channel. */
export interface SteeringEventPayloads {
  "steering:ready": SteeringReadyEvent;
  "steering:ack": Ack;
  "steering:checkpoint": LoopCheckpoint;
  "steering:inject": SteeringItemInput;
  "steering:rejected": SteeringRejectedEvent;
}
