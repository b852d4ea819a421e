import type { BoundaryState, ExtensionAPI, ExtensionContext } from "@earendil-works/pi-coding-agent";
import type { LoopSeam } from "../../seams/catalog.ts";
import type { CheckpointEvents, CheckpointHandler, SeamAnswer, SeamRequest, SeamToolCall } from "../checkpoints.ts";
import { boundaryDraft, committedAfter, toolCallsOf } from "./boundary.ts";

/**
 * The seams pi 1.6's public events stand in for: iteration_start only for a run's first iteration
 * (`before_agent_start`); pre_compact / post_compact have no actionable event on stock pi.
 */
export const STOCK_SEAMS: readonly LoopSeam[] = [
  "iteration_start",
  "pre_tool_dispatch",
  "post_tool_dispatch",
  "iteration_end",
  "loop_exit",
];

/** One seam's answer whose messages wait for pi's boundary, or for pi to commit them there. */
interface Pending {
  request: SeamRequest;
  answer: SeamAnswer | undefined;
  dispatchSkipped: boolean;
}

/**
 * Stock pi 1.6, public events only:
 * - iteration_start of a run's first iteration at `before_agent_start`: the messages go to pi's next-turn queue,
 *   which that very run takes (after its starting message) and persists with it; so what waits between runs stays
 *   with the handler until a run really starts, not in pi's memory, which exit, /new and /resume drop;
 * - pre_tool_dispatch at the first `tool_call` of an assistant message (pi preflights a message's calls before any
 *   runs): when the handler skips, every call of that message is blocked with the loop's placeholder text, which pi
 *   sends as each call's error result (valid on every wire format);
 * - post_tool_dispatch (a turn with tool calls) or iteration_end (one without) at `turn_end`, and iteration_end
 *   again at `agent_before_settle`: the messages, with those of the turn's pre_tool_dispatch first, go in as
 *   `custom_message` boundary entries with `continue: true` (after the turn's tool results, before the next
 *   request). Not after an aborted or failed response: pi ends the run there (they are dropped, `settled(false)`);
 * - loop_exit at `agent_settled` (messages there go to pi's next turn).
 * pi drops a boundary's entries when any extension's proposal is invalid; the next event looks for them in the
 * session branch and tells the handler (`settled`) and the pass (`delivered`) what pi kept.
 */
