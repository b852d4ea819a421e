/**
 * The Anthropic, OpenAI Responses and Gemini loopback servers (and chat completions) against pi-ai's
 * real clients for the real models (claude-sonnet-4-5, gpt-5, gemini-2.5-pro), thinking on, over real
 * sockets: every delta kind, signatures, usage with cache, aborts, strict mode.
 */
import type { AssistantMessage, AssistantMessageEvent, Context } from "@earendil-works/pi-ai";
import { afterEach, describe, expect, it } from "vitest";
import {
  ANTHROPIC_OAUTH_TEST_KEY,
  createTestSession,
  type ModelServer,
  messageText,
  PROVIDER_TARGETS,
  prepareCliHome,
  runPi,
  type ScriptedResponse,
  startProviderServer,
  WIRE_FORMATS,
  type WireFormat,
} from "../src/index.ts";
import { modelFor, READ_PARAMETERS, streamWithClient } from "./pi-ai-client.ts";

let server: ModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const tools = [
  {
    name: "read",
    description: "Read a file",
    parameters: READ_PARAMETERS,
  },
];

async function run(s: ModelServer, context: Context, onEvent?: (e: AssistantMessageEvent, abort: () => void) => void) {
  const controller = new AbortController();
  const events: AssistantMessageEvent[] = [];
  const stream = streamWithClient(modelFor(s), context, {
    apiKey: PROVIDER_TARGETS[s.format].apiKey,
    maxRetries: 0,
    reasoning: "medium",
    signal: controller.signal,
  });
  for await (const event of stream) {
    events.push(event);
    onEvent?.(event, () => controller.abort());
  }
  const last = events.at(-1) as { type: string; message?: AssistantMessage; error?: AssistantMessage };
  return { events, message: (last.message ?? last.error) as AssistantMessage };
}

const deltas = (events: AssistantMessageEvent[], type: "text_delta" | "thinking_delta" | "toolcall_delta") =>
  events.flatMap((e) => (e.type === type ? [e.delta] : []));

const user = (text: string): Context["messages"][number] => ({ role: "user", content: text, timestamp: Date.now() });

const TURN: ScriptedResponse = {
  thinking: "The user wants a.txt, so read it.",
  text: "Reading it now.",
  toolCalls: [{ name: "read", arguments: { path: "a.txt", limit: 20 } }],
  chunkSize: 5,
  usage: { prompt_tokens: 100, completion_tokens: 40, cache_read_tokens: 1000, cache_write_tokens: 200 },
};

/** What each format can report: OpenAI and Gemini have no cache-write count. */
const expectedUsage = (format: WireFormat) => ({
  input: 100,
  output: 40,
  cacheRead: 1000,
  cacheWrite: format === "anthropic-messages" || format === "openai-completions" ? 200 : 0,
});

