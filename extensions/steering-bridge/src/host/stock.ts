import type { BoundaryResult, BoundaryState, SessionBoundaryDraft } from "@earendil-works/pi-coding-agent";
import { INTERRUPT_SKIP_REASON } from "@pi-rails/agent-core/kit";
import type { BridgeHost, SteeringBridge } from "../bridge/steering-bridge.ts";
import { writeAuditRecords } from "../pi/session-entries.ts";
import { renderItem } from "../queue/render.ts";
import type { SteeringItem } from "../queue/types.ts";
import type { HostInput, SessionHost } from "./delivery-core.ts";

/**
 * Stock pi's stand-in for the pre-dispatch skip. pi delivers a steered item only after the tool batch of the turn it
 * arrived in; an interrupt_immediate item that arrives during a turn therefore keeps that turn's tool calls from
 * running (each is blocked at `tool_call`, with the patched loop's placeholder text). One that arrives between
 * turns reaches the model before its next calls, which are left alone.
 */
export class TurnBatchGuard {
  #inTurn = false;
  #skipping = false;

  turnStarted(): void {
    this.#inTurn = true;
    this.#skipping = false;
  }

  turnEnded(): void {
    this.#inTurn = false;
    this.#skipping = false;
  }

  interruptArrived(): void {
    if (this.#inTurn) this.#skipping = true;
  }

  /** Why `toolName` must not run, or undefined. */
  blockReason(toolName: string): string | undefined {
    return this.#skipping ? `Tool call ${toolName} was not dispatched: ${INTERRUPT_SKIP_REASON}` : undefined;
  }
}

/**
 * Stock pi (no pi-rails patch): no seams. interrupt_immediate goes at once to pi's steer queue (and keeps the tool
 * calls of the turn it arrives in from running); finish_step waits in the bridge's queue (dedupe, TTL and revoke
 * still apply) until pi's boundary at the end of the turn, or before the run settles, where it goes in as a
 * `custom_message` entry with a continuation: after the step, before the next request, as at the patched pi's
 * seams. Between runs every item goes to pi's next turn; audit_only becomes an audit record.
 */
export function stockHost({ pi, notify }: HostInput): SessionHost {
  notify(
    "stock-pi",
    "this pi has no loop seams (stock pi, without the pi-rails patch): interrupt_immediate goes to pi's steer queue and keeps the tool calls of the turn it arrives in from running; finish_step is delivered at the end of the turn (pi's turn_end); no other seam can be chosen",
  );
  const batch = new TurnBatchGuard();
  const handoff: BridgeHost["handoff"] = (items, running) => {
    const audited = items.filter((item) => item.mode === "audit_only");
    writeAuditRecords(pi, audited, "pi_queue", 0);
    for (const item of items) {
      if (item.mode === "audit_only") continue;
      const { customType, content, display, details } = renderItem(item, "pi_queue", 0);
      const deliverAs = !running ? "nextTurn" : item.mode === "interrupt_immediate" ? "steer" : "followUp";
      if (deliverAs === "steer") batch.interruptArrived();
      pi.sendMessage({ customType, content, display, details }, { deliverAs });
    }
  };
  return {
    seams: false,
    handoff,
    holdsWhileRunning: isFinishStep,
    tool_call: ({ toolName }) => {
      const reason = batch.blockReason(toolName);
      return reason === undefined ? undefined : { block: true, reason };
    },
    turn_start: () => batch.turnStarted(),
    turn_end: (event, bridge) => {
      batch.turnEnded();
      return deliverHeld(event, bridge);
    },
    agent_before_settle: deliverHeld,
  };
}

const isFinishStep = (item: SteeringItem): boolean => item.channel === "bridge" && item.mode === "finish_step";

/**
 * At one of pi's boundaries: the held items as `custom_message` entries after what earlier handlers proposed, and
 * one more request for them. Not after an aborted or failed response (pi ends the run there): they are handed to
 * pi's next turn when the run ends.
 */
function deliverHeld(event: BoundaryState, bridge: SteeringBridge): BoundaryResult | undefined {
  if (event.outcome !== "completed") return undefined;
  const items = bridge.takeHeld("iteration_end");
  if (items.length === 0) return undefined;
  const entries = items.map((item): SessionBoundaryDraft => {
    const { customType, content, display, details } = renderItem(item, "iteration_end", 0);
    return { type: "custom_message", customType, content, display, details };
  });
  return { entries: [...event.entries, ...entries], continue: true };
}
