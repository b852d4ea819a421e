import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";
import type { SeamLog } from "../seams/seam-log.ts";
import type { SessionHost, SteeringSession } from "./delivery-core.ts";

/** The pi-rails patched pi: items wait for their loop seam (the seams' hooks below drain them). */
export const patchedHost = (): SessionHost => ({ seams: true });

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
