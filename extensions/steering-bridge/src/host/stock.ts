import type { ExtensionAPI } from "@mariozechner/pi-coding-agent";
import { writeAuditRecords } from "../pi/session-entries.ts";
import { renderItem } from "../queue/render.ts";
import type { SteeringItem } from "../queue/types.ts";
import type { HostAdapter } from "./delivery-core.ts";

/** Stock pi (no pi-rails patch): no seams and no cancel; every accepted item goes at once to pi's own queue. */
export const stockHost: HostAdapter = {
  seams: false,
  attach(bridge, pi, notify) {
    bridge.setHandoff((items) => handOffToPi(pi, items, bridge.running));
    notify(
      "stock-pi",
      "this pi has no loop seams (stock pi, without the pi-rails patch): steering items go to pi's own steer/follow-up queue (no seam choice, no tool-batch skip, no dedupe or TTL once handed over), and tool-call cancel is unavailable",
    );
  },
};

/** interrupt_immediate -> pi's steer queue, finish_step -> follow-up, idle -> the next turn; audit_only -> a record. */
function handOffToPi(pi: ExtensionAPI, items: SteeringItem[], running: boolean): void {
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
