import { describe, expect, it } from "vitest";
import { billPrompt, createPromptCache, promptSegments } from "./prompt-cache.ts";

const big = (label: string, chars = 6000) => `${label} ${"x".repeat(chars)}`;
const marker = { type: "ephemeral" };

/** An Anthropic body as pi-ai builds it: system and the last user message carry the breakpoints. */
function anthropicBody(turns: string[]) {
  const messages = turns.map((text, i) => ({
    role: i % 2 === 0 ? "user" : "assistant",
    content: [{ type: "text", text, ...(i === turns.length - 1 ? { cache_control: marker } : {}) }],
  }));
  return { system: [{ type: "text", text: big("system"), cache_control: marker }], messages };
}

describe("promptSegments", () => {
  it("hashes prefixes without the cache_control marker, so moving a breakpoint keeps the prefix", () => {
    const a = promptSegments("anthropic-messages", anthropicBody([big("q1")]));
    const b = promptSegments("anthropic-messages", anthropicBody([big("q1"), "answer", big("q2")]));
    expect(a.map((s) => s.breakpoint)).toEqual([true, true]);
    expect(b.map((s) => s.breakpoint)).toEqual([true, false, false, true]);
    expect(b[1]?.prefix).toBe(a[1]?.prefix);
  });
});

describe("a simulated prompt cache", () => {
  it("Anthropic: writes up to the last breakpoint, reads last turn's breakpoint after the marker moved on, expires after the TTL", () => {
    let now = 0;
    const cache = createPromptCache("anthropic-messages", { now: () => now, ttlMs: 300_000 });
    const first = cache.bill(anthropicBody([big("q1")]));
    expect(first).toMatchObject({ cache_read_tokens: 0 });
    expect(first.cache_write_tokens).toBeGreaterThan(2000);
    expect(first.prompt_tokens).toBe(0);

    now = 60_000;
    const second = cache.bill(anthropicBody([big("q1"), "answer", big("q2")]));
    expect(second.cache_read_tokens).toBe(first.cache_write_tokens);
    expect(second.cache_write_tokens).toBeGreaterThan(1500);

    now = 60_000 + 300_001;
    const third = cache.bill(anthropicBody([big("q1"), "answer", big("q2")]));
    expect(third.cache_read_tokens).toBe(0);
    expect(third.cache_write_tokens).toBe(second.cache_read_tokens + second.cache_write_tokens);
  });

  it("Anthropic: nothing is cached without a breakpoint, or under the minimum", () => {
    const store = new Map();
    const body = { messages: [{ role: "user", content: big("q") }] };
    expect(billPrompt("anthropic-messages", promptSegments("anthropic-messages", body), store, 0).usage).toMatchObject({
      cache_read_tokens: 0,
      cache_write_tokens: 0,
    });
    const small = anthropicBody(["hi"]);
    small.system[0]!.text = "short";
    expect(createPromptCache("anthropic-messages").bill(small)).toMatchObject({ cache_write_tokens: 0 });
  });

  it("OpenAI: reads the longest stored prefix in 128-token steps, never writes; a changed early item misses", () => {
    const cache = createPromptCache("openai-responses");
    const input = [
      { role: "developer", content: big("system") },
      { role: "user", content: [{ type: "input_text", text: big("q1") }] },
    ];
    expect(cache.bill({ input })).toMatchObject({ cache_read_tokens: 0, cache_write_tokens: 0 });
    const next = cache.bill({ input: [...input, { role: "user", content: [{ type: "input_text", text: "more" }] }] });
    expect(next.cache_read_tokens).toBeGreaterThan(2000);
    expect(next.cache_read_tokens % 128).toBe(0);
    const changed = cache.bill({ input: [{ role: "developer", content: big("other system") }, ...input.slice(1)] });
    expect(changed.cache_read_tokens).toBe(0);
  });

  it("Gemini: implicit caching reads a repeated prefix of contents", () => {
    const cache = createPromptCache("google-generative-ai");
    const contents = [{ role: "user", parts: [{ text: big("q1") }] }];
    cache.bill({ contents });
    const next = cache.bill({
      contents: [...contents, { role: "model", parts: [{ text: "a" }] }, { role: "user", parts: [{ text: "q2" }] }],
    });
    expect(next.cache_read_tokens).toBeGreaterThan(1000);
    expect(next.cache_write_tokens).toBe(0);
  });
});
