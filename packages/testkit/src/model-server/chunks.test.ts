import { describe, expect, it } from "vitest";
import { type ChunkContext, planChunks, splitText } from "./chunks.ts";

const ctx: ChunkContext = { id: "c1", model: "m", created: 1, requestIndex: 3, includeUsage: false, promptChars: 40 };

type Delta = Record<string, unknown> & { tool_calls?: Record<string, unknown>[] };
const deltaOf = (data: Record<string, unknown>): Delta =>
  ((data["choices"] as { delta: Delta }[])[0] as { delta: Delta }).delta;

describe("splitText", () => {
  it("splits by code points and never breaks a surrogate pair", () => {
    expect(splitText("abcdefghij", 4)).toEqual(["abcd", "efgh", "ij"]);
    expect(splitText("a😀b😀", 2)).toEqual(["a😀", "b😀"]);
    expect(splitText("", 4)).toEqual([]);
  });
});

describe("planChunks", () => {
  it("streams thinking, then text, then tool calls, then the finish chunk", () => {
    const chunks = planChunks(
      { thinking: "think", text: "hello!", toolCalls: [{ name: "read", arguments: { path: "a.txt" } }], chunkSize: 4 },
      ctx,
    );
    const deltas = chunks.filter((c) => c.delta).map((c) => deltaOf(c.data));
    expect(deltas.slice(0, 2)).toEqual([{ reasoning_content: "thin" }, { reasoning_content: "k" }]);
    expect(deltas.slice(2, 4)).toEqual([{ content: "hell" }, { content: "o!" }]);
    const toolDeltas = deltas.slice(4).map((d) => d.tool_calls?.[0] ?? {});
    expect(toolDeltas[0]).toMatchObject({ index: 0, id: "call_3_0", type: "function", function: { name: "read" } });
    const args = toolDeltas.map((d) => (d["function"] as { arguments: string }).arguments).join("");
    expect(JSON.parse(args)).toEqual({ path: "a.txt" });
    expect(toolDeltas.length).toBeGreaterThan(1);
    const last = chunks[chunks.length - 1]!.data as { choices: { finish_reason: string }[] };
    expect(last.choices[0]!.finish_reason).toBe("tool_calls");
  });

  it("adds a usage chunk only when asked for or scripted", () => {
    const withoutUsage = planChunks({ text: "x" }, ctx);
    expect(withoutUsage.some((c) => "usage" in c.data)).toBe(false);
    const asked = planChunks({ text: "x" }, { ...ctx, includeUsage: true });
    expect(asked[asked.length - 1]!.data["usage"]).toEqual({
      prompt_tokens: 10,
      completion_tokens: 1,
      total_tokens: 11,
    });
    const scripted = planChunks({ text: "x", usage: { prompt_tokens: 7, completion_tokens: 3 } }, ctx);
    expect(scripted[scripted.length - 1]!.data["usage"]).toMatchObject({ prompt_tokens: 7, completion_tokens: 3 });
  });

  it("uses the requested reasoning field and finish reason", () => {
    const chunks = planChunks({ thinking: "ab", reasoningField: "reasoning", finishReason: "length" }, ctx);
    expect(deltaOf(chunks[1]!.data)).toEqual({ reasoning: "ab" });
    expect((chunks[2]!.data["choices"] as { finish_reason: string }[])[0]!.finish_reason).toBe("length");
  });
});
