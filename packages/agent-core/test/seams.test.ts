import type { TranscriptContext as Context } from "@earendil-works/pi-ai";
import { fauxToolCall } from "@earendil-works/pi-ai";
import { afterEach, describe, expect, it } from "vitest";
import {
  Agent,
  type AgentMessage,
  type AgentTool,
  CheckpointRegistry,
  type Delivery,
  LOOP_SEAMS,
  type LoopCheckpoint,
} from "../src/index.ts";
import {
  conversation,
  fauxAssistantMessage,
  fauxProvider,
  recordEvents,
  streamFn,
  stringsSchema,
  textOf,
} from "./helpers.ts";

const registrations: { unregister(): void }[] = [];
afterEach(() => {
  for (const registration of registrations.splice(0)) registration.unregister();
});

function counterTool(name: string) {
  const calls: unknown[] = [];
  const tool: AgentTool = {
    name,
    label: name,
    description: `${name} tool`,
    parameters: stringsSchema("target"),
    execute: async (_id, params) => {
      calls.push(params);
      return { content: [{ type: "text", text: `${name} ran` }], details: {} };
    },
  };
  return { tool, calls };
}

function note(text: string): AgentMessage {
  return { role: "user", content: [{ type: "text", text }], timestamp: Date.now() };
}

describe("loop seams", () => {
  it("fire in catalog order with 1-based iteration numbers", async () => {
    const faux = fauxProvider();
    registrations.push(faux);
    faux.setResponses([
      fauxAssistantMessage([fauxToolCall("probe", { target: "a" }, { id: "c1" })], { stopReason: "toolUse" }),
      fauxAssistantMessage("all done"),
    ]);
    const { tool } = counterTool("probe");
    const registry = new CheckpointRegistry();
    const seen: LoopCheckpoint[] = [];
    registry.registerCheckpointHook("*", (checkpoint) => {
      seen.push(checkpoint);
    });
    const agent = new Agent({
      streamFn,
      initialState: { model: faux.getModel(), systemPrompt: "sys", tools: [tool] },
      hooks: {
        checkpoint: registry.loopHook,
      },
    });
    const events = recordEvents(agent);
    await agent.prompt("go");

    expect(seen.map((checkpoint) => `${checkpoint.iteration}:${checkpoint.kind}`)).toEqual([
      "1:iteration_start",
      "1:pre_compact",
      "1:post_compact",
      "1:pre_tool_dispatch",
      "1:post_tool_dispatch",
      "2:iteration_start",
      "2:pre_compact",
      "2:post_compact",
      "2:pre_tool_dispatch",
      "2:iteration_end",
      "2:loop_exit",
    ]);
    for (const iteration of [1, 2]) {
      const order = seen.filter((c) => c.iteration === iteration).map((c) => LOOP_SEAMS.indexOf(c.kind));
      expect(order).toEqual([...order].sort((a, b) => a - b));
    }
    // Each pass is also an agent event, so hosts (pi's AgentSession) can forward it.
    const forwarded = events.filter((event) => event.type === "loop_checkpoint");
    expect(forwarded).toHaveLength(seen.length);
    expect(seen.every((c) => c.delivered === 0 && !c.dispatchSkipped)).toBe(true);
  });

  it("a pre_tool_dispatch interrupt skips the batch, pairs placeholders, and the next request sees the delivery", async () => {
    const faux = fauxProvider();
    registrations.push(faux);
    const contexts: Context[] = [];
    faux.setResponses([
      fauxAssistantMessage(
        [
          fauxToolCall("push", { target: "origin" }, { id: "c1" }),
          fauxToolCall("push", { target: "backup" }, { id: "c2" }),
        ],
        { stopReason: "toolUse" },
      ),
      (context) => {
        contexts.push(JSON.parse(JSON.stringify({ messages: conversation(context.messages) })));
        return fauxAssistantMessage("understood, not pushing");
      },
    ]);
    const { tool, calls } = counterTool("push");
    const queue: Delivery[] = [{ message: note("STOP: do not push"), mode: "interrupt_immediate" }];
    const registry = new CheckpointRegistry();
    registry.registerDrainSource({
      name: "test-bridge",
      channel: "bridge",
      drain: ({ kind, mode }) =>
        kind === "pre_tool_dispatch" && mode === "interrupt_immediate" ? queue.splice(0) : [],
    });
    const seen: LoopCheckpoint[] = [];
    registry.registerCheckpointHook(["pre_tool_dispatch"], (checkpoint) => {
      seen.push(checkpoint);
    });
    const agent = new Agent({
      streamFn,
      initialState: { model: faux.getModel(), systemPrompt: "sys", tools: [tool] },
      hooks: {
        checkpoint: registry.loopHook,
      },
    });
    const events = recordEvents(agent);
    await agent.prompt("push it");

    expect(calls).toHaveLength(0);
    // Each skipped call ends as pi 1.6 ends the calls of a truncated message: an error result, never run.
    const ends = events.flatMap((event) => (event.type === "tool_execution_end" ? [event] : []));
    expect(ends.map((end) => [end.toolCallId, end.isError])).toEqual([
      ["c1", true],
      ["c2", true],
    ]);
    const results = conversation(agent.state.messages).filter((message) => message.role === "toolResult");
    expect(results.map((result) => (result as { toolCallId: string }).toolCallId)).toEqual(["c1", "c2"]);
    expect(textOf(results[0])).toBe("Tool call push was not dispatched: interrupt_immediate");

    const forwarded = events.find((event) => event.type === "loop_checkpoint" && event.checkpoint.dispatchSkipped);
    expect(forwarded).toMatchObject({ checkpoint: { iteration: 1, kind: "pre_tool_dispatch", delivered: 1 } });
    expect(results[0]).toMatchObject({ details: { dispatchSkipped: true, skipReason: "interrupt_immediate" } });
    expect(seen[0]).toMatchObject({ iteration: 1, delivered: 1, dispatchSkipped: true });
    expect(seen[1]).toMatchObject({ iteration: 2, delivered: 0, dispatchSkipped: false });

    // The next request: assistant tool calls, both placeholders, then the interrupt, in that order.
    const roles = contexts[0]!.messages.map((message) => message.role);
    expect(roles).toEqual(["user", "assistant", "toolResult", "toolResult", "user"]);
    expect(textOf(contexts[0]!.messages[4])).toBe("STOP: do not push");
    // Usage of the skipped turn is still recorded on its assistant message.
    const skippedTurn = conversation(agent.state.messages)[1] as { role: string; usage: { output: number } };
    expect(skippedTurn.role).toBe("assistant");
    expect(skippedTurn.usage.output).toBeGreaterThan(0);
    expect(textOf(conversation(agent.state.messages).at(-1))).toBe("understood, not pushing");
  });

  it("pre_tool_dispatch fires without tool calls, and a late interrupt forces one more iteration", async () => {
    const faux = fauxProvider();
    registrations.push(faux);
    faux.setResponses([fauxAssistantMessage("first answer"), fauxAssistantMessage("second answer")]);
    const queue: Delivery[] = [{ message: note("one more thing"), mode: "interrupt_immediate" }];
    const registry = new CheckpointRegistry();
    registry.registerDrainSource({
      name: "late",
      channel: "bridge",
      drain: ({ kind }) => (kind === "pre_tool_dispatch" ? queue.splice(0) : []),
    });
    const agent = new Agent({
      streamFn,
      initialState: { model: faux.getModel(), systemPrompt: "sys" },
      hooks: {
        checkpoint: registry.loopHook,
      },
    });
    await agent.prompt("hello");
    expect(conversation(agent.state.messages).map((message) => textOf(message))).toEqual([
      "hello",
      "first answer",
      "one more thing",
      "second answer",
    ]);
  });

  it("inbox sources drain only at the compaction seams, bridge modes at theirs", async () => {
    const faux = fauxProvider();
    registrations.push(faux);
    faux.setResponses([fauxAssistantMessage("ok")]);
    const asked: string[] = [];
    const registry = new CheckpointRegistry();
    registry.registerDrainSource({
      name: "inbox",
      channel: "inbox",
      drain: ({ kind }) => {
        asked.push(`inbox@${kind}`);
        return kind === "pre_compact" && !asked.includes("delivered") ? [{ message: note("feedback note") }] : [];
      },
    });
    registry.registerDrainSource({
      name: "bridge",
      channel: "bridge",
      drain: ({ kind, mode }) => {
        asked.push(`${mode}@${kind}`);
        return [];
      },
    });
    const records: LoopCheckpoint[] = [];
    registry.registerCheckpointHook("pre_compact", (checkpoint) => {
      records.push(checkpoint);
    });
    const agent = new Agent({
      streamFn,
      initialState: { model: faux.getModel(), systemPrompt: "sys" },
      hooks: {
        checkpoint: registry.loopHook,
      },
    });
    await agent.prompt("hello");
    expect(asked).toEqual([
      "interrupt_immediate@iteration_start",
      "finish_step@iteration_start",
      "inbox@pre_compact",
      "inbox@post_compact",
      "interrupt_immediate@pre_tool_dispatch",
      "interrupt_immediate@iteration_end",
      "finish_step@iteration_end",
      "audit_only@loop_exit",
    ]);
    expect(records[0]).toMatchObject({ kind: "pre_compact", delivered: 1 });
    expect(conversation(agent.state.messages).map((message) => textOf(message))).toEqual([
      "hello",
      "feedback note",
      "ok",
    ]);
  });

  it("an iteration_end delivery continues the run instead of finishing it", async () => {
    const faux = fauxProvider();
    registrations.push(faux);
    faux.setResponses([fauxAssistantMessage("draft"), fauxAssistantMessage("revised")]);
    const queue: Delivery[] = [{ message: note("please revise"), mode: "finish_step" }];
    const registry = new CheckpointRegistry();
    registry.registerDrainSource({
      name: "reviewer",
      channel: "bridge",
      drain: ({ kind, mode }) => (kind === "iteration_end" && mode === "finish_step" ? queue.splice(0) : []),
    });
    const agent = new Agent({
      streamFn,
      initialState: { model: faux.getModel(), systemPrompt: "sys" },
      hooks: {
        checkpoint: registry.loopHook,
      },
    });
    await agent.prompt("write");
    expect(conversation(agent.state.messages).map((message) => textOf(message))).toEqual([
      "write",
      "draft",
      "please revise",
      "revised",
    ]);
  });
});