export function stockCheckpointHost(pi: ExtensionAPI, handler: CheckpointHandler): CheckpointEvents {
  let iteration = 0;
  let calls: SeamToolCall[] = [];
  /** The pre_tool_dispatch of the last assistant message, once its first call asked. */
  let preDispatch: Pending | undefined;
  /** What the handler threw at pre_tool_dispatch, for pi to report at agent_end (where it reports, not blocks). */
  let failure: unknown;
  /** Proposed at a boundary, after the leaf `after`: confirmed (or not) at the next event. */
  let proposed: { after: string | null; seams: Pending[] } | undefined;
  /** Handed to the run starting now, after the leaf `after`: confirmed once its first response is in. */
  let starting: { after: string | null; seams: Pending[] } | undefined;

  const ask = async (kind: LoopSeam, ctx: ExtensionContext, at = iteration): Promise<Pending> => {
    const request = { kind, iteration: at, toolCalls: kind.endsWith("_tool_dispatch") ? calls : [] };
    const answer = await handler.checkpoint(request, ctx);
    const dispatchSkipped = kind === "pre_tool_dispatch" && answer?.skipToolDispatch === true && calls.length > 0;
    return { request, answer, dispatchSkipped };
  };
  const report = (seam: Pending, kept: boolean, ctx: ExtensionContext) => {
    const messages = seam.answer?.messages ?? [];
    try {
      if (messages.length > 0) seam.answer?.settled?.(kept);
      const { kind, iteration } = seam.request;
      handler.pass?.(
        { kind, iteration, delivered: kept ? messages.length : 0, dispatchSkipped: seam.dispatchSkipped },
        ctx,
      );
    } catch {
      // The handler's failures never reach pi.
    }
  };
  /** What pi did with the last proposal: its entries are in the branch after the leaf they followed, or not. */
  const confirm = (ctx: ExtensionContext) => {
    settle(proposed, ctx);
    proposed = undefined;
  };
  /** The run's starting messages are in the session once its first response (or its end) is. */
  const confirmStart = (ctx: ExtensionContext) => {
    settle(starting, ctx);
    starting = undefined;
  };
  const settle = (last: typeof proposed, ctx: ExtensionContext) => {
    if (!last) return;
    const messages = last.seams.flatMap((seam) => seam.answer?.messages ?? []);
    const kept = committedAfter(ctx.sessionManager.getBranch(), last.after, messages);
    for (const seam of last.seams) report(seam, kept, ctx);
  };
  /** A pre_tool_dispatch answer no boundary took (its turn never ended): pi never got its messages. */
  const dropPreDispatch = (ctx: ExtensionContext) => {
    if (preDispatch) report(preDispatch, false, ctx);
    preDispatch = undefined;
  };
  /** At a boundary: propose the seams' messages as entries after what earlier handlers proposed, and continue. */
  const propose = (event: BoundaryState, seams: Pending[], ctx: ExtensionContext) => {
    const messages = seams.flatMap((seam) => seam.answer?.messages ?? []);
    if (messages.length === 0) {
      for (const seam of seams) report(seam, true, ctx);
      return undefined;
    }
    proposed = { after: ctx.sessionManager.getLeafId(), seams };
    const entries = [...event.entries, ...messages.map(boundaryDraft)];
    // A run being aborted (the user, or another extension's ctx.abort(): pi-ttsr's interrupt) ends here: the entries
    // go in for the next run; a continuation would only make pi start a turn and abort it at once.
    return ctx.signal?.aborted ? { entries } : { entries, continue: true };
  };

  return {
    before_agent_start: async (_event, ctx) => {
      confirmStart(ctx);
      const seam = await ask("iteration_start", ctx, 1);
      const messages = seam.answer?.messages ?? [];
      if (messages.length === 0) return report(seam, true, ctx);
      starting = { after: ctx.sessionManager.getLeafId(), seams: [seam] };
      // Taken by this run right after its starting message (pi reads the queue once the handlers are done).
      for (const { customType, content, display, details } of messages) {
        pi.sendMessage({ customType, content, display, details }, { deliverAs: "nextTurn" });
      }
    },
    agent_start: (_event, ctx) => {
      confirm(ctx);
      iteration = 0;
    },
    turn_start: (_event, ctx) => {
      confirm(ctx);
      dropPreDispatch(ctx);
      iteration++;
      calls = [];
    },
    message_end: ({ message }, ctx) => {
      if (message.role !== "assistant") return;
      confirmStart(ctx);
      dropPreDispatch(ctx);
      calls = toolCallsOf(message);
    },
    tool_call: async ({ toolName }, ctx) => {
      try {
        preDispatch ??= await ask("pre_tool_dispatch", ctx);
      } catch (error) {
        // pi would make the call's result of a throw here (blocking it): the calls run, pi hears of it at agent_end.
        failure ??= error;
        return undefined;
      }
      if (!preDispatch.dispatchSkipped) return undefined;
      const reason = preDispatch.answer?.skipReason;
      return { block: true, reason: `Tool call ${toolName} was not dispatched${reason ? `: ${reason}` : ""}` };
    },
    turn_end: async (event, ctx) => {
      confirm(ctx);
      const seams = preDispatch ? [preDispatch] : [];
      preDispatch = undefined;
      if (event.outcome !== "completed") {
        for (const seam of seams) report(seam, false, ctx);
        return undefined;
      }
      seams.push(await ask(event.toolResults.length > 0 ? "post_tool_dispatch" : "iteration_end", ctx));
      return propose(event, seams, ctx);
    },
    agent_end: (_event, ctx) => {
      confirm(ctx);
      confirmStart(ctx);
      const failed = failure;
      failure = undefined;
      if (failed !== undefined) throw failed;
    },
    agent_before_settle: async (event, ctx) => {
      confirm(ctx);
      if (event.outcome !== "completed") return undefined;
      return propose(event, [await ask("iteration_end", ctx)], ctx);
    },
    agent_settled: async (_event, ctx) => {
      confirm(ctx);
      confirmStart(ctx);
      dropPreDispatch(ctx);
      const seam = await ask("loop_exit", ctx);
      for (const message of seam.answer?.messages ?? []) {
        const { customType, content, display, details } = message;
        pi.sendMessage({ customType, content, display, details }, { deliverAs: "nextTurn" });
      }
      report(seam, true, ctx);
    },
    session_shutdown: (_event, ctx) => {
      confirm(ctx);
      confirmStart(ctx);
    },
  };
}
