import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";
import { describeCancelledCall, hasPiPatchFeature } from "@pi-rails/agent-core/kit";
import { hasCancelApi } from "../bridge/cancel.ts";
import type { CancelBackend } from "../bridge/steering-bridge.ts";
import type { SeamLog } from "../seams/seam-log.ts";
import type { HostAdapter, SteeringSession } from "./delivery-core.ts";

/** The pi-rails patched pi: items wait for their loop seam, and the tool call running now can be cancelled. */
export const patchedHost: HostAdapter = (pi, notify) => {
  if (!hasPiPatchFeature("cancel_tool_call") || !hasCancelApi(pi)) {
    const missing = "this pi has loop seams but not the cancel_tool_call patch feature";
    notify("no-cancel", `${missing}: cancelling a running tool call is unavailable`, "info");
    return { seams: true };
  }
  const cancel: CancelBackend = {
    // The model is told of a cancelled call by an id it knows (call_… on Responses, none for Gemini's made-up ids).
    cancel: (callId, options) => pi.cancelToolCall(callId, { ...options, describe: describeCancelledCall }),
    inFlight: () => pi.getToolCallsInFlight(),
  };
  return { seams: true, cancel };
};

/**
 * The patched loop's hooks (they never fire on stock pi): each seam drains the queue into pi's `checkpoint` answer
 * (bridge items, then inbox notes, as `messages`); each pass is recorded with the bridge's own count of the inbox
 * notes in it, told to subscribers, and at loop_exit what is left is snapshotted into the session file.
 */
export function registerSeamHooks(pi: ExtensionAPI, session: () => SteeringSession | undefined, log: SeamLog): void {
  pi.on("checkpoint", async (event) => {
    const bridge = session()?.bridge;
    if (!bridge) return undefined;
    const { messages, skipToolDispatch, skipReason } = await bridge.drain(event.kind, event.iteration, event.toolCalls);
    if (messages.length === 0) return undefined;
    return { messages, skipToolDispatch, ...(skipReason !== undefined && { skipReason }) };
  });

  pi.on("loop_checkpoint", (event) => {
    const current = session();
    const { iteration, kind, delivered, dispatchSkipped } = event;
    const pass = { iteration, kind, delivered, dispatchSkipped };
    log.record(current ? current.bridge.observe(pass) : { ...pass, inboxDelivered: 0 });
    if (kind === "loop_exit") current?.persistSnapshot();
  });
}
