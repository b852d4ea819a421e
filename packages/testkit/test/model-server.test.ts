/**
 * The loopback server against pi-ai's real openai-completions client (streamSimple), over real
 * sockets on 127.0.0.1.
 */
import type { AssistantMessage, AssistantMessageEvent, Context } from "@earendil-works/pi-ai";
import { afterEach, describe, expect, it } from "vitest";
import {
  LOOPBACK_API_KEY,
  loopbackModel,
  type ModelServer,
  SCRIPT_EXHAUSTED_TEXT,
  type ScriptedResponse,
  startModelServer,
} from "../src/index.ts";
import { READ_PARAMETERS, streamWithClient } from "./pi-ai-client.ts";

let server: ModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const context: Context = {
  systemPrompt: "You are a test.",
  messages: [{ role: "user", content: "read a.txt please", timestamp: Date.now() }],
  tools: [
    {
      name: "read",
      description: "Read a file",
      parameters: READ_PARAMETERS,
    },
  ],
};

async function collect(s: ModelServer, signal?: AbortSignal, onEvent?: (e: AssistantMessageEvent) => void) {
  const events: AssistantMessageEvent[] = [];
  const stream = streamWithClient(loopbackModel(s), context, {
    apiKey: LOOPBACK_API_KEY,
    maxRetries: 0,
    ...(signal ? { signal } : {}),
  });
  for await (const event of stream) {
    events.push(event);
    onEvent?.(event);
  }
  return events;
}

const deltas = (events: AssistantMessageEvent[], type: "text_delta" | "thinking_delta" | "toolcall_delta") =>
  events.flatMap((e) => (e.type === type ? [e.delta] : []));

describe("startModelServer with pi-ai's openai-completions client", () => {
  it("streams thinking, text and tool calls in several deltas and records the request", async () => {
    const text = "Let me read that file for you.";
    const thinking = "The user wants a.txt; use the read tool.";
    const args = { path: "a.txt", limit: 20 };
    server = await startModelServer({
      script: [{ thinking, text, toolCalls: [{ id: "call_1", name: "read", arguments: args }], chunkSize: 5 }],
    });

    const events = await collect(server);

    const textDeltas = deltas(events, "text_delta");
    expect(textDeltas.length).toBeGreaterThan(3);
    expect(textDeltas.join("")).toBe(text);
    const thinkingDeltas = deltas(events, "thinking_delta");
    expect(thinkingDeltas.length).toBeGreaterThan(3);
    expect(thinkingDeltas.join("")).toBe(thinking);
    const toolDeltas = deltas(events, "toolcall_delta");
    expect(toolDeltas.length).toBeGreaterThan(3);
    expect(JSON.parse(toolDeltas.join(""))).toEqual(args);

    const done = events.at(-1);
    expect(done?.type).toBe("done");
    const message = (done as { message: AssistantMessage }).message;
    expect(message.stopReason).toBe("toolUse");
    expect(message.content).toEqual([
      expect.objectContaining({ type: "thinking", thinking }),
      { type: "text", text },
      { type: "toolCall", id: "call_1", name: "read", arguments: args },
    ]);

    expect(server.requests).toHaveLength(1);
    const request = server.requests[0]!;
    expect(request.url).toBe("/v1/chat/completions");
    expect(request.body["model"]).toBe("loopback-model");
    expect(request.body["stream"]).toBe(true);
    expect(request.messages).toEqual([
      { role: "system", content: "You are a test." },
      { role: "user", content: "read a.txt please" },
    ]);
    expect(request.headers["authorization"]).toBe(`Bearer ${LOOPBACK_API_KEY}`);
    expect(request.deltasPlanned).toBeGreaterThan(9);
    expect(request.deltasSent).toBe(request.deltasPlanned);
    expect(request.completed).toBe(true);
    expect(request.closedEarly).toBe(false);
  });

  it("reports usage when the client asks for it", async () => {
    server = await startModelServer({ script: [{ text: "ok", usage: { prompt_tokens: 11, completion_tokens: 2 } }] });
    const events = await collect(server);
    const done = events.at(-1) as { message: AssistantMessage };
    expect(done.message.usage).toMatchObject({ input: 11, output: 2 });
  });

  it("accepts the alternative reasoning field", async () => {
    server = await startModelServer({
      script: [{ thinking: "deep thought", reasoningField: "reasoning", text: "42" }],
    });
    const events = await collect(server);
    expect(deltas(events, "thinking_delta").join("")).toBe("deep thought");
  });

  it("notices when the client closes the stream early and stops writing", async () => {
    server = await startModelServer({ script: [{ text: "x".repeat(200), chunkSize: 1, delayMs: 15 }] });
    const controller = new AbortController();
    let seen = 0;
    const events = await collect(server, controller.signal, (event) => {
      if (event.type === "text_delta" && ++seen === 3) controller.abort();
    });
    await server.waitForIdle();

    const last = events.at(-1);
    expect(last?.type).toBe("error");
    expect((last as { reason: string }).reason).toBe("aborted");
    const request = server.requests[0]!;
    expect(request.closedEarly).toBe(true);
    expect(request.completed).toBe(false);
    expect(request.deltasPlanned).toBe(200);
    expect(request.deltasSent).toBeGreaterThanOrEqual(3);
    expect(request.deltasSent).toBeLessThan(50);
    const sentAtIdle = request.deltasSent;
    await new Promise((r) => setTimeout(r, 60));
    expect(request.deltasSent).toBe(sentAtIdle);
  });

  it("answers a default text once an array script is exhausted, and records that", async () => {
    server = await startModelServer({ script: [{ text: "first" }] });
    await collect(server);
    const events = await collect(server);
    expect(deltas(events, "text_delta").join("")).toBe(SCRIPT_EXHAUSTED_TEXT);
    expect(server.requests.map((r) => r.scriptExhausted)).toEqual([false, true]);

    server.setScript([{ text: "again" }]);
    expect(deltas(await collect(server), "text_delta").join("")).toBe("again");
  });

  it("lets a script function answer from the request", async () => {
    const seen: number[] = [];
    server = await startModelServer({
      script: (request, index): ScriptedResponse => {
        seen.push(index);
        const last = request.messages.at(-1);
        return { text: `echo: ${String(last?.content)}` };
      },
    });
    expect(deltas(await collect(server), "text_delta").join("")).toBe("echo: read a.txt please");
    expect(seen).toEqual([0]);
  });

  it("answers a scripted HTTP error, which the client reports as an error", async () => {
    server = await startModelServer({
      script: [{ httpStatus: 429, errorBody: JSON.stringify({ error: { message: "slow down" } }) }],
    });
    const events = await collect(server);
    const last = events.at(-1) as { type: string; error: AssistantMessage };
    expect(last.type).toBe("error");
    expect(last.error.errorMessage).toContain("slow down");
    expect(server.requests[0]!.completed).toBe(true);
    expect(server.requests[0]!.deltasPlanned).toBe(0);
  });

  it("lists its model and times out waiting for requests that never come", async () => {
    server = await startModelServer();
    const models = (await (await fetch(`${server.baseUrl}/models`)).json()) as { data: { id: string }[] };
    expect(models.data.map((m) => m.id)).toEqual(["loopback-model"]);
    await expect(server.waitForRequests(1, 50)).rejects.toThrow(/expected 1 request/);
  });
});
