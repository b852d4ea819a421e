import type { TranscriptContext as Context } from "@earendil-works/pi-ai";
import { fauxToolCall } from "@earendil-works/pi-ai";
import { afterEach, describe, expect, it } from "vitest";
import {
  Agent,
  type AgentTool,
  type AgentToolResult,
  CANCEL_REMINDER_TYPE,
  type CancelToolCallResult,
  describeCancelledCall,
  isCancelledByHost,
  type ToolCallCancellation,
  ToolCallRegistry,
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

const empty = stringsSchema();
const ok = (text: string): AgentToolResult<{ ok: true }> => ({
  content: [{ type: "text", text }],
  details: { ok: true },
});

/** A tool that runs until its signal aborts (then rejects, as pi's bash does), and reports each start. */
function waitingTool(name: string) {
  const started: string[] = [];
  const signals: AbortSignal[] = [];
  let onStart: (id: string) => void = () => {};
  const tool: AgentTool = {
    name,
    label: name,
    description: name,
    parameters: empty,
    execute: (id, _params, signal) =>
      new Promise((_resolve, reject) => {
        started.push(id);
        signals.push(signal!);
        signal!.addEventListener("abort", () => reject(new Error("aborted")), { once: true });
        onStart(id);
      }),
  };
  const nextStart = () =>
    new Promise<string>((resolve) => {
      onStart = resolve;
    });
  return { tool, started, signals, nextStart };
}

/** A tool that ignores its signal and only settles when the test releases it. */
function stubbornTool(name: string) {
  let release: (value: AgentToolResult<unknown>) => void = () => {};
  let onStart: () => void = () => {};
  const startedPromise = new Promise<void>((resolve) => {
    onStart = resolve;
  });
  const tool: AgentTool = {
    name,
    label: name,
    description: name,
    parameters: empty,
    execute: () =>
      new Promise((resolve) => {
        release = resolve;
        onStart();
      }),
  };
  return { tool, started: startedPromise, release: (text: string) => release(ok(text)) };
}

function quickTool(name: string): AgentTool {
  return { name, label: name, description: name, parameters: empty, execute: async () => ok(`${name} done`) };
}

function setup(tools: AgentTool[], calls: { name: string; id: string }[], options: { sequential?: boolean } = {}) {
  const faux = fauxProvider();
  registrations.push(faux);
  const contexts: Context[] = [];
  faux.setResponses([
    fauxAssistantMessage(
      calls.map((call) => fauxToolCall(call.name, {}, { id: call.id })),
      { stopReason: "toolUse" },
    ),
    (context) => {
      contexts.push(JSON.parse(JSON.stringify({ messages: conversation(context.messages) })));
      return fauxAssistantMessage("understood");
    },
  ]);
  const agent = new Agent({
    streamFn,
    initialState: { model: faux.getModel(), systemPrompt: "sys", tools },
    ...(options.sequential ? { toolExecution: "sequential" as const } : {}),
  });
  return { agent, contexts, faux };
}

describe("cancelToolCall on the bundled loop", () => {
  it("cancels one call in flight: the model sees it cancelled by the host, the batch and the run go on", async () => {
    const waiting = waitingTool("wait");
    const { agent, contexts } = setup(
      [waiting.tool, quickTool("quick")],
      [
        { name: "wait", id: "w1" },
        { name: "quick", id: "q1" },
      ],
    );
    const events = recordEvents(agent);
    const startedCall = waiting.nextStart();
    const run = agent.prompt("go");
    expect(await startedCall).toBe("w1");

    expect(agent.getToolCallsInFlight()).toContainEqual({ callId: "w1", tool: "wait", startedAt: expect.any(Number) });
    const result = await agent.cancelToolCall("w1", { reason: "user clicked stop" });
    expect(result).toEqual({ status: "cancelled", callId: "w1", tool: "wait", reason: "user clicked stop" });
    // Only the call's own signal was aborted, not the run's.
    expect(waiting.signals[0]!.aborted).toBe(true);
    expect(agent.signal?.aborted ?? false).toBe(false);
    await run;

    // The next request: both results paired with their calls, then the reminder.
    const next = contexts[0]!.messages;
    expect(next.map((message) => message.role)).toEqual(["user", "assistant", "toolResult", "toolResult", "user"]);
    const cancelled = next[2] as { toolCallId: string; isError: boolean };
    expect(cancelled).toMatchObject({ toolCallId: "w1", isError: false });
    expect(textOf(cancelled)).toBe("Tool call w1 (wait) was cancelled by the host: user clicked stop");
    expect(next[3]).toMatchObject({ toolCallId: "q1", isError: false });
    expect(textOf(next[3])).toBe("quick done");
    expect(textOf(next[4])).toContain("cancelled tool call w1 (wait) while it ran: user clicked stop");

    const stored = conversation(agent.state.messages).find(
      (message) => message.role === "toolResult" && message.toolCallId === "w1",
    ) as { details: unknown };
    expect(stored.details).toEqual({ cancelled: { byHost: true, reason: "user clicked stop" } });
    expect(isCancelledByHost(stored.details)).toBe(true);
    const end = events.find((event) => event.type === "tool_execution_end" && event.toolCallId === "w1");
    expect(end).toMatchObject({ isError: false });
    expect(textOf(conversation(agent.state.messages).at(-1))).toBe("understood");
    expect(agent.getToolCallsInFlight()).toEqual([]);
  });

  it("answers not_found for unknown and finished calls, already_cancelled for a second cancel", async () => {
    const waiting = waitingTool("wait");
    const { agent } = setup(
      [waiting.tool, quickTool("quick")],
      [
        { name: "quick", id: "q1" },
        { name: "wait", id: "w1" },
      ],
      { sequential: true },
    );
    const startedCall = waiting.nextStart();
    const run = agent.prompt("go");
    await startedCall;
    // q1 ran before w1 in this sequential batch: it is finished.
    expect(await agent.cancelToolCall("q1")).toEqual({
      status: "not_found",
      callId: "q1",
      reason: "cancelled by the host",
    });
    expect(await agent.cancelToolCall("nope", { reason: "r" })).toEqual({
      status: "not_found",
      callId: "nope",
      reason: "r",
    });
    const [first, second] = await Promise.all([
      agent.cancelToolCall("w1", { reason: "first" }),
      agent.cancelToolCall("w1", { reason: "second" }),
    ]);
    expect(first.status).toBe("cancelled");
    expect(second).toEqual({ status: "already_cancelled", callId: "w1", tool: "wait", reason: "first" });
    await run;
    // Still remembered after the call ended.
    expect((await agent.cancelToolCall("w1")).status).toBe("already_cancelled");
  });

  it("times out on a tool that ignores its signal, and the loop goes on without it", async () => {
    const stubborn = stubbornTool("stubborn");
    const { agent, contexts } = setup([stubborn.tool], [{ name: "stubborn", id: "s1" }]);
    const events = recordEvents(agent);
    const run = agent.prompt("go");
    await stubborn.started;
    const result = await agent.cancelToolCall("s1", { reason: "too slow", timeoutMs: 50 });
    expect(result).toEqual({ status: "timeout", callId: "s1", tool: "stubborn", reason: "too slow" });
    await run;
    expect(textOf(contexts[0]!.messages[2])).toBe("Tool call s1 (stubborn) was cancelled by the host: too slow");
    expect(textOf(conversation(agent.state.messages).at(-1))).toBe("understood");

    // The tool settling late changes nothing.
    const seen = events.length;
    stubborn.release("late result");
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(events.length).toBe(seen);
    expect(JSON.stringify(conversation(agent.state.messages))).not.toContain("late result");
  });

  it("sends no reminder when injectReminder is false", async () => {
    const waiting = waitingTool("wait");
    const { agent, contexts } = setup([waiting.tool], [{ name: "wait", id: "w1" }]);
    const startedCall = waiting.nextStart();
    const run = agent.prompt("go");
    await startedCall;
    await agent.cancelToolCall("w1", { injectReminder: false });
    await run;
    expect(contexts[0]!.messages.map((message) => message.role)).toEqual(["user", "assistant", "toolResult"]);
    // No reason given: the text does not repeat "cancelled by the host".
    expect(textOf(contexts[0]!.messages[2])).toBe("Tool call w1 (wait) was cancelled by the host");
  });

  it("words the result and the reminder with the caller's describe", async () => {
    const waiting = waitingTool("wait");
    const { agent, contexts } = setup([waiting.tool], [{ name: "wait", id: "w1" }]);
    const startedCall = waiting.nextStart();
    const run = agent.prompt("go");
    await startedCall;
    await agent.cancelToolCall("w1", {
      reason: "why",
      describe: ({ callId, tool, reason }) => ({
        result: `STOPPED ${callId}`,
        reminder: `REMINDER ${callId}/${tool}/${reason}`,
        customType: "mine",
      }),
    });
    await run;
    expect(textOf(contexts[0]!.messages[2])).toBe("STOPPED w1");
    expect(textOf(contexts[0]!.messages[3])).toBe("REMINDER w1/wait/why");
  });

  it("aborting the run aborts every call's own signal", async () => {
    const waiting = waitingTool("wait");
    const { agent } = setup(
      [waiting.tool],
      [
        { name: "wait", id: "w1" },
        { name: "wait", id: "w2" },
      ],
    );
    const run = agent.prompt("go");
    while (waiting.started.length < 2) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(waiting.signals[0]).not.toBe(waiting.signals[1]);
    agent.abort();
    await run;
    expect(waiting.signals.every((signal) => signal.aborted)).toBe(true);
    expect(agent.getToolCallsInFlight()).toEqual([]);
  });
});

describe("a provider that reuses call ids across turns (issue 24)", () => {
  it("cancels the second turn's call_0 after the first turn's call_0 was cancelled", async () => {
    const waiting = waitingTool("wait");
    const faux = fauxProvider();
    registrations.push(faux);
    const contexts: Context[] = [];
    const callTurn = () =>
      fauxAssistantMessage([fauxToolCall("wait", {}, { id: "call_0" })], { stopReason: "toolUse" });
    const answer = (text: string) => (context: Context) => {
      contexts.push(JSON.parse(JSON.stringify({ messages: conversation(context.messages) })));
      return fauxAssistantMessage(text);
    };
    faux.setResponses([callTurn(), answer("one"), callTurn(), answer("two")]);
    const agent = new Agent({
      streamFn,
      initialState: { model: faux.getModel(), systemPrompt: "sys", tools: [waiting.tool] },
    });

    for (const [turn, reason] of [
      [1, "first turn"],
      [2, "second turn"],
    ] as const) {
      const started = waiting.nextStart();
      const run = agent.prompt(`go ${turn}`);
      expect(await started).toBe("call_0");
      const result = await agent.cancelToolCall("call_0", { reason });
      expect(result).toEqual({ status: "cancelled", callId: "call_0", tool: "wait", reason });
      expect(waiting.signals[turn - 1]!.aborted).toBe(true);
      await run;
      const sent = contexts[turn - 1]!.messages;
      expect(textOf(sent.at(-2))).toBe(`Tool call call_0 (wait) was cancelled by the host: ${reason}`);
      expect(textOf(sent.at(-1))).toContain(`cancelled tool call call_0 (wait) while it ran: ${reason}`);
    }
    expect(textOf(conversation(agent.state.messages).at(-1))).toBe("two");
    // The last call under the id was cancelled, and it has ended.
    expect(await agent.cancelToolCall("call_0")).toMatchObject({ status: "already_cancelled", reason: "second turn" });
  });
});

describe("the host's wording (issue 21)", () => {
  it("describeCancelledCall: on a Responses id the model is sent call_… only, in the result and the reminder", async () => {
    const waiting = waitingTool("wait");
    const { agent, contexts } = setup([waiting.tool], [{ name: "wait", id: "call_abc|fc_123" }]);
    const started = waiting.nextStart();
    const run = agent.prompt("go");
    await started;
    const result = await agent.cancelToolCall("call_abc|fc_123", { reason: "stop", describe: describeCancelledCall });
    expect(result.status).toBe("cancelled");
    await run;
    const sent = contexts[0]!.messages;
    expect(sent.map((message) => message.role)).toEqual(["user", "assistant", "toolResult", "user"]);
    expect(textOf(sent[2])).toBe("Tool call call_abc (wait) was cancelled by the host: stop");
    expect(textOf(sent[3])).toContain("The host cancelled tool call call_abc (wait) while it ran: stop.");
    expect(JSON.stringify([textOf(sent[2]), sent[3]])).not.toContain("fc_123");
  });
});

describe("many calls at once", () => {
  it("a parallel batch of 20 calls adds one listener to the run's signal, not one per call", async () => {
    const calls = Array.from({ length: 20 }, (_, i) => ({ name: "quick", id: `q${i}` }));
    const { agent, contexts } = setup([quickTool("quick")], calls);
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on("warning", onWarning);
    try {
      await agent.prompt("go");
      await new Promise((resolve) => setTimeout(resolve, 20));
    } finally {
      process.off("warning", onWarning);
    }
    expect(warnings.map((warning) => warning.name)).not.toContain("MaxListenersExceededWarning");
    expect(contexts[0]!.messages.filter((message) => message.role === "toolResult")).toHaveLength(20);
  });
});

describe("ToolCallRegistry", () => {
  const reminders: ToolCallCancellation[] = [];
  const newRegistry = () => {
    reminders.length = 0;
    return new ToolCallRegistry({ describe: describeCancelledCall, onReminder: (c) => reminders.push(c) });
  };
  const run = (
    registry: ToolCallRegistry,
    id: string,
    runSignal: AbortSignal | undefined,
    tool: AgentTool["execute"],
  ) => registry.wrap({ ...quickTool("t"), execute: tool }).execute(id, {}, runSignal);

  it("runs a call on its own signal linked to the run's", async () => {
    const registry = newRegistry();
    const runController = new AbortController();
    let seen: AbortSignal | undefined;
    const result = await run(registry, "a", runController.signal, async (_id, _args, signal) => {
      seen = signal;
      expect(registry.inFlight()).toEqual([{ callId: "a", tool: "t", startedAt: expect.any(Number) }]);
      return ok("fine");
    });
    expect(result).toEqual(ok("fine"));
    expect(seen).not.toBe(runController.signal);
    expect(registry.inFlight()).toEqual([]);

    let inner: AbortSignal | undefined;
    const pending = run(registry, "b", runController.signal, (_id, _args, signal) => {
      inner = signal;
      return new Promise<AgentToolResult<unknown>>((_resolve, reject) =>
        signal!.addEventListener("abort", () => reject(signal!.reason)),
      );
    });
    runController.abort(new Error("run aborted"));
    await expect(pending).rejects.toThrow("run aborted");
    expect(inner?.aborted).toBe(true);
  });

  it("passes tool errors through, and turns an error after a cancel into the cancelled result", async () => {
    const registry = newRegistry();
    await expect(
      run(registry, "e", undefined, async () => {
        throw new Error("tool failed");
      }),
    ).rejects.toThrow("tool failed");
    await expect(
      run(registry, "s", undefined, () => {
        throw new Error("sync failure");
      }),
    ).rejects.toThrow("sync failure");

    const pending = run(registry, "c", undefined, (_id, _args, signal) => {
      return new Promise<AgentToolResult<unknown>>((_resolve, reject) =>
        signal!.addEventListener("abort", () => reject(new Error("aborted"))),
      );
    });
    const answer: CancelToolCallResult = await registry.cancel("c", {
      reason: "stop",
      describe: describeCancelledCall,
    });
    expect(answer).toEqual({ status: "cancelled", callId: "c", tool: "t", reason: "stop" });
    const result = await pending;
    expect(result.details).toEqual({ cancelled: { byHost: true, reason: "stop" } });
    expect(reminders).toEqual([
      {
        callId: "c",
        tool: "t",
        reason: "stop",
        reminderText: describeCancelledCall({ callId: "c", tool: "t", reason: "stop" }).reminder,
        customType: CANCEL_REMINDER_TYPE,
      },
    ]);
  });

  it("a call that finishes normally while being cancelled still returns as cancelled", async () => {
    const registry = newRegistry();
    let finish: (value: AgentToolResult<unknown>) => void = () => {};
    const pending = run(
      registry,
      "f",
      undefined,
      () =>
        new Promise<AgentToolResult<unknown>>((resolve) => {
          finish = resolve;
        }),
    );
    const answer = registry.cancel("f", { timeoutMs: 10_000, describe: describeCancelledCall });
    finish(ok("done anyway"));
    expect((await answer).status).toBe("cancelled");
    expect(isCancelledByHost((await pending).details)).toBe(true);
  });
});
