import { afterEach, describe, expect, it, vi } from "vitest";
import { Inject, parseParams, type SteeringRpcError } from "../protocol/protocol.ts";
import {
  expiryTimerDelay,
  MAX_TIMER_DELAY_MS,
  QueueFullError,
  SteeringInputError,
  SteeringQueue,
} from "./steering-queue.ts";
import type { Ack } from "./types.ts";

function queue(start = 1000) {
  let now = start;
  let n = 0;
  const q = new SteeringQueue({ now: () => now, newId: () => `id${++n}` });
  const acks: Ack[] = [];
  q.onAck((ack) => acks.push(ack));
  return { q, acks, advance: (ms: number) => (now += ms) };
}

describe("SteeringQueue", () => {
  it("a deliver listener that refuses (its journal write failed) keeps the items pending, unacknowledged", () => {
    const { q, acks } = queue();
    q.enqueue({ content: "a", mode: "finish_step", kind: "message" });
    let refuse = true;
    const seen: string[][] = [];
    q.onDeliver((pending) => {
      seen.push(pending.map((ack) => `${ack.id}:${ack.state}`));
      if (refuse) throw new Error("EFBIG");
    });
    expect(q.takeMode("finish_step", "post_tool_dispatch", 1)).toEqual([]);
    expect(q.takeWhere(() => true, "pi_queue", 1)).toEqual([]);
    expect([q.size, acks]).toEqual([1, []]);
    refuse = false;
    expect(q.takeMode("finish_step", "iteration_end", 2).map((i) => i.content)).toEqual(["a"]);
    expect(acks).toMatchObject([{ id: "id1", state: "delivered", seam: "iteration_end" }]);
    expect(seen).toEqual([["id1:delivered"], ["id1:delivered"], ["id1:delivered"]]);
  });

  it("hand: written as settled first, acknowledged on confirm; reopen puts them back (told to its listeners), a dedupeKey a newer item took meanwhile makes the old one replaced", () => {
    const { q, acks } = queue();
    const written: string[] = [];
    q.onDeliver((pending) => written.push(...pending.map((ack) => `${ack.id}:${ack.state}`)));
    const reopened: string[] = [];
    q.onReopen((items) => reopened.push(...items.map((item) => item.id)));
    q.enqueue({ content: "a", mode: "finish_step", kind: "message" });
    q.enqueue({ content: "b", mode: "finish_step", kind: "message", dedupeKey: "k" });
    const handed = q.hand((item) => item.mode === "finish_step", "iteration_end", 1).map((item) => item.id);
    expect([handed, written, acks, q.size]).toEqual([["id1", "id2"], ["id1:delivered", "id2:delivered"], [], 0]);
    q.enqueue({ content: "b2", mode: "finish_step", kind: "message", dedupeKey: "k" });
    q.reopen(handed);
    expect(reopened).toEqual(["id1"]);
    expect(q.pending().map((item) => item.content)).toEqual(["b2", "a"]);
    expect(acks).toMatchObject([{ id: "id2", state: "revoked", reason: "replaced", replacedBy: "id3" }]);
    const again = q.hand(() => true, "iteration_end", 2).map((item) => item.id);
    q.confirm(again);
    q.confirm(again); // once
    expect(acks.slice(1).map((ack) => [ack.id, ack.state])).toEqual([
      ["id3", "delivered"],
      ["id1", "delivered"],
    ]);
    expect(q.settledState("id1")).toBe("delivered");
  });

  it("hands over one mode at a time, in arrival order, and acknowledges each once", () => {
    const { q, acks } = queue();
    q.enqueue({ content: "a", mode: "finish_step", kind: "message" });
    q.enqueue({ content: "b", mode: "interrupt_immediate", kind: "message" });
    q.enqueue({ content: "c", mode: "finish_step", kind: "reminder" });
    q.enqueue({ content: "n", kind: "note" });
    expect(q.takeMode("interrupt_immediate", "pre_tool_dispatch", 2).map((i) => i.content)).toEqual(["b"]);
    expect(q.takeMode("finish_step", "post_tool_dispatch", 2).map((i) => i.content)).toEqual(["a", "c"]);
    expect(q.takeMode("finish_step", "post_tool_dispatch", 2)).toEqual([]);
    expect(q.takeWhere((i) => i.channel === "inbox", "pre_compact", 3).map((i) => i.content)).toEqual(["n"]);
    expect(acks.map((a) => [a.id, a.state, "seam" in a ? a.seam : ""])).toEqual([
      ["id2", "delivered", "pre_tool_dispatch"],
      ["id1", "delivered", "post_tool_dispatch"],
      ["id3", "delivered", "post_tool_dispatch"],
      ["id4", "delivered", "pre_compact"],
    ]);
  });

  it("refuses unknown or missing modes and names the field", () => {
    const { q } = queue();
    expect(() => q.enqueue({ content: "x", mode: "soon" as never, kind: "message" })).toThrow(SteeringInputError);
    expect(() => q.enqueue({ content: "x", kind: "reminder" })).toThrow(/^mode: is required/);
    expect(() => q.enqueue({ content: "x", kind: "note", mode: "finish_step" })).toThrow(
      /^mode: inbox notes have no mode/,
    );
    expect(() => q.enqueue({ content: " ", mode: "finish_step", kind: "message" })).toThrow(/^content:/);
    expect(() => q.enqueue({ content: "x", mode: "finish_step", kind: "message", ttlMs: 0 })).toThrow(/^ttlMs:/);
    expect(() => q.enqueue({ content: "x", mode: "finish_step", kind: "message", leftover: "keep" as never })).toThrow(
      /^leftover:/,
    );
    expect(q.size).toBe(0);
  });

  it("refuses what the socket refuses, naming the same field for the same reason (one set of item rules)", () => {
    const { q } = queue();
    const bad = [
      { content: "x", mode: "soon" },
      { content: "   ", mode: "finish_step" },
      { mode: "finish_step" },
      { content: "x", mode: "finish_step", ttlMs: 1.5 },
      { content: "x", mode: "finish_step", id: "no spaces" },
      { content: "x", mode: "finish_step", dedupeKey: "k".repeat(257) },
      { content: "x", mode: "finish_step", source: "" },
      { content: "x", mode: "finish_step", leftover: "keep" },
    ];
    const thrown = (run: () => unknown) => {
      try {
        run();
      } catch (error) {
        return error as Partial<SteeringRpcError & SteeringInputError>;
      }
    };
    for (const params of bad) {
      const wire = thrown(() => parseParams(Inject, params))?.data as { issues: { path: string; message: string }[] };
      const { path, message } = wire.issues[0]!;
      const error = thrown(() => q.enqueue({ ...params, kind: "message" } as never));
      expect(error, JSON.stringify(params)).toMatchObject({ field: path, message: `${path}: ${message}` });
    }
    expect(() => q.enqueue(null as never)).toThrow(/^input: must be an object/);
    expect(q.size).toBe(0);
  });

  it("dedupes by key: the newer item replaces the pending one; a delivered key can be used again", () => {
    const { q, acks } = queue();
    const a = q.enqueue({ content: "v1", mode: "finish_step", kind: "message", dedupeKey: "k" });
    const b = q.enqueue({ content: "v2", mode: "interrupt_immediate", kind: "message", dedupeKey: "k" });
    expect(b.replaced).toBe(a.item.id);
    expect(acks).toEqual([{ id: "id1", state: "revoked", reason: "replaced", replacedBy: "id2", at: 1000 }]);
    q.takeMode("interrupt_immediate", "iteration_start", 1);
    const c = q.enqueue({ content: "v3", mode: "finish_step", kind: "message", dedupeKey: "k" });
    expect(c.replaced).toBeUndefined();
  });

  it("expires items past their ttl at the next look, never delivering them", () => {
    const { q, acks, advance } = queue();
    q.enqueue({ content: "short", mode: "finish_step", kind: "message", ttlMs: 10 });
    q.enqueue({ content: "long", mode: "finish_step", kind: "message", ttlMs: 1000 });
    advance(11);
    expect(q.takeMode("finish_step", "iteration_start", 1).map((i) => i.content)).toEqual(["long"]);
    expect(acks.map((a) => a.state)).toEqual(["expired", "delivered"]);
  });

  it("settles leftovers by policy and restores carried items with their ids", () => {
    const { q, acks } = queue();
    q.enqueue({ content: "carry", mode: "finish_step", kind: "message" });
    q.enqueue({ content: "drop", mode: "finish_step", kind: "message", leftover: "discard" });
    q.enqueue({ content: "audit", mode: "interrupt_immediate", kind: "message", leftover: "audit" });
    const carried = q.settleLeftovers();
    expect(carried.map((i) => i.content)).toEqual(["carry"]);
    expect(q.takeMode("audit_only", "loop_exit", 3).map((i) => i.content)).toEqual(["audit"]);
    expect(acks.map((a) => [a.id, a.state])).toEqual([
      ["id2", "discarded"],
      ["id3", "audited"],
    ]);
    const fresh = queue(5000);
    fresh.q.restore(carried);
    fresh.q.restore(carried);
    expect(fresh.q.pending().map((i) => i.id)).toEqual(["id1"]);
    const expired = queue(10_000);
    expired.q.restore([{ ...carried[0]!, id: "old", expiresAt: 9_000 }]);
    expect(expired.acks).toMatchObject([{ id: "old", state: "expired" }]);
  });

  it("revoke answers revoked, already_settled with the state, or unknown", () => {
    const { q } = queue();
    const { item } = q.enqueue({ content: "x", mode: "finish_step", kind: "message" });
    expect(q.revoke(item.id)).toEqual({ id: item.id, status: "revoked" });
    expect(q.revoke(item.id)).toEqual({ id: item.id, status: "already_settled", state: "revoked" });
    expect(q.revoke("nope")).toEqual({ id: "nope", status: "unknown" });
  });

  it("at shutdown audits audit items, discards discard leftovers, keeps the rest", () => {
    const { q, acks } = queue();
    q.enqueue({ content: "a", mode: "audit_only", kind: "message" });
    q.enqueue({ content: "b", mode: "finish_step", kind: "message", leftover: "discard" });
    q.enqueue({ content: "c", mode: "finish_step", kind: "message" });
    const { audited, carried } = q.settleForShutdown();
    expect(audited.map((i) => i.content)).toEqual(["a"]);
    expect(carried.map((i) => i.content)).toEqual(["c"]);
    expect(acks.map((a) => a.state)).toEqual(["audited", "discarded"]);
  });

  it("remembers at least settledLimit settled ids, and forgets older ones", () => {
    let n = 0;
    const q = new SteeringQueue({ newId: () => `id${++n}`, settledLimit: 2 });
    for (let i = 0; i < 6; i++) q.enqueue({ content: `x${i}`, mode: "finish_step", kind: "message" });
    q.takeMode("finish_step", "iteration_start", 1);
    expect(q.revoke("id6")).toMatchObject({ status: "already_settled", state: "delivered" });
    expect(q.revoke("id5")).toMatchObject({ status: "already_settled" });
    expect(q.revoke("id1")).toEqual({ id: "id1", status: "unknown" });
  });
});

