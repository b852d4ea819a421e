import type { ExtensionAPI, ExtensionContext } from "@mariozechner/pi-coding-agent";
import { describeCancelledCall, hasPiPatchFeature, NoticeBoard } from "@pi-rails/agent-core/kit";
import { hasCancelApi } from "./bridge/cancel.ts";
import { type AgentMessage, SteeringBridge } from "./bridge/steering-bridge.ts";
import { ensurePrivateDir, resolveAgentDir, steeringDir } from "./endpoint/paths.ts";
import { type Endpoint, startEndpoint } from "./endpoint/server.ts";
import { STEERING_EVENTS, type SteeringApi } from "./events.ts";
import { findQueueSnapshot, QUEUE_SNAPSHOT_TYPE, type QueueSnapshot } from "./pi/snapshot.ts";
import { parseCancelCommand, parseSteerCommand } from "./pi/steer-command.ts";
import { isAuditMessage, renderItem, STEERING_AUDIT_TYPE } from "./queue/render.ts";
import type { SteeringItem } from "./queue/types.ts";
import { formatSeamLog, SeamLog } from "./seams/seam-log.ts";
import { openSessionStore, type SessionStore } from "./store/session-store.ts";

const CANCEL_FEATURE = "cancel_tool_call";

/**
 * steering-bridge for pi: a per-session steering queue drained at the loop seams of the patched pi, a JSON-RPC
 * control socket (`pi-steer`), tool-call cancel, `/steer` and `/seams`, and a `pi.events` API for other extensions.
 * On stock pi (no seams) items go to pi's own steer / follow-up queue and the extension says once what is missing.
 */
