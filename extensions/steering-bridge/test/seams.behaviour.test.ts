import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { acksOf, type BridgeHarness, bridgeSessionPerTest, conversation } from "./helpers.ts";

const openBridgeSession = bridgeSessionPerTest(afterEach);
let harness: BridgeHarness | undefined;

describe("steering seams in a real pi session", () => {
  it("drains interrupt_immediate before finish_step at iteration_start, and the first request carries both", async () => {
    harness = await openBridgeSession({ script: [{ text: "ok" }] });
    const api = harness.api();
    const finish = api.inject({ content: "FINISH-ITEM", mode: "finish_step", kind: "message" });
    const interrupt = api.inject({ content: "INTERRUPT-ITEM", mode: "interrupt_immediate", kind: "message" });
    await harness.test.prompt("hello");
    const texts = conversation(harness.server.requests[0]!.messages).map((m) => m.text);
    expect(texts.indexOf("INTERRUPT-ITEM")).toBeGreaterThan(-1);
    expect(texts.indexOf("INTERRUPT-ITEM")).toBeLessThan(texts.indexOf("FINISH-ITEM"));
    expect(acksOf(harness.acks, interrupt.id)).toMatchObject([
      { state: "delivered", seam: "iteration_start", iteration: 1 },
    ]);
    expect(acksOf(harness.acks, finish.id)).toMatchObject([
      { state: "delivered", seam: "iteration_start", iteration: 1 },
    ]);
    expect(harness.checkpoints.find((c) => c.kind === "iteration_start")).toMatchObject({ delivered: 2 });
  });

  it("interrupt_immediate at pre_tool_dispatch skips the streamed write: no file, placeholder result, item in the next request", async () => {
    harness = await openBridgeSession({
      script: [
        { toolCalls: [{ id: "w1", name: "write", arguments: { path: "danger.txt", content: "boom" } }] },
        { text: "Understood, not writing." },
      ],
      schedule: [
        {
          after: "iteration_start",
          iteration: 1,
          input: { content: "STOP: do not write", mode: "interrupt_immediate", kind: "message" },
        },
      ],
    });
    await harness.test.prompt("write danger.txt");
    expect(existsSync(join(harness.test.cwd, "danger.txt"))).toBe(false);
    const [id] = harness.scheduledIds;
    expect(acksOf(harness.acks, id!)).toMatchObject([{ state: "delivered", seam: "pre_tool_dispatch", iteration: 1 }]);
    expect(harness.checkpoints.find((c) => c.kind === "pre_tool_dispatch")).toMatchObject({
      delivered: 1,
      dispatchSkipped: true,
    });
    const next = conversation(harness.server.requests[1]!.messages);
    expect(next.map((m) => m.role)).toEqual(["user", "assistant", "tool", "user"]);
    expect(next[2]!.text).toContain("was not dispatched: interrupt_immediate");
    expect(next[3]!.text).toBe("STOP: do not write");
    // The placeholder result says why in its details too (a renderer or guard need not parse the text).
    const placeholder = harness.test.session.messages.find((m) => m.role === "toolResult");
    expect(placeholder).toMatchObject({
      toolCallId: "w1",
      isError: true,
      details: { dispatchSkipped: true, skipReason: "interrupt_immediate" },
    });
  });

  it("finish_step waits for post_tool_dispatch: the tool runs, then the item lands before the next request", async () => {
    harness = await openBridgeSession({
      files: { "notes.md": "NOTES-BODY" },
      script: [{ toolCalls: [{ id: "r1", name: "read", arguments: { path: "notes.md" } }] }, { text: "done" }],
      schedule: [
        {
          after: "iteration_start",
          iteration: 1,
          input: { content: "FINISH-AFTER-TOOLS", mode: "finish_step", kind: "message" },
        },
      ],
    });
    await harness.test.prompt("read notes");
    const [id] = harness.scheduledIds;
    expect(acksOf(harness.acks, id!)).toMatchObject([{ state: "delivered", seam: "post_tool_dispatch", iteration: 1 }]);
    expect(harness.checkpoints.find((c) => c.kind === "pre_tool_dispatch")).toMatchObject({
      delivered: 0,
      dispatchSkipped: false,
    });
    const next = conversation(harness.server.requests[1]!.messages);
    expect(next.map((m) => m.role)).toEqual(["user", "assistant", "tool", "user"]);
    expect(next[2]!.text).toContain("NOTES-BODY");
    expect(next[3]!.text).toBe("FINISH-AFTER-TOOLS");
  });

  it("an item queued after post_tool_dispatch lands at the next iteration_start", async () => {
    harness = await openBridgeSession({
      files: { "notes.md": "x" },
      script: [{ toolCalls: [{ id: "r1", name: "read", arguments: { path: "notes.md" } }] }, { text: "done" }],
      schedule: [
        {
          after: "post_tool_dispatch",
          iteration: 1,
          input: { content: "NEXT-ITERATION", mode: "finish_step", kind: "message" },
        },
      ],
    });
    await harness.test.prompt("read notes");
    expect(acksOf(harness.acks, harness.scheduledIds[0]!)).toMatchObject([
      { state: "delivered", seam: "iteration_start", iteration: 2 },
    ]);
    expect(conversation(harness.server.requests[1]!.messages).at(-1)!.text).toBe("NEXT-ITERATION");
  });

  it("an item arriving on the done path lands at iteration_end and the loop goes on for one more request", async () => {
    harness = await openBridgeSession({
      script: [{ text: "all done" }, { text: "ok, also that" }],
      schedule: [
        {
          after: "pre_tool_dispatch",
          iteration: 1,
          input: { content: "ONE-MORE-THING", mode: "interrupt_immediate", kind: "message" },
        },
      ],
    });
    const last = await harness.test.prompt("hi");
    expect(acksOf(harness.acks, harness.scheduledIds[0]!)).toMatchObject([
      { state: "delivered", seam: "iteration_end", iteration: 1 },
    ]);
    expect(harness.checkpoints.find((c) => c.kind === "pre_tool_dispatch")).toMatchObject({ dispatchSkipped: false });
    expect(harness.server.requests).toHaveLength(2);
    expect(conversation(harness.server.requests[1]!.messages).at(-1)!.text).toBe("ONE-MORE-THING");
    expect(JSON.stringify(last?.content)).toContain("ok, also that");
  });

  it("inbox notes are user-role messages drained at pre_compact and post_compact", async () => {
    harness = await openBridgeSession({
      script: [{ text: "ok" }],
      schedule: [{ after: "pre_compact", iteration: 1, input: { content: "NOTE-LATE", kind: "note" } }],
    });
    const early = harness.api().inject({ content: "NOTE-EARLY", kind: "note" });
    await harness.test.prompt("hi");
    expect(acksOf(harness.acks, early.id)).toMatchObject([{ state: "delivered", seam: "pre_compact", iteration: 1 }]);
    expect(acksOf(harness.acks, harness.scheduledIds[0]!)).toMatchObject([
      { state: "delivered", seam: "post_compact", iteration: 1 },
    ]);
    // pi counts every message of a pass in one number; the bridge counts its notes apart.
    expect(harness.checkpoints.filter((c) => c.inboxDelivered > 0)).toMatchObject([
      { kind: "pre_compact", inboxDelivered: 1, delivered: 0 },
      { kind: "post_compact", inboxDelivered: 1, delivered: 0 },
    ]);
    const first = conversation(harness.server.requests[0]!.messages);
    expect(first.filter((m) => m.text.startsWith("NOTE-"))).toEqual([
      { role: "user", text: "NOTE-EARLY" },
      { role: "user", text: "NOTE-LATE" },
    ]);
  });

  it("pi 1.6 compacts inside a run, before the next request: pre_compact and post_compact bracket it, and a note lands after it", async () => {
    harness = await openBridgeSession({
      persist: true,
      files: { "notes.md": "NOTES" },
      // The tool turn reports 120k prompt tokens of a 128k window (reserve 16k): the next iteration compacts first.
      settings: { compaction: { enabled: true, keepRecentTokens: 1 } },
      script: [
        {
          toolCalls: [{ id: "r1", name: "read", arguments: { path: "notes.md" } }],
          usage: { prompt_tokens: 120_000, completion_tokens: 10 },
        },
        { text: "THE-SUMMARY" },
        { text: "after compaction" },
      ],
      schedule: [{ after: "pre_compact", iteration: 2, input: { content: "NOTE-AROUND-COMPACTION", kind: "note" } }],
    });
    await harness.test.prompt("read the notes");
    const order = harness.test.events.flatMap((e) => {
      if (e.type === "compaction_start" || e.type === "compaction_end") return [e.type];
      if (e.type === "loop_checkpoint" && e.checkpoint.iteration === 2) return [e.checkpoint.kind];
      return [];
    });
    expect(order.slice(0, 5)).toEqual([
      "iteration_start",
      "pre_compact",
      "compaction_start",
      "compaction_end",
      "post_compact",
    ]);
    expect(acksOf(harness.acks, harness.scheduledIds[0]!)).toMatchObject([
      { state: "delivered", seam: "post_compact", iteration: 2 },
    ]);
    // The summary request is the second; the note is in the request after it, after the summary, not summarised.
    expect(harness.server.requests).toHaveLength(3);
    expect(JSON.stringify(harness.server.requests[1]!.body)).not.toContain("NOTE-AROUND-COMPACTION");
    const last = conversation(harness.server.requests[2]!.messages).map((m) => m.text);
    expect(last.findIndex((t) => t.includes("THE-SUMMARY"))).toBeGreaterThan(-1);
    expect(last.at(-1)).toBe("NOTE-AROUND-COMPACTION");
  });

  it("audit_only lands in the session file at loop_exit and is never sent to the model, not even on the next prompt", async () => {
    harness = await openBridgeSession({ script: [{ text: "one" }, { text: "two" }], persist: true });
    const audit = harness.api().inject({ content: "AUDIT-RECORD", mode: "audit_only", kind: "message" });
    await harness.test.prompt("first");
    expect(acksOf(harness.acks, audit.id)).toMatchObject([{ state: "audited", seam: "loop_exit", iteration: 1 }]);
    await harness.test.prompt("second");
    expect(harness.server.requests).toHaveLength(2);
    for (const request of harness.server.requests) expect(JSON.stringify(request.body)).not.toContain("AUDIT-RECORD");
    const entries = harness.test.readSessionEntries() as {
      type: string;
      customType?: string;
      data?: { content?: unknown; seam?: string };
    }[];
    // A custom entry (not a message): pi builds no model request from it.
    const record = entries.find((e) => e.type === "custom" && e.customType === "steering:audit");
    expect(record?.data).toMatchObject({ content: "AUDIT-RECORD", seam: "loop_exit" });
    expect(entries.some((e) => e.type === "custom_message" && e.customType === "steering:audit")).toBe(false);
  });

  it("a reminder reaches the model as a hidden system reminder", async () => {
    harness = await openBridgeSession({ script: [{ text: "ok" }] });
    harness.api().inject({ content: "keep tests green", mode: "finish_step", kind: "reminder", source: "ci" });
    await harness.test.prompt("hi");
    const texts = conversation(harness.server.requests[0]!.messages).map((m) => m.text);
    expect(texts).toContain('<system-reminder source="ci">\nkeep tests green\n</system-reminder>');
    const message = harness.test.session.messages.find(
      (m) => (m as { customType?: string }).customType === "steering:reminder",
    );
    expect(message).toMatchObject({ display: false });
  });

  it("a newer item with the same dedupeKey replaces the pending one: one delivery, the old one acknowledged as replaced", async () => {
    harness = await openBridgeSession({ script: [{ text: "ok" }] });
    const api = harness.api();
    const first = api.inject({ content: "PLAN v1", mode: "finish_step", kind: "message", dedupeKey: "plan" });
    const second = api.inject({ content: "PLAN v2", mode: "finish_step", kind: "message", dedupeKey: "plan" });
    expect(second.replaced).toBe(first.id);
    expect(api.pending().map((i) => i.id)).toEqual([second.id]);
    await harness.test.prompt("hi");
    const body = JSON.stringify(harness.server.requests[0]!.messages);
    expect(body).toContain("PLAN v2");
    expect(body).not.toContain("PLAN v1");
    expect(acksOf(harness.acks, first.id)).toMatchObject([
      { state: "revoked", reason: "replaced", replacedBy: second.id },
    ]);
    expect(acksOf(harness.acks, second.id)).toMatchObject([{ state: "delivered", seam: "iteration_start" }]);
  });

  it("an item past its ttlMs expires undelivered", async () => {
    harness = await openBridgeSession({ script: [{ text: "ok" }] });
    const api = harness.api();
    const stale = api.inject({ content: "STALE", mode: "finish_step", kind: "message", ttlMs: 1 });
    const fresh = api.inject({ content: "FRESH", mode: "finish_step", kind: "message", ttlMs: 60_000 });
    await new Promise((resolve) => setTimeout(resolve, 30));
    await harness.test.prompt("hi");
    const body = JSON.stringify(harness.server.requests[0]!.messages);
    expect(body).not.toContain("STALE");
    expect(body).toContain("FRESH");
    expect(acksOf(harness.acks, stale.id)).toMatchObject([{ state: "expired" }]);
    expect(acksOf(harness.acks, fresh.id)).toMatchObject([{ state: "delivered" }]);
  });

  it("revoke removes a pending item; unknown or missing modes are refused, never defaulted", async () => {
    harness = await openBridgeSession({ script: [{ text: "ok" }] });
    const api = harness.api();
    const item = api.inject({ content: "REVOKED", mode: "finish_step", kind: "message" });
    expect(api.revoke(item.id)).toEqual({ id: item.id, status: "revoked" });
    expect(api.revoke(item.id)).toEqual({ id: item.id, status: "already_settled", state: "revoked" });
    expect(api.revoke("st_nope")).toEqual({ id: "st_nope", status: "unknown" });
    expect(() => api.inject({ content: "x", mode: "wait_for_completion" as never, kind: "message" })).toThrow(
      /mode: must be one of interrupt_immediate, finish_step, audit_only, got "wait_for_completion"/,
    );
    expect(() => api.inject({ content: "x", kind: "message" })).toThrow(/mode: is required/);
    expect(api.pending()).toEqual([]);
    await harness.test.prompt("hi");
    expect(JSON.stringify(harness.server.requests[0]!.messages)).not.toContain("REVOKED");
    expect(acksOf(harness.acks, item.id)).toHaveLength(1);
  });

  it("leftovers at loop_exit: carry stays (persisted), discard and audit settle; the carried item opens the next run", async () => {
    harness = await openBridgeSession({
      script: [{ text: "run one" }, { text: "run two" }],
      persist: true,
      schedule: [
        { after: "iteration_end", iteration: 1, input: { content: "CARRY-ME", mode: "finish_step", kind: "message" } },
        {
          after: "iteration_end",
          iteration: 1,
          input: { content: "DROP-ME", mode: "finish_step", kind: "message", leftover: "discard" },
        },
        {
          after: "iteration_end",
          iteration: 1,
          input: { content: "AUDIT-ME", mode: "interrupt_immediate", kind: "message", leftover: "audit" },
        },
      ],
    });
    await harness.test.prompt("first");
    const [carry, drop, audit] = harness.scheduledIds;
    expect(acksOf(harness.acks, drop!)).toMatchObject([{ state: "discarded" }]);
    expect(acksOf(harness.acks, audit!)).toMatchObject([{ state: "audited", seam: "loop_exit", iteration: 1 }]);
    expect(acksOf(harness.acks, carry!)).toEqual([]);
    expect(
      harness
        .api()
        .pending()
        .map((i) => i.id),
    ).toEqual([carry]);
    const entries = harness.test.readSessionEntries() as {
      type: string;
      customType?: string;
      data?: { items: { id: string }[] };
    }[];
    const snapshot = entries.filter((e) => e.type === "custom" && e.customType === "steering:queue").at(-1);
    expect(snapshot?.data?.items.map((i) => i.id)).toEqual([carry]);

    await harness.test.prompt("second");
    expect(acksOf(harness.acks, carry!)).toMatchObject([{ state: "delivered", seam: "iteration_start", iteration: 1 }]);
    const body = JSON.stringify(harness.server.requests[1]!.messages);
    expect(body).toContain("CARRY-ME");
    expect(body).not.toContain("DROP-ME");
    expect(body).not.toContain("AUDIT-ME");
    const later = harness.test.readSessionEntries() as {
      type: string;
      customType?: string;
      data?: { items: unknown[] };
    }[];
    expect(later.filter((e) => e.customType === "steering:queue").at(-1)?.data?.items).toEqual([]);
  });

  it("other extensions queue through pi.events and hear about refusals, acks and seam passes", async () => {
    harness = await openBridgeSession({ script: [{ text: "ok" }] });
    const events = harness.events();
    const rejected: unknown[] = [];
    const seams: string[] = [];
    events.on("pi-rails:steering:rejected", (data) => rejected.push(data));
    events.on("pi-rails:steering:checkpoint", (data) => seams.push((data as { kind: string }).kind));
    events.emit("pi-rails:steering:inject", {
      content: "FROM-ANOTHER-EXTENSION",
      mode: "finish_step",
      kind: "message",
    });
    events.emit("pi-rails:steering:inject", { content: "x", mode: "whenever", kind: "message" });
    expect(rejected).toMatchObject([{ error: expect.stringMatching(/^mode: must be one of interrupt_immediate/) }]);
    await harness.test.prompt("hi");
    expect(JSON.stringify(harness.server.requests[0]!.messages)).toContain("FROM-ANOTHER-EXTENSION");
    expect(harness.acks).toMatchObject([{ state: "delivered", seam: "iteration_start" }]);
    expect(seams).toEqual(harness.checkpoints.map((c) => c.kind));
    const entries = harness.test.session.messages.filter(
      (m) => (m as { customType?: string }).customType === "steering:message",
    );
    expect(entries).toMatchObject([{ details: { source: "extension", seam: "iteration_start", iteration: 1 } }]);
  });

  it("items still pending when the session ends are persisted for a resume (audit ones written, discard ones dropped)", async () => {
    harness = await openBridgeSession({ script: [{ text: "ok" }], persist: true });
    await harness.test.prompt("hi");
    const api = harness.api();
    const keep = api.inject({ content: "WAITING-FOR-NEXT-RUN", mode: "finish_step", kind: "message" });
    const drop = api.inject({ content: "DROP", mode: "finish_step", kind: "message", leftover: "discard" });
    const audit = api.inject({ content: "AUDIT-AT-SHUTDOWN", mode: "audit_only", kind: "message" });
    await harness.test.dispose();
    const entries = harness.shutdownEntries as {
      type: string;
      customType?: string;
      data?: { items?: { id: string }[]; content?: string };
    }[];
    const snapshot = entries.filter((e) => e.customType === "steering:queue").at(-1);
    expect(snapshot?.data?.items?.map((i) => i.id)).toEqual([keep.id]);
    // The documented record, at shutdown as at a seam.
    expect(entries.find((e) => e.customType === "steering:audit")?.data).toEqual({
      id: audit.id,
      kind: "message",
      mode: "audit_only",
      source: "unknown",
      seam: "shutdown",
      iteration: 0,
      content: "AUDIT-AT-SHUTDOWN",
    });
    expect(acksOf(harness.acks, drop.id)).toMatchObject([{ state: "discarded" }]);
    expect(acksOf(harness.acks, audit.id)).toMatchObject([{ state: "audited", seam: "shutdown" }]);
    expect(acksOf(harness.acks, keep.id)).toEqual([]);
  });
});
