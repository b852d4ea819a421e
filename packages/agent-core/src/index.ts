/**
 * @pi-rails/agent-core: the pi agent loop with a per-delta stream hook (abort, inject, retry inside the run)
 * and a checkpoint at every loop seam, plus the typed logic behind those call sites.
 *
 * The loop itself (`Agent`, `agentLoop`, ...) is pi-agent-core 1.6.0 with the pi-rails patch applied; it is
 * bundled into this package at build time because a pnpm patch does not travel to npm.
 */
import {
  type CancelToolCallOptions,
  type CancelToolCallResult,
  Agent as PatchedAgent,
} from "@earendil-works/pi-agent-core";
import { describeCancelledCall } from "./tools/cancelled.ts";

export * from "@earendil-works/pi-agent-core";
export * from "./kit.ts";
export { type StreamAbortLike, showStreamAbortNotice, streamAbortNotice } from "./pi/stream-abort-notice.ts";

/**
 * The patched `Agent`. The patch carries no wording: its `cancelToolCall` needs the host's `describe`. This one
 * words what the model is told with `describeCancelledCall` unless the caller passes its own.
 */
export class Agent extends PatchedAgent {
  override cancelToolCall(callId: string, options: CancelToolCallOptions = {}): Promise<CancelToolCallResult> {
    return super.cancelToolCall(callId, { ...options, describe: options.describe ?? describeCancelledCall });
  }
}
