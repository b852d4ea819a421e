import { emitEvent, showStreamAbortNotice, TTSR_COST_EVENT, writeSessionEntry } from "@pi-rails/agent-core/kit";
import { followUpMessage, INJECTION_ENTRY, INJECTION_MESSAGE_TYPE, interruptRetry } from "../delivery/injection.ts";
import {
  addInterrupt,
  COST_ENTRY,
  interruptCostPayload,
  interruptCostStatus,
  readAttemptUsage,
} from "../delivery/interrupt-cost.ts";
import { ResponseBoundary } from "../manager/response-boundary.ts";
import type { DeliveryCore, Host } from "./delivery.ts";

/**
 * pi with the pi-rails patch: each delta comes through `stream_text`, whose answer aborts the request and retries
 * with the rules injected, in the same turn; queued prose rules go out at the loop seams the loop awaits; and
 * `stream_abort` says what each interrupt cost and which retries the loop's abort cap dropped.
 */
export function patchedHost(core: DeliveryCore): Host {
  const { manager, pi } = core;
  /** New responses are seen from inside the stream (message_start reaches extensions late). */
  const boundary = new ResponseBoundary();
  return {
    stream_text(event, ctx) {
      const fresh = event.accumulated.length === event.chunk.length;
      if (boundary.isNewResponse(event.attempt, event.contentIndex, fresh)) manager.resetStreams();
      if (!manager.active) return undefined;
      const source = event.source === "toolcall" ? "tool" : event.source;
      const toolCall = event.toolCall && { toolCall: { id: event.toolCall.id, name: event.toolCall.name } };
      const interrupt = core.check(ctx, { source, chunk: event.chunk, ...toolCall });
      if (interrupt.length === 0) return undefined;
      const retry = interruptRetry(interrupt, manager.settings);
      core.deliver(ctx, interrupt, "interrupt");
      return { abort: true, retry };
    },

    // Queued prose rules (and what only the end of the stream settled) go out at the next loop seam, which the loop
    // awaits: after the tools ran, or where the run would otherwise end (the loop continues).
    checkpoint(event, ctx) {
      if (!manager.active || (event.kind !== "post_tool_dispatch" && event.kind !== "iteration_end")) return;
      core.settle();
      const due = manager.takeProseQueue();
      if (due.length === 0) return;
      core.deliver(ctx, due, "follow-up");
      return { messages: [{ ...followUpMessage(due), role: "custom", timestamp: Date.now() }] };
    },

    message_end({ stopReason }) {
      if (stopReason === "aborted" || stopReason === "error") manager.dropToolBuckets();
      return undefined;
    },

    stream_abort(event, ctx) {
      if (event.retry?.customType !== INJECTION_MESSAGE_TYPE) return;
      // The patched TUI drops the interrupted partial without a word of its own: the rules' names are ours to say.
      showStreamAbortNotice(ctx, event);
      // Each interrupt was billed: count what the aborted attempt cost (when the patch reports its usage).
      const usage = readAttemptUsage(event.usage);
      core.cost = addInterrupt(core.cost, usage);
      if (usage) {
        writeSessionEntry(pi, COST_ENTRY, { usage });
        const payload = interruptCostPayload(core.cost);
        if (payload) emitEvent(pi.events, TTSR_COST_EVENT, payload);
        if (ctx.hasUI && payload) {
          ctx.ui.setStatus("pi-ttsr", interruptCostStatus(core.cost));
          ctx.ui.notify(`pi-ttsr: ${payload.text}`, "info");
        }
      }
      // At the abort cap the loop ends the turn without sending the retry: those rules were not delivered.
      const rules = (event.retry.details as { rules?: unknown } | undefined)?.rules;
      if (!event.capReached || !Array.isArray(rules)) return;
      const names = rules.filter((r): r is string => typeof r === "string");
      manager.revokeInjected(names);
      writeSessionEntry(pi, INJECTION_ENTRY, { rules: names, kind: "revoked", turn: manager.completedTurns });
    },
  };
}
