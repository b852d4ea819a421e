import type { Usage } from "@earendil-works/pi-ai";
import type {
  ContextEventResult,
  ExtensionAPI,
  MessageEndEventResult,
  MessageUpdateEvent,
  ToolCallEventResult,
} from "@earendil-works/pi-coding-agent";
import type { StreamHookDelta, StreamHookInterrupt, StreamHookSource, StreamHost } from "../stream-hook.ts";

/** As the patched loop's default cap: past this many interrupts in a row, the response runs on. */
export const MAX_CONSECUTIVE_STREAM_ABORTS = 3;

type AssistantMessage = Extract<MessageUpdateEvent["message"], { role: "assistant" }>;

/** The delta a `message_update` carries, or undefined for the events that carry none (start, end, done). */
export function deltaOf(
  event: Pick<MessageUpdateEvent, "message" | "assistantMessageEvent">,
): StreamHookDelta | undefined {
  const e = event.assistantMessageEvent;
  if (e.type === "text_delta") return { source: "text", chunk: e.delta };
  if (e.type === "thinking_delta") return { source: "thinking", chunk: e.delta };
  if (e.type !== "toolcall_delta") return undefined;
  const block = event.message.role === "assistant" ? event.message.content[e.contentIndex] : undefined;
  const id = block?.type === "toolCall" ? block.id : `index-${e.contentIndex}`;
  const name = block?.type === "toolCall" ? block.name : "";
  return { source: "tool", chunk: e.delta, toolCall: { id, name } };
}

/**
 * What an interrupted response is replaced by at `message_end`: a message that ended normally (the screen drops
 * the partial and shows no "Operation aborted"; pi-ai's "Request was aborted" goes too, and the usage stays),
 * with the partial's prose when the interrupt keeps it, else empty (and `context` keeps it out of every request).
 */
export function interruptedReplacement(message: AssistantMessage, keepPartial: boolean): AssistantMessage {
  const { errorMessage: _aborted, ...kept } = message;
  const content = keepPartial ? message.content.filter((block) => block.type === "text") : [];
  return { ...kept, content, stopReason: "stop" };
}

/**
 * Stock pi 1.6 (no patch), on public events only: deltas are read on `message_update`; an interrupt stops the run
 * (`ctx.abort()`, before a streamed tool call is dispatched), the aborted message is replaced at `message_end`,
 * `context` keeps empty assistant messages out of every request, and once pi has settled the retry goes in as a
 * hidden message that starts the run again. A response is replaced even when it completed before the abort took
 * effect, so a violating answer never stays and its tool calls never run. Past the cap of interrupts in a row the response runs on,
 * and the tool calls those interrupts were about are blocked at `tool_call`.
 */
export function stockStreamHost(pi: ExtensionAPI, hookOf: StreamHookSource): StreamHost {
  /** Tool calls to block at `tool_call` (past the cap), with the interrupts about each. */
  const blocked = new Map<string, StreamHookInterrupt[]>();
  /** The interrupt stopping the response now, until pi settles and its retry goes in. */
  let pending: { interrupt: StreamHookInterrupt; usage?: Usage; failure?: unknown } | undefined;
  let consecutive = 0;
  /** The retry was sent: the run it starts goes on counting interrupts in a row; any other run starts at zero. */
  let retrying = false;
  return {
    agent_start() {
      if (!retrying) consecutive = 0;
      retrying = false;
    },

    message_update(event, ctx) {
      // The rest of an aborted response is not read: it will not reach the model.
      if (pending) return;
      const hook = hookOf(ctx);
      const delta = hook && deltaOf(event);
      const interrupt = delta && hook.onDelta(delta, ctx);
      if (!interrupt) return;
      if (consecutive < MAX_CONSECUTIVE_STREAM_ABORTS) {
        pending = { interrupt };
        consecutive++;
        ctx.abort();
        return;
      }
      const id = delta.toolCall?.id;
      if (id) blocked.set(id, [...(blocked.get(id) ?? []), interrupt]);
      hook.onOutcome?.({ kind: "capped", interrupt, consecutive, turnEnded: false }, ctx);
    },

    message_start({ message }, ctx) {
      if (message.role !== "assistant") return;
      // Blocks are for the calls of the response that was capped; one pi never dispatched (an unknown tool, invalid
      // arguments) must not block a later call that reuses its id.
      blocked.clear();
      hookOf(ctx)?.onResponseStart?.(ctx);
    },

    message_end({ message }, ctx): MessageEndEventResult | undefined {
      if (message.role !== "assistant") return undefined;
      const { stopReason } = message;
      const failed = pending !== undefined || stopReason === "aborted" || stopReason === "error";
      if (!failed) consecutive = 0;
      else blocked.clear();
      const hook = hookOf(ctx);
      // Stopped for an interrupt, or read whole before the abort took effect (pi may have read the rest of the
      // answer already): either way it is replaced, as the patched loop drops it, and a tool call in it never runs.
      if (pending) {
        // The stopped attempt's cost: a turn pi starts afterwards for a message waiting in its queue is aborted before
        // any request (its usage is zero), and is emptied too.
        pending.usage ??= message.usage;
        const replacement = interruptedReplacement(message, pending.interrupt.keepPartial === true);
        // Replaced whatever the hook does: should it throw, pi hears of it once the retry went out (agent_settled).
        try {
          hook?.onResponseEnd?.({ stopReason: "aborted" }, ctx);
        } catch (error) {
          pending.failure ??= error;
        }
        return { message: replacement };
      }
      hook?.onResponseEnd?.({ stopReason }, ctx);
      if (failed) return undefined;
      const followUp = hook?.takeFollowUp?.(ctx);
      if (followUp) pi.sendMessage({ ...followUp, display: false }, { deliverAs: "followUp", triggerTurn: true });
      return undefined;
    },

    context(event): ContextEventResult | undefined {
      const kept = event.messages.filter((m) => m.role !== "assistant" || m.content.length > 0);
      return kept.length === event.messages.length ? undefined : { messages: kept };
    },

    agent_settled(_event, ctx) {
      const settled = pending;
      pending = undefined;
      const hook = hookOf(ctx);
      if (!settled || !hook) return;
      const { interrupt, usage } = settled;
      // The retry first: a hook that throws (pi reports it) must not leave the answer stopped and empty.
      const { customType, content, details } = interrupt;
      retrying = true;
      pi.sendMessage({ customType, content, display: false, details }, { triggerTurn: true });
      hook.onOutcome?.({ kind: "retried", interrupt, consecutive, ...(usage ? { usage } : {}) }, ctx);
      if (settled.failure !== undefined) throw settled.failure;
    },

    tool_call(event, ctx): ToolCallEventResult | undefined {
      const interrupts = blocked.get(event.toolCallId);
      if (!interrupts) return undefined;
      blocked.delete(event.toolCallId);
      hookOf(ctx)?.onOutcome?.({ kind: "blocked", interrupts, toolCallId: event.toolCallId }, ctx);
      return { block: true, reason: interrupts.map((i) => i.blockReason ?? i.content).join("\n\n") };
    },
  };
}
