import type {
  CheckpointEventResult,
  ExtensionContext,
  StreamAbortEvent,
  StreamTextEvent,
  StreamTextEventResult,
} from "@earendil-works/pi-coding-agent";
import { streamRetry } from "../../pi/stream-retry.ts";
import type { StreamHookInterrupt, StreamHookSource, StreamHost } from "../stream-hook.ts";
import { ResponseBoundary } from "./response-boundary.ts";

/**
 * pi with the pi-rails patch: each delta comes through `stream_text`, whose answer aborts the request and retries
 * in the same turn (the loop drops or keeps the partial, appends the retry, and applies the abort cap); `stream_abort`
 * says what the interrupt cost or that the cap dropped it; follow-ups go out at the loop seams the loop awaits.
 */
export function patchedStreamHost(hookOf: StreamHookSource): StreamHost {
  /** New responses are seen from inside the stream (message_start reaches extensions late). */
  const boundary = new ResponseBoundary();
  /** The interrupt this hook answered last, until its `stream_abort` reports it. */
  let pending: StreamHookInterrupt | undefined;
  /** The kept partial's message_end follows its `stream_abort`: it is not a response that ended. */
  let keptPartial = false;
  return {
    stream_text(event: StreamTextEvent, ctx: ExtensionContext): StreamTextEventResult | undefined {
      const hook = hookOf(ctx);
      if (!hook) return undefined;
      const fresh = event.accumulated.length === event.chunk.length;
      if (boundary.isNewResponse(event.attempt, event.contentIndex, fresh)) hook.onResponseStart?.(ctx);
      const source = event.source === "toolcall" ? "tool" : event.source;
      const toolCall = event.toolCall && { toolCall: { id: event.toolCall.id, name: event.toolCall.name } };
      const interrupt = hook.onDelta({ source, chunk: event.chunk, ...toolCall }, ctx);
      if (!interrupt) return undefined;
      pending = interrupt;
      const { customType, content, details, keepPartial, explanation } = interrupt;
      const options = { customType, details, ...(keepPartial ? { keepPartial } : {}) };
      return { abort: true, retry: streamRetry(content, explanation ? { ...options, explanation } : options) };
    },

    stream_abort(event: StreamAbortEvent, ctx: ExtensionContext) {
      const interrupt = pending;
      pending = undefined;
      keptPartial = event.keptPartial;
      // Another extension's abort (its own retry) is not ours to report.
      if (!interrupt || event.retry?.customType !== interrupt.customType || event.retry.content !== interrupt.content)
        return;
      const { consecutive } = event;
      const outcome = event.capReached
        ? ({ kind: "capped", interrupt, consecutive, turnEnded: true, usage: event.usage } as const)
        : ({ kind: "retried", interrupt, consecutive, usage: event.usage } as const);
      hookOf(ctx)?.onOutcome?.(outcome, ctx);
    },

    message_end({ message }, ctx) {
      if (message.role !== "assistant") return;
      if (keptPartial) {
        keptPartial = false;
        return;
      }
      hookOf(ctx)?.onResponseEnd?.({ stopReason: message.stopReason }, ctx);
    },

    // Follow-ups go out at the next loop seam, which the loop awaits: after the tools ran, or where the run would
    // otherwise end (the loop continues).
    checkpoint(event, ctx): CheckpointEventResult | undefined {
      if (event.kind !== "post_tool_dispatch" && event.kind !== "iteration_end") return undefined;
      const message = hookOf(ctx)?.takeFollowUp?.(ctx);
      if (!message) return undefined;
      return { messages: [{ ...message, display: false, role: "custom", timestamp: Date.now() }] };
    },
  };
}
