import { describe, expect, it } from "vitest";
import type { AgentToolCall, LoopCheckpoint } from "../index.ts";
import { CheckpointRegistry } from "./checkpoint-registry.ts";

const call: AgentToolCall = { type: "toolCall", id: "c1", name: "bash", arguments: {} };
const message = (text: string) => ({ role: "user" as const, content: [{ type: "text" as const, text }], timestamp: 0 });
const texts = (messages: readonly unknown[]) =>
  messages.map((m) => ((m as { content: { text: string }[] }).content[0] as { text: string }).text);

describe("CheckpointRegistry", () => {
  it("drains bridge modes in catalog order, then the inbox, and emits one record per pass", async () => {
    const registry = new CheckpointRegistry();
    registry.registerDrainSource({
      name: "bridge",
      channel: "bridge",
      drain: ({ mode }) => [{ message: message(`bridge:${mode}`), mode: mode! }],
    });
    registry.registerDrainSource({ name: "inbox", channel: "inbox", drain: () => [{ message: message("inbox") }] });
    const records: LoopCheckpoint[] = [];
    registry.registerCheckpointHook("*", (record) => {
      records.push(record);
    });
    const start = await registry.checkpoint("iteration_start", { iteration: 4 });
    expect(start).toEqual({ messages: expect.any(Array), skipToolDispatch: false });
    expect(texts(start.messages)).toEqual(["bridge:interrupt_immediate", "bridge:finish_step"]);
    const compact = await registry.checkpoint("pre_compact", { iteration: 4 });
    expect(texts(compact.messages)).toEqual(["inbox"]);
    expect(records).toEqual([
      { iteration: 4, kind: "iteration_start", delivered: 2, dispatchSkipped: false },
      { iteration: 4, kind: "pre_compact", delivered: 1, dispatchSkipped: false },
    ]);
  });

  it("skips the tool batch only at pre_tool_dispatch with calls pending", async () => {
    const registry = new CheckpointRegistry();
    registry.registerDrainSource({ name: "b", channel: "bridge", drain: () => [{ message: message("stop") }] });
    const withCalls = await registry.checkpoint("pre_tool_dispatch", { iteration: 1, toolCalls: [call] });
    expect(withCalls).toMatchObject({ skipToolDispatch: true, skipReason: "interrupt_immediate" });
    const without = await registry.checkpoint("pre_tool_dispatch", { iteration: 1, toolCalls: [] });
    expect(without.skipToolDispatch).toBe(false);
    expect(without.messages).toHaveLength(1);
    const elsewhere = await registry.checkpoint("post_tool_dispatch", { iteration: 1, toolCalls: [call] });
    expect(elsewhere.skipToolDispatch).toBe(false);
  });

  it("keeps going when an observer throws, and reports it", async () => {
    const errors: unknown[] = [];
    const registry = new CheckpointRegistry({ onObserverError: (error) => errors.push(error) });
    const later: string[] = [];
    registry.registerCheckpointHook("loop_exit", () => {
      throw new Error("observer broke");
    });
    registry.registerCheckpointHook(["loop_exit"], (record) => {
      later.push(record.kind);
    });
    await registry.checkpoint("loop_exit", { iteration: 2 });
    expect(later).toEqual(["loop_exit"]);
    expect(String(errors[0])).toContain("observer broke");
  });

  it("drains far more items than a call may take arguments", async () => {
    const registry = new CheckpointRegistry();
    const many = Array.from({ length: 200_000 }, () => ({ message: message("m") }));
    registry.registerDrainSource({
      name: "bulk",
      channel: "bridge",
      drain: ({ mode }) => (mode === "finish_step" ? many : []),
    });
    const records: LoopCheckpoint[] = [];
    registry.registerCheckpointHook("iteration_start", (record) => {
      records.push(record);
    });
    const pass = await registry.checkpoint("iteration_start", { iteration: 1 });
    expect(pass.messages).toHaveLength(200_000);
    expect(records[0]?.delivered).toBe(200_000);
  });

  it("unregisters sources and hooks", async () => {
    const registry = new CheckpointRegistry();
    const off = registry.registerDrainSource({
      name: "b",
      channel: "bridge",
      drain: () => [{ message: message("x") }],
    });
    const seen: string[] = [];
    const unhook = registry.registerCheckpointHook("*", (record) => {
      seen.push(record.kind);
    });
    off();
    unhook();
    const pass = await registry.checkpoint("iteration_start", { iteration: 1 });
    expect(pass.messages).toHaveLength(0);
    expect(seen).toHaveLength(0);
  });
});
