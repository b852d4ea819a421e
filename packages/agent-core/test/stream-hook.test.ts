import type { TranscriptContext as Context } from "@earendil-works/pi-ai";
import { fauxToolCall, parseStreamingJson } from "@earendil-works/pi-ai";
import { afterEach, describe, expect, it } from "vitest";
import { Agent, type AgentTool, type StreamTextEvent, streamRetry } from "../src/index.ts";
import {
  conversation,
  countingStream,
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

function setup(options: { tokensPerSecond?: number } = {}) {
  const faux = fauxProvider(options);
  registrations.push(faux);
  const contexts: Context[] = [];
  const capture = (answer: string) => (context: Context) => {
    contexts.push(JSON.parse(JSON.stringify({ messages: conversation(context.messages) })));
    return fauxAssistantMessage(answer);
  };
  return { faux, contexts, capture };
}

const VIOLATION = "Sure. I will call legacyFetch() here and then explain it at some length afterwards.";

describe("stream hook: abort, inject, retry", () => {
  it("stops reading the request at the delta that completes the match", async () => {
    const { faux, capture } = setup();
    faux.setResponses([capture(VIOLATION), capture("Use fetchV2() instead.")]);
    const counting = countingStream();
    const seen: StreamTextEvent[] = [];
    const agent = new Agent({
      initialState: { model: faux.getModel(), systemPrompt: "sys" },
      streamFn: counting.streamFn,
      hooks: {
        onStreamText: (event) => {
          seen.push({ ...event });
          if (event.accumulated.includes("legacyFetch("))
            return { abort: true, retry: streamRetry("Rule: no legacyFetch") };
          return undefined;
        },
      },
    });
    await agent.prompt("hi");

    const firstAttempt = seen.filter((event) => event.attempt === 0);
    const last = firstAttempt.at(-1)!;
    expect(last.accumulated).toContain("legacyFetch(");
    expect(last.accumulated.slice(0, -last.chunk.length)).not.toContain("legacyFetch(");
    // The loop read exactly the deltas the hook saw, none after the match, though the response had more.
    expect(counting.requests[0]!.consumed).toBe(firstAttempt.length);
    expect(firstAttempt.length).toBeLessThan(Math.ceil(VIOLATION.length / 4));
    expect(counting.requests).toHaveLength(2);
  });

  it("drops the partial, puts the injected message in the next request, and keeps the retried answer", async () => {
    const { faux, contexts, capture } = setup();
    faux.setResponses([capture(VIOLATION), capture("Use fetchV2() instead.")]);
    const agent = new Agent({
      streamFn,
      initialState: { model: faux.getModel(), systemPrompt: "sys" },
      hooks: {
        onStreamText: (event) =>
          event.accumulated.includes("legacyFetch(")
            ? { abort: true, retry: streamRetry("Rule: never call legacyFetch()") }
            : undefined,
      },
    });
    const events = recordEvents(agent);
    const updateTexts: string[] = [];
    agent.subscribe((event) => {
      const delta = event.type === "message_update" ? event.assistantMessageEvent : undefined;
      if (delta?.type === "text_delta") updateTexts.push(delta.delta);
    });
    await agent.prompt("hi");

    const retried = contexts[1]!;
    expect(retried.messages.map((message) => message.role)).toEqual(["user", "user"]);
    expect(textOf(retried.messages[1])).toBe("Rule: never call legacyFetch()");
    expect(JSON.stringify(retried.messages)).not.toContain("legacyFetch() here");

    expect(conversation(agent.state.messages).map((message) => message.role)).toEqual(["user", "user", "assistant"]);
    const final = conversation(agent.state.messages).at(-1)!;
    expect(textOf(final)).toBe("Use fetchV2() instead.");
    expect((final as { stopReason: string }).stopReason).toBe("stop");

    const abort = events.find((event) => event.type === "stream_abort");
    expect(abort).toMatchObject({ type: "stream_abort", keptPartial: false, consecutive: 1, capReached: false });
    // One run, one turn: the retry happens inside it.
    expect(events.filter((event) => event.type === "agent_start")).toHaveLength(1);
    expect(events.filter((event) => event.type === "turn_start")).toHaveLength(1);
    // The violating delta never reached listeners.
    // (deltas of both attempts, in order: the first attempt's stop short of the match)
    expect(updateTexts.length).toBeGreaterThan(3);
    const lastCharOfMatch = VIOLATION.indexOf("legacyFetch(") + "legacyFetch(".length - 1;
    const emittedBeforeMatch = VIOLATION.slice(0, Math.floor(lastCharOfMatch / 4) * 4);
    expect(updateTexts.join("")).toBe(`${emittedBeforeMatch}Use fetchV2() instead.`);
  });

  it("keeps the partial prose when asked to, before the injected message", async () => {
    const { faux, contexts, capture } = setup();
    faux.setResponses([capture(VIOLATION), capture("Corrected.")]);
    const agent = new Agent({
      streamFn,
      initialState: { model: faux.getModel(), systemPrompt: "sys" },
      hooks: {
        onStreamText: (event) =>
          event.accumulated.includes("legacyFetch(")
            ? { abort: true, retry: streamRetry("Rule text", { keepPartial: true }) }
            : undefined,
      },
    });
    await agent.prompt("hi");
    const roles = contexts[1]!.messages.map((message) => message.role);
    expect(roles).toEqual(["user", "assistant", "user"]);
    expect(textOf(contexts[1]!.messages[1])).toMatch(/^Sure\. I will call legacyFetch\(/);
    expect(conversation(agent.state.messages).map((message) => message.role)).toEqual([
      "user",
      "assistant",
      "user",
      "assistant",
    ]);
    expect((conversation(agent.state.messages)[1] as { stopReason: string }).stopReason).toBe("stop");
  });

  it("uses createRetryMessage to shape the injected message", async () => {
    const { faux, capture } = setup();
    faux.setResponses([capture(VIOLATION), capture("ok")]);
    const agent = new Agent({
      streamFn,
      initialState: { model: faux.getModel(), systemPrompt: "sys" },
      hooks: {
        onStreamText: (event) =>
          event.accumulated.includes("legacyFetch(")
            ? { abort: true, retry: streamRetry("Rule text", { role: "system", details: { rule: "r1" } }) }
            : undefined,
        createRetryMessage: (retry) => ({
          role: "user",
          content: [{ type: "text", text: `[${retry.role}] ${retry.content}` }],
          timestamp: 1,
        }),
      },
    });
    await agent.prompt("hi");
    expect(textOf(conversation(agent.state.messages)[1])).toBe("[system] Rule text");
  });

  it("gives tool-call deltas the call id and tool name, and arguments a host can parse as they stream", async () => {
    const { faux } = setup();
    const edit = fauxToolCall(
      "edit",
      { path: "src/app.ts", content: "export const x: any = 1;\n".repeat(3) },
      { id: "call-7" },
    );
    faux.setResponses([fauxAssistantMessage([edit], { stopReason: "toolUse" }), fauxAssistantMessage("done")]);
    const seen: { chunk: string; accumulated: string; id?: string; name?: string; path?: unknown }[] = [];
    const tool: AgentTool = {
      name: "edit",
      label: "edit",
      description: "edit a file",
      parameters: stringsSchema("path", "content"),
      execute: async () => ({ content: [{ type: "text", text: "edited" }], details: {} }),
    };
    const agent = new Agent({
      streamFn,
      initialState: { model: faux.getModel(), systemPrompt: "sys", tools: [tool] },
      hooks: {
        onStreamText: (event) => {
          if (event.source === "toolcall") {
            seen.push({
              chunk: event.chunk,
              accumulated: event.accumulated,
              id: event.toolCall?.id,
              name: event.toolCall?.name,
              // The arguments so far, as a host parses them (pi-ai's streaming JSON parser).
              path: parseStreamingJson<{ path?: string }>(event.accumulated)?.path,
            });
          }
          return undefined;
        },
      },
    });
    await agent.prompt("edit it");
    expect(seen.length).toBeGreaterThan(5);
    expect(seen.every((event) => event.id === "call-7" && event.name === "edit")).toBe(true);
    const full = JSON.stringify(edit.arguments);
    for (const event of seen) expect(full.startsWith(event.accumulated)).toBe(true);
    expect(seen.at(-1)!.accumulated).toBe(full);
    // The path is known while the content is still streaming, before the tool runs.
    const firstWithPath = seen.findIndex((event) => event.path === "src/app.ts");
    expect(firstWithPath).toBeGreaterThan(-1);
    expect(firstWithPath).toBeLessThan(seen.length - 5);
  });

  it("ends the turn with a clear reason past the consecutive-abort cap", async () => {
    const { faux, capture } = setup();
    faux.setResponses([capture("bad one"), capture("bad two"), capture("bad three"), capture("never")]);
    const agent = new Agent({
      streamFn,
      initialState: { model: faux.getModel(), systemPrompt: "sys" },
      hooks: {
        maxConsecutiveStreamAborts: 2,
        onStreamText: (event) =>
          event.accumulated.startsWith("bad") ? { abort: true, retry: streamRetry("stop that") } : undefined,
      },
    });
    const events = recordEvents(agent);
    await agent.prompt("hi");
    const aborts = events.filter((event) => event.type === "stream_abort");
    expect(aborts.map((event) => event.type === "stream_abort" && event.capReached)).toEqual([false, false, true]);
    expect(faux.state.callCount).toBe(3);
    const final = conversation(agent.state.messages).at(-1) as { stopReason: string; errorMessage: string };
    expect(final.stopReason).toBe("error");
    expect(final.errorMessage).toMatch(/aborted 3 consecutive responses.*cap: 2/);
    // The violating text is not kept, like the retried partials before it.
    expect((final as unknown as { content: unknown[] }).content).toEqual([]);
    expect(JSON.stringify(conversation(agent.state.messages))).not.toContain("bad three");
    expect(agent.state.isStreaming).toBe(false);
    expect(events.at(-1)?.type).toBe("agent_end");
  });

  it("resets the abort count after a clean response", async () => {
    const { faux, capture } = setup();
    const answer = fauxAssistantMessage([fauxToolCall("noop", {}, { id: "t1" })], { stopReason: "toolUse" });
    faux.setResponses([capture("bad"), answer, capture("bad"), capture("fine")]);
    const tool: AgentTool = {
      name: "noop",
      label: "noop",
      description: "does nothing",
      parameters: stringsSchema(),
      execute: async () => ({ content: [{ type: "text", text: "ok" }], details: {} }),
    };
    const agent = new Agent({
      streamFn,
      initialState: { model: faux.getModel(), systemPrompt: "sys", tools: [tool] },
      hooks: {
        maxConsecutiveStreamAborts: 1,
        onStreamText: (event) => (event.accumulated === "bad" ? { abort: true, retry: streamRetry("no") } : undefined),
      },
    });
    await agent.prompt("hi");
    expect(textOf(conversation(agent.state.messages).at(-1))).toBe("fine");
  });

  it("still lets a user abort end the whole run", async () => {
    const { faux, capture } = setup({ tokensPerSecond: 200 });
    faux.setResponses([capture("a long answer that streams slowly ".repeat(20)), capture("never reached")]);
    let deltas = 0;
    const agent = new Agent({
      streamFn,
      initialState: { model: faux.getModel(), systemPrompt: "sys" },
      hooks: {
        onStreamText: () => {
          deltas++;
          if (deltas === 3) setTimeout(() => agent.abort(), 0);
          return undefined;
        },
      },
    });
    const events = recordEvents(agent);
    await agent.prompt("hi");
    const final = conversation(agent.state.messages).at(-1) as { stopReason: string };
    expect(final.stopReason).toBe("aborted");
    expect(faux.state.callCount).toBe(1);
    expect(events.some((event) => event.type === "stream_abort")).toBe(false);
    expect(deltas).toBeLessThan(20);
  });
});
