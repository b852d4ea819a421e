import type { ExtensionContext } from "@earendil-works/pi-coding-agent";
import { followUpMessage, interruptRetry, rulesOf } from "../delivery/injection.ts";
import { renderInterrupt } from "../delivery/templates.ts";
import type { DeltaInput, RuleMatch } from "../manager/ttsr-manager.ts";
import type { DeliveryCore, Host } from "./delivery.ts";

/** Said once when a session with rules runs on stock pi. */
export const STOCK_PI_NOTICE =
  "this pi has no stream_text hook (stock pi, without the pi-rails patch). An interrupting rule, in prose or in a " +
  "tool call's arguments, still stops the response and starts the run again with the rule; the cut-off response " +
  "shows while it streams and is cleared when it stops. Reminders on tool results work as usual.";

/** As the patched loop's cap: past this many interrupts in a row, a prose rule follows the message instead. */
export const MAX_CONSECUTIVE_INTERRUPTS = 3;

/**
 * Stock pi (no pi-rails patch): deltas are watched on `message_update`. A rule that interrupts, in prose or in a tool
 * call's streamed arguments, stops the run (`ctx.abort()`, before the call is dispatched), and once pi has settled
 * the rule goes in as a hidden message that starts the run again. The aborted message is replaced at `message_end`
 * by an empty one that ended normally (the screen drops the partial and shows no "Operation aborted"; its usage is
 * kept), and `context` keeps empty assistant messages out of every request. A response with a tool rule is replaced
 * so even when it completed before the abort took effect: its call is never dispatched. Past the cap of interrupts in
 * a row, a tool rule blocks its call at `tool_call` instead.
 */
export function stockHost(core: DeliveryCore): Host {
  const { manager, pi } = core;
  /** Tool calls to block at `tool_call` (past the cap of interrupts in a row), with the rules their arguments matched. */
  const blocked = new Map<string, RuleMatch[]>();
  /**
   * The rules of the response being aborted now, delivered at `agent_settled`: as an interrupt when the response
   * was aborted (or had a tool rule), as a follow-up when its text ended before the abort took effect (the rule
   * matched in its last delta).
   */
  let retrying: { rules: RuleMatch[]; completed: boolean } | undefined;
  let consecutive = 0;
  const onDelta = (ctx: ExtensionContext, delta: DeltaInput) => {
    const interrupt = core.check(ctx, delta);
    if (interrupt.length === 0) return;
    for (const m of interrupt) {
      if (m.source === "tool" && m.toolCallId) blocked.set(m.toolCallId, [...(blocked.get(m.toolCallId) ?? []), m]);
    }
    if (consecutive < MAX_CONSECUTIVE_INTERRUPTS) {
      retrying = { rules: interrupt, completed: false };
      consecutive++;
      ctx.abort();
    } else manager.queueProse(interrupt.filter((m) => m.source !== "tool"));
  };
  return {
    message_update(event, ctx) {
      // The rest of an aborted response is not read: it will not reach the model.
      if (!manager.active || retrying) return;
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

    message_end(message, ctx) {
      const { stopReason } = message;
      // A response stopped for a rule is replaced (below); one with a tool rule also when it completed before the
      // abort took effect, so that its call is never dispatched.
      const interrupted =
        retrying !== undefined && (stopReason === "aborted" || retrying.rules.some((m) => m.source === "tool"));
      if (retrying && !interrupted) retrying.completed = true;
      const failed = interrupted || stopReason === "aborted" || stopReason === "error";
      if (!failed) {
        core.settle();
        consecutive = 0;
      }
      const due = manager.onMessageEnd(failed ? "aborted" : stopReason);
      if (failed) blocked.clear();
      if (interrupted) {
        // pi-ai's "Request was aborted" goes too: `--mode json` readers and the session file see a response that
        // ended with nothing, not an error.
        const { errorMessage: _aborted, ...kept } = message;
        return { ...kept, content: [], stopReason: "stop" };
      }
      if (due.length === 0 || retrying) return undefined;
      pi.sendMessage(followUpMessage(due), { deliverAs: "followUp", triggerTurn: true });
      core.deliver(ctx, due, "follow-up");
      return undefined;
    },

    context(event) {
      const kept = event.messages.filter((m) => m.role !== "assistant" || m.content.length > 0);
      return kept.length === event.messages.length ? undefined : { messages: kept };
    },

    agent_settled(_event, ctx) {
      const pending = retrying;
      retrying = undefined;
      if (!pending) return;
      const { rules, completed } = pending;
      if (completed) {
        // The model's text reached the session whole: the rule follows it, as a reminder.
        pi.sendMessage(followUpMessage(rules), { triggerTurn: true });
        core.deliver(ctx, rules, "follow-up");
        return;
      }
      const { customType, content, details } = interruptRetry(rules, manager.settings);
      core.deliver(ctx, rules, "interrupt");
      if (ctx.hasUI)
        ctx.ui.notify(
          `pi-ttsr: interrupted the response (${rulesOf(rules)
            .map((r) => r.name)
            .join(", ")}); retrying with the rule`,
          "info",
        );
      pi.sendMessage({ customType, content, display: false, details }, { triggerTurn: true });
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
