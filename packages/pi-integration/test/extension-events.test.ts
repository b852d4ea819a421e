import { existsSync } from "node:fs";
import { join } from "node:path";
import { getCurrentSystemPrompt, parseStreamingJson, type TranscriptContext } from "@earendil-works/pi-ai";
import type { ExtensionAPI, StreamTextEvent } from "@earendil-works/pi-coding-agent";
import {
  createTestSession,
  fauxAssistantMessage,
  fauxThinking,
  fauxToolCall,
  type TestSession,
} from "@pi-rails/testkit";
import { afterEach, describe, expect, it } from "vitest";
import abortOnPattern from "./fixtures/abort-on-pattern.ts";

const sessions: TestSession[] = [];
afterEach(async () => {
  for (const session of sessions.splice(0)) await session.dispose();
});

async function open(options: Parameters<typeof createTestSession>[0]): Promise<TestSession> {
  const session = await createTestSession(options);
  sessions.push(session);
  return session;
}

/** What each request sent: pi 1.6 sends the prompt and tools as system messages; `messages` is the rest. */
function captureContexts() {
  const contexts: { systemPrompt: string; messages: TranscriptContext["messages"] }[] = [];
  const answer = (text: string) => (context: TranscriptContext) => {
    const messages = context.messages.filter((message) => message.role !== "system");
    contexts.push(JSON.parse(JSON.stringify({ systemPrompt: getCurrentSystemPrompt(context.messages), messages })));
    return fauxAssistantMessage(text);
  };
  return { contexts, answer };
}

const textOf = (message: unknown) =>
  ((message as { content: { type: string; text?: string }[] | string }).content as { type: string; text?: string }[])
    .filter((block) => block.type === "text")
    .map((block) => block.text)
    .join("");

describe("stream_text in a real pi session", () => {
  it("aborts, injects a hidden message the model sees, retries, and persists what the model saw", async () => {
    const { contexts, answer } = captureContexts();
    const test = await open({
      model: {
        kind: "faux",
        responses: [
          answer("Sure: FORBIDDEN_API(token) does it, and then some more words."),
          answer("Use SAFE_API(token)."),
        ],
      },
      extensions: [abortOnPattern],
      persist: true,
    });
    await test.prompt("how do I do it?");

    expect(textOf(test.session.messages.at(-1))).toBe("Use SAFE_API(token).");
    const retried = contexts[1]!;
    expect(JSON.stringify(retried.messages)).toContain("RULE fixture-rule");
    expect(JSON.stringify(retried.messages)).not.toContain("FORBIDDEN_API(token)");

    const entries = test.readSessionEntries() as {
      type: string;
      customType?: string;
      display?: boolean;
      message?: { role: string; stopReason?: string; content?: unknown[] };
    }[];
    const assistantEntries = entries.filter((entry) => entry.type === "message" && entry.message?.role === "assistant");
    // The answer, and the aborted attempt's record (its usage, no content: see aborted-attempt-usage.test.ts).
    expect(assistantEntries.map((entry) => entry.message?.stopReason)).toEqual(["aborted", "stop"]);
    expect(assistantEntries[0]!.message?.content).toEqual([]);
    expect(JSON.stringify(assistantEntries)).not.toContain("FORBIDDEN_API");
    const injected = entries.find((entry) => entry.type === "custom_message");
    expect(injected).toMatchObject({ customType: "fixture-rule", display: false });
    expect(test.events.some((event) => event.type === "stream_abort")).toBe(true);
  });

  it("delivers typed text, thinking and tool-call payloads", async () => {
    const seen: StreamTextEvent[] = [];
    const recorder = (pi: ExtensionAPI) => {
      pi.on("stream_text", (event) => {
        seen.push({ ...event });
        return undefined;
      });
    };
    const test = await open({
      model: {
        kind: "faux",
        reasoning: true,
        responses: [
          fauxAssistantMessage(
            [fauxThinking("let me think about it"), fauxToolCall("read", { path: "notes.md" }, { id: "r1" })],
            {
              stopReason: "toolUse",
            },
          ),
          fauxAssistantMessage("The notes say hello."),
        ],
      },
      files: { "notes.md": "hello" },
      extensions: [recorder],
    });
    await test.prompt("read my notes");
    const sources = new Set(seen.map((event) => event.source));
    expect(sources).toEqual(new Set(["thinking", "toolcall", "text"]));
    expect(seen.every((event) => event.type === "stream_text")).toBe(true);
    const toolDeltas = seen.filter((event) => event.source === "toolcall");
    expect(toolDeltas.every((event) => event.toolCall?.id === "r1" && event.toolCall.name === "read")).toBe(true);
    // The arguments so far are the accumulated JSON text (pi-ai parses a partial one).
    expect(parseStreamingJson(toolDeltas.at(-1)!.accumulated)).toEqual({ path: "notes.md" });
    expect(seen.filter((event) => event.source === "thinking").at(-1)!.accumulated).toBe("let me think about it");
  });

  it("runs handlers in load order, the first abort wins, and an async handler cannot abort", async () => {
    const order: string[] = [];
    const asyncAborter = (pi: ExtensionAPI) => {
      pi.on("stream_text", (async () => {
        order.push("async");
        return { abort: true, retry: { content: "from async", customType: "fixture-async" } };
      }) as never);
    };
    const first = (pi: ExtensionAPI) => {
      pi.on("stream_text", (event) => {
        order.push("first");
        return event.accumulated.includes("bad")
          ? { abort: true, retry: { content: "from first", customType: "fixture-first" } }
          : undefined;
      });
    };
    const second = (pi: ExtensionAPI) => {
      pi.on("stream_text", (event) => {
        order.push("second");
        return event.accumulated.includes("bad")
          ? { abort: true, retry: { content: "from second", customType: "fixture-second" } }
          : undefined;
      });
    };
    const { contexts, answer } = captureContexts();
    const test = await open({
      model: { kind: "faux", responses: [answer("bad"), answer("good")] },
      extensions: [asyncAborter, first, second],
      allowExtensionErrors: true,
    });
    await test.prompt("go");
    // First request, one delta "bad": the async handler runs but cannot abort, "first" aborts, "second" never runs.
    // Retry, one delta "good": all three run, nobody aborts.
    expect(order).toEqual(["async", "first", "async", "first", "second"]);
    expect(JSON.stringify(contexts[1]!.messages)).toContain("from first");
    expect(JSON.stringify(contexts[1]!.messages)).not.toContain("from second");
    expect(JSON.stringify(contexts[1]!.messages)).not.toContain("from async");
    expect(textOf(test.session.messages.at(-1))).toBe("good");
    expect(test.extensionErrors.some((error) => /returned a promise/.test(error.error))).toBe(true);
  });
});

