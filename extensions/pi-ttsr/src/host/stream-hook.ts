import type { ExtensionContext } from "@earendil-works/pi-coding-agent";
import {
  emitEvent,
  type StreamHook,
  type StreamHookInterrupt,
  showStreamAbortNotice,
  TTSR_COST_EVENT,
  writeSessionEntry,
} from "@pi-rails/agent-core/kit";
import { followUpMessage, INJECTION_ENTRY, interruptRetry, rulesOf } from "../delivery/injection.ts";
import {
  addInterrupt,
  COST_ENTRY,
  interruptCostPayload,
  interruptCostStatus,
  readAttemptUsage,
} from "../delivery/interrupt-cost.ts";
import { renderInterrupt } from "../delivery/templates.ts";
import type { RuleMatch } from "../manager/ttsr-manager.ts";
import type { DeliveryCore } from "./delivery.ts";

/** Said once when a session with rules runs on stock pi: only what differs there. */
export const STOCK_PI_NOTICE =
  "stock pi (without the pi-rails patch): an interrupted answer is retried as a new run, and the text completing " +
  "the match may show until it is cleared; past three interrupts in a row the answer runs on and its rules follow it.";

/**
 * pi-ttsr on agent-core's stream hook (either pi): each delta goes to the manager; a match that interrupts is
 * delivered at once and stops the response; what became of it (retried, dropped by the abort cap, a blocked tool
 * call) settles the repeat policy, the session entries and what it cost.
 */
export function ttsrStreamHook(core: DeliveryCore): StreamHook {
  const { manager, pi } = core;
  /** The matches behind each interrupt answered (an outcome names the interrupt). */
  const matchesOf = new WeakMap<StreamHookInterrupt, RuleMatch[]>();
  /** The interrupt's rules never reached the model: they stay eligible, and a resumed session knows it. */
  const revoke = (matches: readonly RuleMatch[]) => {
    const names = rulesOf(matches).map((r) => r.name);
    manager.revokeInjected(names);
    writeSessionEntry(pi, INJECTION_ENTRY, { rules: names, kind: "revoked", turn: manager.completedTurns });
  };
  return {
    onResponseStart: () => manager.resetStreams(),

    onDelta(delta, ctx) {
      if (!manager.active) return undefined;
      const matches = core.check(ctx, delta);
      if (matches.length === 0) return undefined;
      core.deliver(ctx, matches, "interrupt");
      // Past the abort cap on stock pi a tool call is blocked instead: its result names only the rules on it.
      const onCall = matches.filter((m) => m.source === "tool");
      const interrupt: StreamHookInterrupt = interruptRetry(matches, manager.settings);
      if (onCall.length > 0) interrupt.blockReason = renderInterrupt(rulesOf(onCall), "keep");
      matchesOf.set(interrupt, matches);
      return interrupt;
    },

    onResponseEnd({ stopReason }) {
      // An aborted or failed response ran no tools: its reminders go; what only its end completes is recorded.
      if (stopReason === "aborted" || stopReason === "error") manager.dropToolBuckets();
      else core.settle();
    },

    takeFollowUp(ctx) {
      const due = manager.takeProseQueue();
      if (due.length === 0) return undefined;
      core.deliver(ctx, due, "follow-up");
      return followUpMessage(due);
    },

    onOutcome(outcome, ctx) {
      if (outcome.kind === "blocked") {
        const { toolCallId } = outcome;
        const matches = outcome.interrupts.flatMap((i) => matchesOf.get(i) ?? []);
        core.deliver(
          ctx,
          matches.filter((m) => m.toolCallId === toolCallId),
          "tool-block",
          toolCallId,
        );
        return;
      }
      const matches = matchesOf.get(outcome.interrupt) ?? [];
      if (outcome.kind === "retried") {
        showStreamAbortNotice(ctx, { consecutive: outcome.consecutive, capReached: false, retry: outcome.interrupt });
        countCost(core, ctx, outcome.usage);
      } else if (outcome.kind === "capped") {
        revoke(matches);
        if (outcome.turnEnded) {
          showStreamAbortNotice(ctx, { consecutive: outcome.consecutive, capReached: true });
          countCost(core, ctx, outcome.usage);
        } else {
          // The response runs on: its prose rules follow it, and its tool calls are blocked (`blocked`).
          manager.queueProse(matches.filter((m) => m.source !== "tool"));
        }
      }
    },
  };
}

/** Each interrupt was billed: count what the aborted attempt cost (when pi reported its usage). */
function countCost(core: DeliveryCore, ctx: ExtensionContext, reported: unknown): void {
  const usage = readAttemptUsage(reported);
  core.cost = addInterrupt(core.cost, usage);
  if (!usage) return;
  writeSessionEntry(core.pi, COST_ENTRY, { usage });
  const payload = interruptCostPayload(core.cost);
  if (!payload) return;
  emitEvent(core.pi.events, TTSR_COST_EVENT, payload);
  if (ctx.hasUI) {
    ctx.ui.setStatus("pi-ttsr", interruptCostStatus(core.cost));
    ctx.ui.notify(`pi-ttsr: ${payload.text}`, "info");
  }
}