describe.each(WIRE_FORMATS)("%s server with pi-ai's real client", (format) => {
  it("streams thinking, text and tool-call deltas, a signature and cache usage; the next turn passes strict mode", async () => {
    server = await startProviderServer(format, {
      strict: true,
      script: [TURN, { text: "It says hello.", usage: { prompt_tokens: 150, completion_tokens: 5 } }],
    });
    const context: Context = { systemPrompt: "You are a test.", messages: [user("read a.txt")], tools };
    const first = await run(server, context);

    expect(deltas(first.events, "thinking_delta").join("").trim()).toBe(TURN.thinking);
    expect(deltas(first.events, "text_delta").join("")).toBe(TURN.text);
    const toolDeltas = deltas(first.events, "toolcall_delta");
    // Gemini sends whole calls: one delta; the others stream the arguments.
    if (format === "google-generative-ai") expect(toolDeltas).toHaveLength(1);
    else expect(toolDeltas.length).toBeGreaterThan(3);
    expect(JSON.parse(toolDeltas.join(""))).toEqual({ path: "a.txt", limit: 20 });
    expect(first.message.stopReason).toBe("toolUse");
    expect(first.message.usage).toMatchObject(expectedUsage(format));
    expect(server.requests[0]?.usageReported).toEqual(expectedUsage(format));
    if (format !== "openai-completions") {
      expect(first.message.usage.cost.total).toBeGreaterThan(0);
      const thinking = first.message.content.find((b) => b.type === "thinking");
      const call = first.message.content.find((b) => b.type === "toolCall");
      const signed =
        format === "google-generative-ai"
          ? (call as { thoughtSignature?: string }).thoughtSignature
          : (thinking as { thinkingSignature?: string }).thinkingSignature;
      expect(signed).toBeTruthy();
    }
    const call = first.message.content.find((b) => b.type === "toolCall") as { id: string; name: string };

    context.messages.push(first.message, {
      role: "toolResult",
      toolCallId: call.id,
      toolName: call.name,
      content: [{ type: "text", text: "hello" }],
      isError: false,
      timestamp: Date.now(),
    });
    const second = await run(server, context);
    expect(server.requests[1]?.rejected).toBeUndefined();
    expect(deltas(second.events, "text_delta").join("")).toBe("It says hello.");
    expect(second.message.stopReason).toBe("stop");
  });

  it("records an early close by the client and the usage told before it", async () => {
    server = await startProviderServer(format, {
      script: [
        {
          thinking: "x".repeat(400),
          chunkSize: 2,
          delayMs: 25, // 5 s for the whole answer: the abort comes long before, even on a loaded machine
          usage: { prompt_tokens: 70, completion_tokens: 200, cache_read_tokens: 30 },
        },
      ],
    });
    let seen = 0;
    const { message } = await run(server, { messages: [user("think")] }, (event, abort) => {
      if (event.type === "thinking_delta" && ++seen === 3) abort();
    });
    await server.waitForIdle();
    expect(message.stopReason).toBe("aborted");
    const record = server.requests[0]!;
    expect(record.closedEarly).toBe(true);
    expect(record.completed).toBe(false);
    expect(record.deltasSent).toBeLessThan(record.deltasPlanned);
    // Anthropic tells input and cache usage first, Gemini with every chunk; the OpenAI formats only at the end.
    const told =
      format === "anthropic-messages"
        ? { input: 70, output: 1, cacheRead: 30, cacheWrite: 0 }
        : format === "google-generative-ai"
          ? { input: 70, output: 0, cacheRead: 30, cacheWrite: 0 }
          : undefined;
    expect(record.usageReported).toEqual(told);
    if (told) expect(message.usage).toMatchObject(told);
  });
});

describe.each(WIRE_FORMATS)("%s server with hidden (redacted) thinking", (format) => {
  it("streams no thinking text, yet the signed form goes back and passes strict mode", async () => {
    server = await startProviderServer(format, {
      strict: true,
      script: [{ ...TURN, thinkingRedacted: true }, { text: "It says hello." }],
    });
    const context: Context = { messages: [user("read a.txt")], tools };
    const first = await run(server, context);
    expect(deltas(first.events, "thinking_delta").join("").trim()).toBe("");
    const call = first.message.content.find((b) => b.type === "toolCall") as { id: string; name: string };
    context.messages.push(first.message, {
      role: "toolResult",
      toolCallId: call.id,
      toolName: call.name,
      content: [{ type: "text", text: "hello" }],
      isError: false,
      timestamp: Date.now(),
    });
    const second = await run(server, context);
    expect(second.message.stopReason).toBe("stop");
    expect(server.requests[1]?.rejected).toBeUndefined();
    const replayed = JSON.stringify(server.requests[1]?.messages);
    if (format === "anthropic-messages") expect(replayed).toContain('"type":"redacted_thinking"');
    if (format === "openai-responses") expect(replayed).toContain('"type":"reasoning"');
    if (format === "google-generative-ai") expect(replayed).toContain("thoughtSignature");
    expect(replayed).not.toContain(TURN.thinking);
  });
});

describe("OpenAI Responses raw reasoning content", () => {
  it("reasoningField reasoning_text streams response.reasoning_text deltas, which pi-ai reads as thinking", async () => {
    server = await startProviderServer("openai-responses", {
      strict: true,
      script: [{ thinking: "raw chain of thought", reasoningField: "reasoning_text", text: "ok" }],
    });
    const { events, message } = await run(server, { messages: [user("hi")] });
    expect(deltas(events, "thinking_delta").join("")).toBe("raw chain of thought");
    expect(message.content[0]).toMatchObject({ type: "thinking", thinking: "raw chain of thought" });
  });
});

