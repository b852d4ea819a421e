import {
  createBashToolDefinition,
  createEditToolDefinition,
  createFindToolDefinition,
  createGrepToolDefinition,
  createLsToolDefinition,
  createReadToolDefinition,
  createWriteToolDefinition,
  type ExtensionAPI,
} from "@earendil-works/pi-coding-agent";
import {
  emitEvent,
  registerCancellableBuiltInTools,
  registerCheckpoints,
  SessionNotices,
} from "@pi-rails/agent-core/kit";
import type { CancelBackend } from "./bridge/steering-bridge.ts";
import { STEERING_INJECT_EVENT, STEERING_REJECTED_EVENT } from "./events.ts";
import { SteeringSession } from "./host/delivery-core.ts";
import { registerCommands } from "./pi/commands.ts";
import { isAuditMessage } from "./queue/render.ts";
import type { SteeringItemInput } from "./queue/types.ts";
import { SeamLog } from "./seams/seam-log.ts";

/**
 * steering-bridge for pi: a per-session steering queue drained at the loop seams (agent-core's checkpoints: every
 * seam of the patched pi, or those stock pi's public events stand in for), a JSON-RPC control socket (`pi-steer`),
 * tool-call cancel, `/steer` and `/seams`, and a `pi.events` API for other extensions.
 */
export default function steeringBridge(pi: ExtensionAPI): void {
  const log = new SeamLog();
  const notices = new SessionNotices("steering-bridge");
  let session: SteeringSession | undefined;
  const current = () => session;
  const cancel = cancellableTools(pi);
  // Registered first: the host is chosen at session start before the session below is built, a seam's messages are
  // confirmed before a run ends or the session closes.
  const checkpoints = registerCheckpoints(pi, {
    checkpoint: (request) => session?.bridge.checkpoint(request),
    // Each pass recorded with the bridge's own count of the inbox notes in it; at loop_exit what is left is
    // snapshotted into the session file.
    pass: (pass) => {
      log.record(session ? session.bridge.observe(pass) : { ...pass, inboxDelivered: 0 });
      if (pass.kind === "loop_exit") session?.persistSnapshot();
    },
  });

  pi.on("session_start", async (_event, ctx) => {
    // pi sends session_shutdown before a switch; a session still here is no longer the one appended to.
    await end(false);
    log.clear();
    session = new SteeringSession(pi, ctx, checkpoints.host(), notices, cancel);
    await session.start();
  });
  pi.on("session_shutdown", () => end(true));

  async function end(persistLeftovers: boolean): Promise<void> {
    const ending = session;
    session = undefined;
    await ending?.close(persistLeftovers);
  }

  pi.on("agent_start", () => session?.bridge.setRunning(true));
  // A run is over once pi has settled it (after agent_end come retries, compaction and agent_before_settle).
  pi.on("agent_settled", () => session?.bridge.setRunning(false));
  pi.on("tool_execution_start", (event) => session?.bridge.tools.start(event.toolCallId, event.toolName, event.args));
  pi.on("tool_execution_end", (event) => session?.bridge.tools.end(event.toolCallId));

  // Audit records that older versions wrote as messages stay in the session file but never reach the model.
  pi.on("context", (event) => {
    if (!event.messages.some(isAuditMessage)) return undefined;
    return { messages: event.messages.filter((message) => !isAuditMessage(message)) };
  });

  pi.events.on(STEERING_INJECT_EVENT, (data) => {
    try {
      if (!session) throw new Error("no active session");
      const input = data as SteeringItemInput;
      session.bridge.inject({ ...input, source: input.source ?? "extension" });
    } catch (error) {
      emitEvent(pi.events, STEERING_REJECTED_EVENT, { input: data, error: (error as Error).message });
    }
  });

  registerCommands(pi, current, log);
}

/**
 * Cancel of one running call, the same on both hosts: pi's built-in tools, registered again through agent-core's
 * registry (pi's own factories, from this extension's import of pi).
 */
function cancellableTools(pi: ExtensionAPI): CancelBackend {
  const registry = registerCancellableBuiltInTools(pi, {
    read: createReadToolDefinition,
    bash: createBashToolDefinition,
    edit: createEditToolDefinition,
    write: createWriteToolDefinition,
    grep: createGrepToolDefinition,
    find: createFindToolDefinition,
    ls: createLsToolDefinition,
  });
  return { cancel: (callId, options) => registry.cancel(callId, options), inFlight: () => registry.inFlight() };
}