export default function steeringBridge(pi: ExtensionAPI): void {
  const log = new SeamLog();
  const notices = new NoticeBoard("steering-bridge");
  let bridge: SteeringBridge | undefined;
  let endpoint: Endpoint | undefined;
  let ctxRef: ExtensionContext | undefined;
  let store: SessionStore | undefined;
  /** Ids of the last persisted snapshot ("" for an empty one; undefined when none was written or read). */
  let persistedIds: string | undefined;
  const cleanups: (() => void)[] = [];

  const updateFooter = () => {
    if (!ctxRef?.hasUI || !bridge) return;
    const n = bridge.queue.size;
    try {
      ctxRef.ui.setStatus("steering", n > 0 ? `steer: ${n} pending` : undefined);
    } catch {
      // A replaced session's context may refuse; the next session_start sets a fresh one.
    }
  };

  const persist = (items: SteeringItem[]) => {
    const ids = items.map((item) => item.id).join(",");
    // Nothing to say when the snapshot would repeat the last one (or when there never was anything to carry).
    if (ids === (persistedIds ?? "")) return;
    const snapshot: QueueSnapshot = { version: 1, items };
    pi.appendEntry(QUEUE_SNAPSHOT_TYPE, snapshot);
    persistedIds = ids;
  };

  /** End the current session's bridge; `persistLeftovers` only while its session is still the one appended to. */
  const shutdown = async (persistLeftovers: boolean) => {
    const current = bridge;
    bridge = undefined;
    if (current && persistLeftovers) {
      // Leftovers at shutdown: audit ones are written now, discard ones dropped, the rest persisted for a resume.
      // Settled before the listeners go, so producers and subscribers still hear these acks.
      const { audited, carried } = current.queue.settleForShutdown();
      for (const item of audited) pi.appendEntry(STEERING_AUDIT_TYPE, { ...item, seam: "shutdown" });
      persist(carried);
    }
    for (const cleanup of cleanups.splice(0)) cleanup();
    await endpoint?.close();
    endpoint = undefined;
    current?.dispose();
    if (store?.owned) store.close();
    store = undefined;
  };

  pi.on("session_start", async (_event, ctx) => {
    // pi sends session_shutdown before a switch; a bridge still here belongs to a session no longer appended to.
    await shutdown(false);
    log.clear();
    notices.reset();
    ctxRef = ctx;
    const seams = hasPiPatchFeature("checkpoint") && hasPiPatchFeature("loop_checkpoint");
    const current = new SteeringBridge({ sessionId: ctx.sessionManager.getSessionId(), cwd: ctx.cwd, seams });
    bridge = current;
    if (hasPiPatchFeature(CANCEL_FEATURE) && hasCancelApi(pi)) {
      const api = pi;
      current.setCancelBackend({
        // The model is told of a cancelled call by an id it knows (call_… on Responses, none for Gemini's made-up ids).
        cancel: (callId, options) => api.cancelToolCall(callId, { ...options, describe: describeCancelledCall }),
        inFlight: () => api.getToolCallsInFlight(),
      });
    }
    if (!seams) {
      current.setHandoff((items) => handOffToPi(pi, items, current.running));
      notices.once(
        ctx,
        "stock-pi",
        "this pi has no loop seams (stock pi, without the pi-rails patch): steering items go to pi's own steer/follow-up queue (no seam choice, no tool-batch skip, no dedupe or TTL once handed over), and tool-call cancel is unavailable",
      );
    } else if (!hasPiPatchFeature(CANCEL_FEATURE)) {
      notices.once(
        ctx,
        "no-cancel",
        "this pi has loop seams but not the cancel_tool_call patch feature: cancelling a running tool call is unavailable",
        "info",
      );
    }

    current.setAuditSink((items, seam, iteration) => {
      // A custom entry, not a message: pi builds no model request (chat, compaction, branch summary) from it.
      for (const item of items) {
        pi.appendEntry(STEERING_AUDIT_TYPE, { ...renderItem(item, seam, iteration).details, content: item.content });
      }
    });

    // The session's journal: accepted items are on disk before they are acknowledged, settled ids outlive the
    // process; only the process holding the session's lock restores and delivers.
    const dir = steeringDir(resolveAgentDir());
    try {
      ensurePrivateDir(dir);
      store = openSessionStore(dir, current.sessionId);
    } catch (error) {
      notices.once(ctx, "journal", `steering items are not persisted for this session: ${(error as Error).message}`);
    }
    const opened = store;
    if (opened && !opened.owned) {
      const owner = opened.owner.pid > 0 ? `pi process ${opened.owner.pid}` : "another pi process";
      const why = `session ${current.sessionId} is steered by ${owner}`;
      cleanups.push(
        current.queue.onAccept(() => {
          throw new Error(`${why}; queue items there (this process does not deliver them)`);
        }),
      );
      notices.once(ctx, "taken", `steering is off in this process: ${why}`);
    } else {
      if (opened?.owned) {
        cleanups.push(
          current.queue.onAccept((item) => opened.journal.accept(item)),
          current.onAck((ack) => {
            try {
              opened.journal.settle(ack);
            } catch {
              // The ack itself stands; a lost settle line means a later retry is not recognised as one.
            }
          }),
        );
        current.queue.rememberSettled(opened.state.settled);
        current.queue.restore(opened.state.pending);
      }
      // Snapshots in the session file (written by earlier versions too): what the journal does not know yet.
      const snapshot = findQueueSnapshot(ctx.sessionManager.getBranch());
      persistedIds = snapshot?.items.map((item) => item.id).join(",");
      if (snapshot) {
        for (const item of current.queue.restore(snapshot.items)) {
          if (opened?.owned) opened.journal.accept(item);
        }
      }
    }

    cleanups.push(
      current.onAck((ack) => {
        pi.events.emit(STEERING_EVENTS.ack, ack);
        updateFooter();
      }),
      current.onCheckpoint((checkpoint) => pi.events.emit(STEERING_EVENTS.checkpoint, checkpoint)),
    );

    if (!opened || opened.owned) {
      try {
        endpoint = await startEndpoint({ bridge: current, agentDir: resolveAgentDir() });
      } catch (error) {
        notices.once(ctx, "endpoint", `the steering socket is off for this session: ${(error as Error).message}`);
      }
    }
    const api = createApi(current, () => endpoint);
    pi.events.emit(STEERING_EVENTS.ready, { api });
    current.flushToHandoff();
    updateFooter();
  });

  pi.on("session_shutdown", async () => {
    await shutdown(true);
  });

  pi.on("agent_start", () => bridge?.setRunning(true));
  pi.on("agent_end", () => bridge?.setRunning(false));
  pi.on("tool_execution_start", (event) =>
    bridge?.tools.start(event.toolCallId, event.toolName, undefined, Date.now(), event.args),
  );
  pi.on("tool_execution_end", (event) => bridge?.tools.end(event.toolCallId));

  pi.on("checkpoint", async (event) => {
    if (!bridge) return undefined;
    const result = await bridge.drain(event.kind, event.iteration, event.toolCalls);
    if (result.messages.length === 0 && result.inboxMessages.length === 0) return undefined;
    return result as { messages: AgentMessage[]; inboxMessages: AgentMessage[]; skipToolDispatch: boolean };
  });

  pi.on("loop_checkpoint", (event) => {
    const checkpoint = {
      iteration: event.iteration,
      kind: event.kind,
      delivered: event.delivered,
      inboxDelivered: event.inboxDelivered,
      dispatchSkipped: event.dispatchSkipped,
    };
    log.record(checkpoint);
    bridge?.observe(checkpoint);
    if (event.kind === "loop_exit" && bridge) persist(bridge.pending());
  });

  // Audit records stay in the session file but never reach the model, on this run or any later one.
  pi.on("context", (event) => {
    if (!event.messages.some(isAuditMessage)) return undefined;
    return { messages: event.messages.filter((message) => !isAuditMessage(message)) };
  });

  pi.events.on(STEERING_EVENTS.inject, (data) => {
    if (!bridge) {
      pi.events.emit(STEERING_EVENTS.rejected, { input: data, error: "no active session" });
      return;
    }
    try {
      const input = data as Parameters<SteeringBridge["inject"]>[0];
      bridge.inject({ ...input, source: input.source ?? "extension" });
      updateFooter();
    } catch (error) {
      pi.events.emit(STEERING_EVENTS.rejected, { input: data, error: (error as Error).message });
    }
  });

  pi.registerCommand("steer", {
    description: "Queue steering for the running agent: /steer [interrupt|finish|audit|remind|note] <text>",
    handler: async (args, ctx) => {
      const say = replyTo(ctx);
      if (!bridge) return say("steering-bridge: no active session", "error");
      try {
        const input = parseSteerCommand(args);
        const result = bridge.inject({ ...input, source: "tui" });
        updateFooter();
        say(
          `steering: queued ${result.id} (${input.mode ?? "inbox note"})${result.handedToPi ? ", handed to pi" : ""}`,
        );
      } catch (error) {
        say(`steering: ${(error as Error).message}`, "error");
      }
    },
  });

  pi.registerCommand("cancel-tool", {
    description: "Cancel the running tool call (steering-bridge): /cancel-tool [callId] [reason]",
    handler: async (args, ctx) => {
      const say = replyTo(ctx);
      if (!bridge) return say("steering-bridge: no active session", "error");
      const cancel = parseCancelCommand(args);
      const calls = bridge.status().toolCallsInFlight;
      const callId = cancel.callId ?? (calls.length === 1 ? calls[0]!.callId : undefined);
      if (!callId) {
        const listed = calls.map((c) => `${c.callId} (${c.tool})`).join(", ");
        return say(
          calls.length === 0
            ? "steering: no tool call is running"
            : `steering: several tool calls are running, name one: ${listed}`,
          "error",
        );
      }
      try {
        const result = await bridge.cancelToolCall(callId, cancel.reason ? { reason: cancel.reason } : {});
        return say(`steering: ${result.status}: ${result.callId}${result.tool ? ` (${result.tool})` : ""}`);
      } catch (error) {
        return say(`steering: ${(error as Error).message}`, "error");
      }
    },
  });

  pi.registerCommand("seams", {
    description: "Show the latest loop seam passes and pending steering items (steering-bridge)",
    handler: async (_args, ctx) => {
      const lines = hasPiPatchFeature("loop_checkpoint")
        ? [formatSeamLog(log.latest(20))]
        : ["Loop seams are unavailable: this pi is not patched."];
      const pending = bridge?.pending() ?? [];
      if (pending.length > 0)
        lines.push(`${pending.length} steering item(s) pending: ${pending.map((i) => i.id).join(", ")}`);
      const text = lines.join("\n");
      if (ctx.hasUI) ctx.ui.notify(text, "info");
      else process.stdout.write(`${text}\n`);
    },
  });

  function createApi(current: SteeringBridge, getEndpoint: () => Endpoint | undefined): SteeringApi {
    return {
      sessionId: current.sessionId,
      inject: (input) => {
        const result = current.inject(input);
        updateFooter();
        return result;
      },
      revoke: (id) => current.revoke(id),
      pending: () => current.pending(),
      status: () => current.status(),
      cancelToolCall: (callId, options) => current.cancelToolCall(callId, options),
      socketPath: () => getEndpoint()?.socketPath,
    };
  }
}

/** Answer a command: a TUI notification, or a line on stdout in print / RPC-less modes. */
function replyTo(ctx: { hasUI: boolean; ui: { notify(message: string, type?: "info" | "warning" | "error"): void } }) {
  return (text: string, level: "info" | "error" = "info") => {
    if (ctx.hasUI) ctx.ui.notify(text, level);
    else process.stdout.write(`${text}\n`);
  };
}

/** Stock pi: pi's own queue. interrupt_immediate -> steer, finish_step -> follow-up, idle -> next turn; audit -> entry. */
function handOffToPi(pi: ExtensionAPI, items: SteeringItem[], running: boolean): void {
  for (const item of items) {
    const message = renderItem(item, "pi_queue", 0);
    if (item.mode === "audit_only") {
      pi.appendEntry(STEERING_AUDIT_TYPE, { ...message.details, content: item.content });
      continue;
    }
    const deliverAs = !running ? "nextTurn" : item.mode === "interrupt_immediate" ? "steer" : "followUp";
    pi.sendMessage(
      { customType: message.customType, content: message.content, display: message.display, details: message.details },
      { deliverAs },
    );
  }
}