describe("queue limits", () => {
  it("a dedupe replacement frees its room; a full queue refuses and keeps what it holds", () => {
    const queue = new SteeringQueue({ maxPendingItems: 2, maxPendingBytes: 10 });
    queue.enqueue({ content: "aaaa", kind: "message", mode: "finish_step", dedupeKey: "k" });
    queue.enqueue({ content: "bbbb", kind: "message", mode: "finish_step" });
    // Same key: replaces the pending one, so 2 items and 8 bytes stay within the limits.
    expect(
      queue.enqueue({ content: "cccc", kind: "message", mode: "finish_step", dedupeKey: "k" }).replaced,
    ).toBeTruthy();
    expect(() => queue.enqueue({ content: "d", kind: "message", mode: "finish_step" })).toThrow(QueueFullError);
    expect(queue.pending().map((i) => i.content)).toEqual(["bbbb", "cccc"]);
    expect(queue.pendingBytes).toBe(8);
    const bytes = new SteeringQueue({ maxPendingBytes: 4 });
    expect(() => bytes.enqueue({ content: "ééé", kind: "note" })).toThrow(QueueFullError); // 6 bytes in UTF-8
    expect(bytes.pendingBytes).toBe(0);
  });

  it("an item its accept listener cannot record is taken back, unacknowledged", () => {
    const queue = new SteeringQueue();
    const acks: unknown[] = [];
    queue.onAck((ack) => acks.push(ack));
    queue.onAccept(() => {
      throw new Error("disk full");
    });
    expect(() => queue.enqueue({ content: "x", kind: "note" })).toThrow("disk full");
    expect(queue.pending()).toEqual([]);
    expect(queue.pendingBytes).toBe(0);
    expect(acks).toEqual([]);
  });
});

