import { LOOP_SEAMS, SEAM_DRAIN_POLICY } from "@pi-rails/agent-core/kit";
import { describe, expect, it } from "vitest";
import type { Ack } from "../queue/types.ts";
import type { SteeringCheckpoint } from "../seams/seam-log.ts";
import { SteeringBridge, UnavailableError } from "./steering-bridge.ts";

const call = { id: "c1", name: "bash" };

describe("SteeringBridge drain table", () => {
  it.each(LOOP_SEAMS)("%s drains exactly the modes of the catalog, in mode order, then the inbox", async (seam) => {
    const bridge = new SteeringBridge({ sessionId: "s", cwd: "/" });
    const acks: Ack[] = [];
    bridge.onAck((ack) => acks.push(ack));
    bridge.inject({ content: "audit", mode: "audit_only", kind: "message", leftover: "carry" });
    bridge.inject({ content: "finish", mode: "finish_step", kind: "message" });
    bridge.inject({ content: "interrupt", mode: "interrupt_immediate", kind: "message" });
    bridge.inject({ content: "note", kind: "note" });
    const result = await bridge.drain(seam, 3, [call]);
    const policy = SEAM_DRAIN_POLICY[seam];
    const order = ["interrupt_immediate", "finish_step", "audit_only"] as const;
    const expected = order.filter((mode) => policy.modes.includes(mode)).map((mode) => mode.split("_")[0]);
    const contents = result.messages.map((m) => (m as unknown as { content: string }).content);
    expect(contents).toEqual(policy.inbox ? [...expected, "note"] : expected);
    expect(result.inboxDelivered).toBe(policy.inbox ? 1 : 0);
    expect(result.skipToolDispatch).toBe(seam === "pre_tool_dispatch");
    if (seam === "pre_tool_dispatch") expect(result.skipReason).toBe("interrupt_immediate");
    expect(acks.every((ack) => "seam" in ack && ack.seam === seam && ack.iteration === 3)).toBe(true);
  });

  it("counts its own inbox notes apart in the pass pi reports with one total", async () => {
    const bridge = new SteeringBridge({ sessionId: "s", cwd: "/" });
    const seen: SteeringCheckpoint[] = [];
    bridge.onCheckpoint((checkpoint) => seen.push(checkpoint));
    bridge.inject({ content: "n1", kind: "note" });
    bridge.inject({ content: "n2", kind: "note" });
    expect((await bridge.drain("pre_compact", 2)).inboxDelivered).toBe(2);
    // pi's total also holds a message another extension delivered at the same seam.
    const pass = { iteration: 2, kind: "pre_compact", delivered: 3, dispatchSkipped: false } as const;
    expect(bridge.observe(pass)).toEqual({ ...pass, delivered: 1, inboxDelivered: 2 });
    // A pass the bridge did not drain (another seam, or the same seam reported twice) has no inbox notes of its own.
    expect(bridge.observe({ ...pass, kind: "post_compact" })).toMatchObject({ delivered: 3, inboxDelivered: 0 });
    bridge.inject({ content: "n3", kind: "note" });
    await bridge.drain("post_compact", 2);
    expect(bridge.observe({ ...pass, iteration: 3, kind: "post_compact", delivered: 1 })).toMatchObject({
      delivered: 1,
      inboxDelivered: 0,
    });
    expect(seen.map((c) => c.inboxDelivered)).toEqual([2, 0, 0]);
    expect(bridge.status()).toMatchObject({ iteration: 3, lastSeam: "post_compact" });
  });

  it("without a cancel backend (a host that gives none), cancel is unavailable", async () => {
    const bridge = new SteeringBridge({ sessionId: "s", cwd: "/" });
    await expect(bridge.cancelToolCall("c1")).rejects.toBeInstanceOf(UnavailableError);
    expect(bridge.status().features).toEqual({ seams: true, cancel: false });
  });

  it("a host without iteration_start or compaction seams: between runs every item goes to pi's queue, during a run only inbox notes; the rest wait for its seams", async () => {
    const handed: string[][] = [];
    const bridge = new SteeringBridge({
      sessionId: "s",
      cwd: "/",
      host: {
        seams: ["pre_tool_dispatch", "post_tool_dispatch", "iteration_end", "loop_exit"],
        handoff: (items) => handed.push(items.map((item) => item.content)),
      },
    });
    expect(bridge.status()).toMatchObject({
      features: { seams: false },
      missingSeams: ["iteration_start", "pre_compact", "post_compact"],
    });
    const acks: Ack[] = [];
    bridge.onAck((ack) => acks.push(ack));
    expect(bridge.inject({ content: "idle", mode: "finish_step", kind: "message" })).toMatchObject({
      handedToPi: true,
    });
    bridge.setRunning(true);
    bridge.inject({ content: "interrupt", mode: "interrupt_immediate", kind: "message" });
    bridge.inject({ content: "at the turn end", mode: "finish_step", kind: "message" });
    bridge.inject({ content: "note", kind: "note" });
    expect(handed).toEqual([["idle"], ["note"]]);
    const answer = await bridge.checkpoint({ kind: "post_tool_dispatch", iteration: 1, toolCalls: [] });
    expect(answer.messages.map((m) => m.content)).toEqual(["interrupt", "at the turn end"]);
    bridge.inject({ content: "after the last turn", mode: "finish_step", kind: "message" });
    bridge.setRunning(false);
    expect(handed).toEqual([["idle"], ["note"], ["after the last turn"]]);
    expect(acks.filter((ack) => "seam" in ack && ack.seam === "post_tool_dispatch")).toEqual([]);
    answer.settled(true);
    expect(acks.filter((ack) => "seam" in ack && ack.seam === "post_tool_dispatch")).toMatchObject([
      { state: "delivered" },
      { state: "delivered" },
    ]);
  });

  it("a host with iteration_start but no compaction seams (stock pi): between runs every item waits for the next run's start; during a run inbox notes go to pi's queue", async () => {
    const handed: { items: string[]; running: boolean }[] = [];
    const bridge = new SteeringBridge({
      sessionId: "s",
      cwd: "/",
      host: {
        seams: ["iteration_start", "pre_tool_dispatch", "post_tool_dispatch", "iteration_end", "loop_exit"],
        handoff: (items, running) => handed.push({ items: items.map((item) => item.content), running }),
      },
    });
    expect(bridge.inject({ content: "idle", mode: "finish_step", kind: "message" })).not.toHaveProperty("handedToPi");
    expect(bridge.inject({ content: "idle note", kind: "note" })).not.toHaveProperty("handedToPi");
    bridge.setRunning(false);
    expect(handed).toEqual([]);
    expect(bridge.pending().map((item) => item.content)).toEqual(["idle", "idle note"]);
    const start = await bridge.checkpoint({ kind: "iteration_start", iteration: 1, toolCalls: [] });
    expect(start.messages.map((m) => m.content)).toEqual(["idle"]);
    bridge.setRunning(true);
    expect(handed).toEqual([{ items: ["idle note"], running: true }]);
    expect(bridge.inject({ content: "note", kind: "note" })).toMatchObject({ handedToPi: true });
    start.settled(false);
    expect(bridge.pending().map((item) => item.content)).toEqual(["idle"]);
  });

  it("items a host hands over are acknowledged once pi kept them, pending again (same order) when pi dropped them", async () => {
    const bridge = new SteeringBridge({ sessionId: "s", cwd: "/" });
    const acks: Ack[] = [];
    bridge.onAck((ack) => acks.push(ack));
    const a = bridge.inject({ content: "A", mode: "finish_step", kind: "message" });
    const b = bridge.inject({ content: "B", mode: "interrupt_immediate", kind: "message" });
    const dropped = await bridge.checkpoint({ kind: "iteration_end", iteration: 1, toolCalls: [] });
    expect(dropped.messages.map((m) => m.content)).toEqual(["B", "A"]);
    expect(bridge.pending()).toEqual([]);
    expect(bridge.revoke(a.id)).toMatchObject({ status: "already_settled", state: "delivered" });
    dropped.settled(false);
    expect(acks).toEqual([]);
    expect(bridge.pending().map((item) => item.id)).toEqual([a.id, b.id]);
    const kept = await bridge.checkpoint({ kind: "iteration_end", iteration: 2, toolCalls: [] });
    expect(kept.messages.map((m) => m.content)).toEqual(["B", "A"]);
    kept.settled(true);
    expect(acks.map((ack) => [ack.id, ack.state])).toEqual([
      [b.id, "delivered"],
      [a.id, "delivered"],
    ]);
  });
});
