import { LOOP_SEAMS, SEAM_DRAIN_POLICY } from "@pi-rails/agent-core/kit";
import { describe, expect, it } from "vitest";
import type { Ack } from "../queue/types.ts";
import { SteeringBridge, UnavailableError } from "./steering-bridge.ts";

const call = { id: "c1", name: "bash" };

describe("SteeringBridge drain table", () => {
  it.each(LOOP_SEAMS)("%s drains exactly the modes of the catalog, in mode order, then the inbox", async (seam) => {
    const bridge = new SteeringBridge({ sessionId: "s", cwd: "/" });
    const acks: Ack[] = [];
    bridge.onAck((ack) => acks.push(ack));
    bridge.enqueue({ content: "audit", mode: "audit_only", kind: "message", leftover: "carry" });
    bridge.enqueue({ content: "finish", mode: "finish_step", kind: "message" });
    bridge.enqueue({ content: "interrupt", mode: "interrupt_immediate", kind: "message" });
    bridge.enqueue({ content: "note", kind: "note" });
    const result = await bridge.drain(seam, 3, [call]);
    const policy = SEAM_DRAIN_POLICY[seam];
    const order = ["interrupt_immediate", "finish_step", "audit_only"] as const;
    const expected = order.filter((mode) => policy.modes.includes(mode)).map((mode) => mode.split("_")[0]);
    const contents = result.messages.map((m) => (m as unknown as { content: string }).content);
    expect(contents).toEqual(expected);
    expect(result.inboxMessages).toHaveLength(policy.inbox ? 1 : 0);
    expect(result.skipToolDispatch).toBe(seam === "pre_tool_dispatch");
    if (seam === "pre_tool_dispatch") expect(result.skipReason).toBe("interrupt_immediate");
    expect(acks.every((ack) => "seam" in ack && ack.seam === seam && ack.iteration === 3)).toBe(true);
  });

  it("the idle seams of a long-lived agent wake it only for interrupts", async () => {
    const bridge = new SteeringBridge({ sessionId: "s", cwd: "/" });
    bridge.enqueue({ content: "later", mode: "finish_step", kind: "message" });
    expect((await bridge.drain("daemon_idle_pre", 1)).messages).toEqual([]);
    bridge.enqueue({ content: "now", mode: "interrupt_immediate", kind: "message" });
    expect((await bridge.drain("daemon_idle_post", 1)).messages).toHaveLength(1);
    expect(bridge.pending().map((i) => i.content)).toEqual(["later"]);
  });

  it("without a cancel backend, cancel is unavailable (stock pi)", async () => {
    const bridge = new SteeringBridge({ sessionId: "s", cwd: "/" });
    await expect(bridge.cancelToolCall("c1")).rejects.toBeInstanceOf(UnavailableError);
    expect(bridge.status().features).toEqual({ seams: true, cancel: false });
  });
});