describe("SteeringQueue expiry timer", () => {
  const DAY = 24 * 60 * 60 * 1000;
  afterEach(() => {
    vi.useRealTimers();
  });

  it("arms at most Node's maximum delay, one ms past a near expiry", () => {
    expect(expiryTimerDelay(1010, 1000)).toBe(11);
    expect(expiryTimerDelay(900, 1000)).toBe(1);
    expect(expiryTimerDelay(1000 + 30 * DAY, 1000)).toBe(MAX_TIMER_DELAY_MS);
  });

  it("a far-future expiry neither fires at once nor warns", async () => {
    const warnings: Error[] = [];
    const onWarning = (w: Error) => warnings.push(w);
    process.on("warning", onWarning);
    const acks: Ack[] = [];
    const q = new SteeringQueue();
    q.onAck((ack) => acks.push(ack));
    try {
      q.enqueue({ content: "later", mode: "finish_step", kind: "message", ttlMs: 30 * DAY });
      // An overflowing delay warns on the next tick and fires after 1 ms; give both ample time.
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(warnings.filter((w) => w.name === "TimeoutOverflowWarning")).toEqual([]);
      expect(acks).toEqual([]);
      expect(q.pending().map((i) => i.content)).toEqual(["later"]);
    } finally {
      process.off("warning", onWarning);
      q.dispose();
    }
  });

  it("re-arms a clamped timer and expires the item when its time comes, with no one looking", () => {
    vi.useFakeTimers({ now: 1_000_000 });
    const acks: Ack[] = [];
    const q = new SteeringQueue();
    q.onAck((ack) => acks.push(ack));
    q.enqueue({ content: "later", mode: "finish_step", kind: "message", ttlMs: 30 * DAY });
    vi.advanceTimersByTime(25 * DAY);
    expect(acks).toEqual([]);
    vi.advanceTimersByTime(5 * DAY + 1);
    expect(acks.map((a) => a.state)).toEqual(["expired"]);
    q.dispose();
  });
});
