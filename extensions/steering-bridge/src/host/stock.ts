import type { BridgeHost } from "../bridge/steering-bridge.ts";
import { writeAuditRecords } from "../pi/session-entries.ts";
import { renderItem } from "../queue/render.ts";
import type { HostAdapter } from "./delivery-core.ts";

/**
 * Stock pi (no pi-rails patch): no seams; every accepted item goes at once to pi's own queue:
 * interrupt_immediate -> steer, finish_step -> follow-up, idle -> the next turn; audit_only -> an audit record.
 */
export const stockHost: HostAdapter = (pi, notify) => {
  notify(
    "stock-pi",
    "this pi has no loop seams (stock pi, without the pi-rails patch): steering items go to pi's own steer/follow-up queue (no seam choice, no tool-batch skip, no dedupe or TTL once handed over)",
  );
  const handoff: BridgeHost["handoff"] = (items, running) => {
    const audited = items.filter((item) => item.mode === "audit_only");
    writeAuditRecords(pi, audited, "pi_queue", 0);
    for (const item of items) {
      if (item.mode === "audit_only") continue;
      const { customType, content, display, details } = renderItem(item, "pi_queue", 0);
      const deliverAs = !running ? "nextTurn" : item.mode === "interrupt_immediate" ? "steer" : "followUp";
      pi.sendMessage({ customType, content, display, details }, { deliverAs });
    }
  };
  return { seams: false, handoff };
};
