import { INTERRUPT_SKIP_REASON } from "@pi-rails/agent-core/kit";
import type { BridgeHost } from "../bridge/steering-bridge.ts";
import { writeAuditRecords } from "../pi/session-entries.ts";
import { renderItem } from "../queue/render.ts";
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
 * Stock pi (no pi-rails patch): no seams; every accepted item goes at once to pi's own queue:
 * interrupt_immediate -> steer, finish_step -> follow-up, idle -> the next turn; audit_only -> an audit record.
 */
export function stockHost({ pi, notify }: HostInput): SessionHost {
  notify(
    "stock-pi",
    "this pi has no loop seams (stock pi, without the pi-rails patch): steering items go to pi's own steer/follow-up queue (no seam choice, no dedupe or TTL once handed over); interrupt_immediate keeps the tool calls of the turn it arrives in from running",
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
    tool_call: ({ toolName }) => {
      const reason = batch.blockReason(toolName);
      return reason === undefined ? undefined : { block: true, reason };
    },
    turn_start: () => batch.turnStarted(),
    turn_end: () => batch.turnEnded(),
  };
}
