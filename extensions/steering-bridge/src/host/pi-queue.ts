import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";
import { writeAuditRecords } from "../pi/session-entries.ts";
import { renderItem } from "../queue/render.ts";
import type { SteeringItem } from "../queue/types.ts";

/**
 * Hand items no seam takes now to pi's own queue (the bridge's `handoff`): between runs (only on a host with no
 * iteration_start), pi's next turn; during a run (an inbox note where pi has no compaction seams), its steer queue
 * for interrupt_immediate, else its follow-up queue. audit_only items become audit records at once.
 */
export function handToPiQueue(pi: ExtensionAPI, items: readonly SteeringItem[], running: boolean): void {
  writeAuditRecords(
    pi,
    items.filter((item) => item.mode === "audit_only"),
    "pi_queue",
    0,
  );
  for (const item of items) {
    if (item.mode === "audit_only") continue;
    const { customType, content, display, details } = renderItem(item, "pi_queue", 0);
    const deliverAs = !running ? "nextTurn" : item.mode === "interrupt_immediate" ? "steer" : "followUp";
    pi.sendMessage({ customType, content, display, details }, { deliverAs });
  }
}