describe.each(WIRE_FORMATS)("%s server failing mid-stream", (format) => {
  it("sends the format's own error event after the scripted deltas; pi-ai reports the error with its message", async () => {
    server = await startProviderServer(format, {
      script: [
        { text: "abcdefghijklmnop", chunkSize: 2, streamError: { afterDeltas: 3, message: "Overloaded right now" } },
      ],
    });
    const { events, message } = await run(server, { messages: [user("hi")] });
    expect(deltas(events, "text_delta").join("")).toBe("abcdef");
    expect(message.stopReason).toBe("error");
    expect(message.errorMessage).toContain("Overloaded right now");
    expect(server.requests[0]).toMatchObject({ deltasSent: 3, completed: true, closedEarly: false });
  });
});

describe("strict mode answers the API's own 400", () => {
  it("Anthropic: a changed signed thinking block, and a tool_use without its tool_result", async () => {
    server = await startProviderServer("anthropic-messages", { strict: true, script: [TURN] });
    const context: Context = { messages: [user("read a.txt")], tools };
    const first = await run(server, context);
    const thinking = first.message.content.find((b) => b.type === "thinking") as { thinking: string };
    thinking.thinking = "I changed my mind.";
    context.messages.push(first.message, user("go on"));
    const refused = await run(server, context);
    expect(refused.message.stopReason).toBe("error");
    expect(refused.message.errorMessage).toContain("Invalid `signature` in `thinking` block");
    expect(server.requests[1]?.rejected).toMatchObject({ status: 400 });
  });

  it("OpenAI Responses: a function_call without its reasoning item", async () => {
    server = await startProviderServer("openai-responses", { strict: true, script: [TURN] });
    const context: Context = { messages: [user("read a.txt")], tools };
    const first = await run(server, context);
    const call = first.message.content.find((b) => b.type === "toolCall") as { id: string };
    first.message.content = first.message.content.filter((b) => b.type !== "thinking");
    context.messages.push(first.message, {
      role: "toolResult",
      toolCallId: call.id,
      toolName: "read",
      content: [{ type: "text", text: "hello" }],
      isError: false,
      timestamp: Date.now(),
    });
    const refused = await run(server, context);
    expect(refused.message.errorMessage).toMatch(
      /Item 'fc_loopback_0_0' of type 'function_call' was provided without its required 'reasoning' item: 'rs_loopback_0'/,
    );
  });

  it("Gemini: a changed thought signature", async () => {
    server = await startProviderServer("google-generative-ai", { strict: true, script: [TURN] });
    const context: Context = { messages: [user("read a.txt")], tools };
    const first = await run(server, context);
    const call = first.message.content.find((b) => b.type === "toolCall") as { id: string; thoughtSignature: string };
    call.thoughtSignature = `AAAA${call.thoughtSignature.slice(4)}`;
    context.messages.push(first.message, {
      role: "toolResult",
      toolCallId: call.id,
      toolName: "read",
      content: [{ type: "text", text: "hello" }],
      isError: false,
      timestamp: Date.now(),
    });
    const refused = await run(server, context);
    expect(refused.message.errorMessage).toContain("Corrupted thought signature.");
    expect(JSON.parse(JSON.stringify(server.requests[1]?.rejected))).toEqual({
      status: 400,
      message: "Corrupted thought signature.",
    });
  });
});

describe.each(WIRE_FORMATS)("%s server behind a real AgentSession (provider configured as a proxy)", (format) => {
  it("runs a tool turn with thinking on, every request passing strict mode", async () => {
    server = await startProviderServer(format, {
      strict: true,
      script: [TURN, { thinking: "Got it.", text: "a.txt says hello." }],
    });
    const t = await createTestSession({
      model: { kind: "provider", server },
      thinkingLevel: "medium",
      files: { "a.txt": "hello\n" },
    });
    try {
      expect(`${t.model.provider}/${t.model.id}`).toBe(
        `${PROVIDER_TARGETS[format].provider}/${PROVIDER_TARGETS[format].modelId}`,
      );
      const reply = await t.prompt("read a.txt");
      expect(messageText(reply)).toContain("a.txt says hello.");
      expect(server.requests.map((r) => r.rejected)).toEqual([undefined, undefined]);
      expect(JSON.stringify(server.requests[1]?.messages)).toContain("hello\\n");
    } finally {
      await t.dispose();
    }
  });
});

