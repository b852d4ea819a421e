import type { ExtensionContext } from "@earendil-works/pi-coding-agent";
import { followUpMessage, rulesOf } from "../delivery/injection.ts";
import { renderInterrupt } from "../delivery/templates.ts";
import type { DeltaInput, RuleMatch } from "../manager/ttsr-manager.ts";
import type { DeliveryCore, Host } from "./delivery.ts";

/** Said once when a session with rules runs on stock pi. */
export const STOCK_PI_NOTICE =
  "this pi has no stream_text hook (stock pi, without the pi-rails patch). Degraded: prose rules cannot " +
  "interrupt a response and are delivered as a hidden follow-up after it; interrupting tool rules block the tool " +
  "call before it runs; reminders on tool results work as usual.";

/**
 * Stock pi (no pi-rails patch): deltas are watched on `message_update` and nothing can abort the request. A prose
 * rule that would interrupt follows the message instead (queued from `message_end`: best effort, stock pi has no
 * seam the loop waits at); an interrupting tool rule blocks its call at `tool_call`, before the tool runs.
 */
export function stockHost(core: DeliveryCore): Host {
  const { manager } = core;
  /** Tool calls to block at `tool_call`, with the rules that matched their arguments. */
  const blocked = new Map<string, RuleMatch[]>();
  const onDelta = (ctx: ExtensionContext, delta: DeltaInput) => {
    const interrupt = core.check(ctx, delta);
    manager.queueProse(interrupt.filter((m) => m.source !== "tool"));
    for (const m of interrupt) {
      if (m.source === "tool" && m.toolCallId) blocked.set(m.toolCallId, [...(blocked.get(m.toolCallId) ?? []), m]);
    }
  };
  return {
    message_update(event, ctx) {
      if (!manager.active) return;
      const e = event.assistantMessageEvent;
      if (e.type === "text_delta") onDelta(ctx, { source: "text", chunk: e.delta });
      else if (e.type === "thinking_delta") onDelta(ctx, { source: "thinking", chunk: e.delta });
      else if (e.type === "toolcall_delta") {
        const block = event.message.role === "assistant" ? event.message.content[e.contentIndex] : undefined;
        const id = block?.type === "toolCall" ? block.id : `index-${e.contentIndex}`;
        const name = block?.type === "toolCall" ? block.name : "";
        onDelta(ctx, { source: "tool", chunk: e.delta, toolCall: { id, name } });
      }
    },

    message_start() {
      manager.resetStreams();
    },

    message_end({ stopReason }, ctx) {
      const failed = stopReason === "aborted" || stopReason === "error";
      if (!failed) core.settle();
      const due = manager.onMessageEnd(stopReason);
      if (failed) blocked.clear();
      if (due.length === 0) return;
      core.pi.sendMessage(followUpMessage(due), { deliverAs: "followUp", triggerTurn: true });
      core.deliver(ctx, due, "follow-up");
    },

    tool_call(event, ctx) {
      const matches = blocked.get(event.toolCallId);
      if (!matches) return;
      blocked.delete(event.toolCallId);
      core.deliver(ctx, matches, "tool-block", event.toolCallId);
      return { block: true, reason: renderInterrupt(rulesOf(matches), "keep") };
    },
  };
}