describe("loop seams in a real pi session", () => {
  it("a checkpoint handler at pre_tool_dispatch stops a real tool before it runs", async () => {
    const seams: string[] = [];
    const guard = (pi: ExtensionAPI) => {
      pi.on("checkpoint", (event) => {
        if (event.kind === "pre_tool_dispatch" && event.toolCalls.some((call) => call.name === "write")) {
          return {
            messages: [
              {
                role: "custom",
                customType: "host-stop",
                content: "The host stopped this write.",
                display: true,
                timestamp: Date.now(),
              },
            ],
            skipToolDispatch: true,
            skipReason: "host cancelled the write",
          };
        }
        return undefined;
      });
      pi.on("loop_checkpoint", (event) => {
        seams.push(`${event.iteration}:${event.kind}${event.dispatchSkipped ? ":skipped" : ""}`);
      });
    };
    const { contexts, answer } = captureContexts();
    const test = await open({
      model: {
        kind: "faux",
        responses: [
          fauxAssistantMessage([fauxToolCall("write", { path: "danger.txt", content: "boom" }, { id: "w1" })], {
            stopReason: "toolUse",
          }),
          answer("Understood, I did not write the file."),
        ],
      },
      extensions: [guard],
      persist: true,
    });
    await test.prompt("write danger.txt");

    expect(existsSync(join(test.cwd, "danger.txt"))).toBe(false);
    expect(seams).toContain("1:pre_tool_dispatch:skipped");
    expect(seams.at(-1)).toBe("2:loop_exit");
    const roles = contexts[0]!.messages.map((message) => message.role);
    expect(roles).toEqual(["user", "assistant", "toolResult", "user"]);
    expect(JSON.stringify(contexts[0]!.messages[2])).toContain("was not dispatched: host cancelled the write");
    expect(JSON.stringify(contexts[0]!.messages[3])).toContain("The host stopped this write.");
    // The placeholder result says why in its details (the loop_checkpoint record above said it too).
    expect((contexts[0]!.messages[2] as { details?: unknown }).details).toEqual({
      dispatchSkipped: true,
      skipReason: "host cancelled the write",
    });
    const entries = test.readSessionEntries() as { type: string; customType?: string; message?: { role: string } }[];
    expect(entries.some((entry) => entry.type === "custom_message" && entry.customType === "host-stop")).toBe(true);
    expect(entries.filter((entry) => entry.message?.role === "toolResult")).toHaveLength(1);
  });
});