describe("pointing pi at a server as users point it at a proxy", () => {
  it("pi.registerProvider('anthropic', { baseUrl }) in an extension, with the real pi CLI", async () => {
    server = await startProviderServer("anthropic-messages", {
      strict: true,
      script: [{ thinking: "Say hi.", text: "Hi from the proxy." }],
    });
    const home = prepareCliHome({
      files: {
        "proxy.ts": `export default (pi) => pi.registerProvider("anthropic", { baseUrl: ${JSON.stringify(server.baseUrl)} });\n`,
      },
      agentFiles: { "auth.json": JSON.stringify({ anthropic: { type: "api_key", key: "sk-ant-api03-loopback" } }) },
    });
    try {
      const run = await runPi(
        [
          "-e",
          "./proxy.ts",
          "--provider",
          "anthropic",
          "--model",
          "claude-sonnet-4-5",
          "--thinking",
          "medium",
          "-p",
          "hi",
        ],
        { home },
      );
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).toBe("Hi from the proxy.\n");
      expect(server.requests).toHaveLength(1);
      expect(server.requests[0]?.body).toMatchObject({ model: "claude-sonnet-4-5", thinking: { type: "enabled" } });
      expect(server.requests[0]?.headers["x-api-key"]).toBe("sk-ant-api03-loopback");
    } finally {
      home.dispose();
    }
  });

  it("an Anthropic OAuth key: pi-ai talks as Claude Code (Bearer, its system prompt, its tool names), strict mode passes", async () => {
    server = await startProviderServer("anthropic-messages", {
      strict: true,
      script: [TURN, { text: "a.txt says hello." }],
    });
    const t = await createTestSession({
      model: { kind: "provider", server, apiKey: ANTHROPIC_OAUTH_TEST_KEY },
      thinkingLevel: "medium",
      files: { "a.txt": "hello\n" },
    });
    try {
      expect(messageText(await t.prompt("read a.txt"))).toBe("a.txt says hello.");
      const [first, second] = server.requests;
      expect(first?.headers["authorization"]).toBe(`Bearer ${ANTHROPIC_OAUTH_TEST_KEY}`);
      expect(JSON.stringify(first?.body["system"])).toContain("You are Claude Code");
      expect((first!.body["tools"] as { name: string }[]).map((tool) => tool.name)).toContain("Read");
      expect(second?.rejected).toBeUndefined();
      expect(JSON.stringify(second?.messages)).toContain("hello\\n");
    } finally {
      await t.dispose();
    }
  });
});

describe.each(WIRE_FORMATS)("%s server with a simulated prompt cache, behind a real AgentSession", (format) => {
  it("the second turn reads the first turn's prefix from the cache; after the TTL nothing is read", async () => {
    const clock = { now: 1_000_000 };
    server = await startProviderServer(format, {
      strict: true,
      promptCache: { ttlMs: 300_000, now: () => clock.now },
      script: [{ text: "One." }, { text: "Two." }, { text: "Three." }],
    });
    const t = await createTestSession({ model: { kind: "provider", server }, thinkingLevel: "medium" });
    try {
      await t.prompt(`first question ${"with context ".repeat(400)}`);
      clock.now += 60_000;
      await t.prompt("second question");
      clock.now += 300_001;
      await t.prompt("third question");
      const [first, second, third] = server.requests.map((r) => r.usageReported!);
      expect(first?.cacheRead).toBe(0);
      expect(second?.cacheRead).toBeGreaterThan(1000);
      expect(third?.cacheRead).toBe(0);
      if (format === "anthropic-messages") {
        expect(first?.cacheWrite).toBeGreaterThan(1000);
        expect(third?.cacheWrite).toBeGreaterThan(second!.cacheRead);
      }
      // pi adds up what the provider billed.
      const stats = t.session.getSessionStats();
      expect(stats.tokens.cacheRead).toBe(second!.cacheRead);
    } finally {
      await t.dispose();
    }
  });
});
