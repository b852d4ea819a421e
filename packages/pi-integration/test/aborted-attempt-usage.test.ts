/**
 * Issue 21, the patch part: an aborted request has been billed, so pi's own totals include it. The core patch
 * records each aborted attempt that reported usage as an aborted assistant message without content: the session's
 * stats and its file count it, and the model never sees it (pi-ai skips aborted assistant messages).
 */
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";
import { createTestSession, type ModelServer, startProviderServer, type TestSession } from "@pi-rails/testkit";
import { afterEach, describe, expect, it } from "vitest";
import abortOnPattern from "./fixtures/abort-on-pattern.ts";

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const LONG_TAIL = " And then I keep explaining at length.".repeat(150);

describe("usage of an aborted attempt (in-process AgentSession, Anthropic loopback server)", () => {
  it("is in the session's totals and its file, and never reaches the model", async () => {
    const server: ModelServer = await startProviderServer("anthropic-messages", { strict: true });
    cleanups.push(() => server.close());
    server.setScript([
      {
        text: `Just call FORBIDDEN_API(x).${LONG_TAIL}`,
        delayMs: 2,
        usage: { prompt_tokens: 1000, completion_tokens: 600, cache_read_tokens: 4000, cache_write_tokens: 800 },
      },
      {
        text: "Use SAFE_API(x).",
        usage: { prompt_tokens: 1100, completion_tokens: 20, cache_read_tokens: 4800, cache_write_tokens: 0 },
      },
    ]);
    const aborts: { usage: { input: number; cacheRead: number; cacheWrite: number; cost: { total: number } } }[] = [];
    const test: TestSession = await createTestSession({
      model: { kind: "provider", server },
      extensions: [
        abortOnPattern,
        (pi: ExtensionAPI) => {
          pi.on("stream_abort", (event) => void aborts.push(event));
        },
      ],
      persist: true,
    });
    cleanups.push(() => test.dispose());
    await test.prompt("how do I do it?");

    // What the server billed for the aborted attempt before pi cut it (message_start: input and cache).
    const [aborted, retried] = server.requests;
    expect(aborted?.closedEarly).toBe(true);
    expect(aborted?.usageReported).toMatchObject({ input: 1000, cacheRead: 4000, cacheWrite: 800 });
    expect(aborts).toHaveLength(1);
    expect(aborts[0]!.usage).toMatchObject({ input: 1000, cacheRead: 4000, cacheWrite: 800 });
    expect(aborts[0]!.usage.cost.total).toBeGreaterThan(0);

    // pi's own totals: the retried answer plus the aborted attempt.
    const stats = test.session.getSessionStats();
    const answer = test.session.state.messages.findLast((m) => m.role === "assistant" && m.stopReason === "stop");
    expect(answer).toBeDefined();
    const answerUsage = (answer as { usage: { input: number; cacheRead: number; cacheWrite: number } }).usage;
    expect(stats.tokens.input).toBe(answerUsage.input + 1000);
    expect(stats.tokens.cacheRead).toBe(answerUsage.cacheRead + 4000);
    expect(stats.tokens.cacheWrite).toBe(answerUsage.cacheWrite + 800);
    expect(stats.cost).toBeCloseTo(
      (answer as { usage: { cost: { total: number } } }).usage.cost.total + aborts[0]!.usage.cost.total,
      10,
    );

    // The session file holds the record (usage, no content) before the retry message.
    const entries = test.readSessionEntries() as {
      type: string;
      message?: { role: string; stopReason?: string; content: unknown[]; usage?: { input: number } };
    }[];
    const records = entries.filter((e) => e.message?.role === "assistant" && e.message.stopReason === "aborted");
    expect(records).toHaveLength(1);
    expect(records[0]!.message).toMatchObject({ content: [], usage: { input: 1000 } });

    // The retry request carried no trace of the aborted attempt (and the strict server accepted it).
    expect(retried?.rejected).toBeUndefined();
    expect(JSON.stringify(retried?.messages)).not.toContain("FORBIDDEN_API(x)");
    expect(retried?.messages.filter((m) => m.role === "assistant")).toHaveLength(0);
  });
});
