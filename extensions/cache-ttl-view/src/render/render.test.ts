import { describe, expect, it } from "vitest";
import { messageKeyAt } from "../model/ids.ts";
import type { AssistantMsg, ViewMessage } from "../model/messages.ts";
import { analyze, type Block, blocksIn } from "../plan/analysis.ts";
import { defaultSettings } from "../settings/settings.ts";
import { SessionBuilder, text } from "../testing/fixtures.ts";
import { applyPatch, NOTICE_TYPE, patchFor } from "./render.ts";
import { replacementFor } from "./replacements.ts";

const settings = defaultSettings();
const json = (value: unknown) => JSON.stringify(value);

function view(s: SessionBuilder, pruned: string[], notices: { after: string; at: number; text: string }[] = []) {
  const analysis = analyze(s.messages);
  const patch = patchFor(s.messages, analysis, blocksIn(new Set(pruned)), notices, (b: Block) =>
    replacementFor(s.messages, b, settings),
  );
  return { out: applyPatch(s.clone(), patch), analysis };
}

describe("render", () => {
  it("a pruned tool result's and custom message's views carry no details (kept for the UI, never sent)", () => {
    const s = new SessionBuilder().user("go");
    s.push({
      role: "assistant",
      content: [{ type: "toolCall", id: "c1", name: "read", arguments: { path: "big.ts" } }],
      timestamp: 99_999,
    });
    const output = text(6000);
    s.push({
      role: "toolResult",
      toolCallId: "c1",
      toolName: "read",
      content: [{ type: "text", text: output }],
      details: { truncation: { content: `SHOWN-OUTPUT ${output}`, truncated: true } },
      timestamp: 100_000,
    });
    s.push({
      role: "custom",
      customType: "memory",
      content: text(3000),
      details: { source: "MEMORY-SOURCE" },
      timestamp: 100_001,
    });
    const { blocks } = analyze(s.messages);
    const { out } = view(
      s,
      blocks.filter((b) => b.kind !== "text" || b.msg === 3).map((b) => b.id),
    );
    expect(json(out[2])).toContain("[TRUNCATED FILE]");
    expect(json(out[3])).toContain("[TRUNCATED]");
    expect(out[2]).toMatchObject({ details: undefined });
    expect(out[3]).toMatchObject({ details: undefined });
    expect(json(out)).not.toMatch(/SHOWN-OUTPUT|MEMORY-SOURCE/);
  });

  it("replaces an assistant's prose and drops its thinking, keeping tool calls (pruned or not) in place", () => {
    const s = new SessionBuilder().user("go");
    s.push({
      role: "assistant",
      content: [
        { type: "thinking", thinking: text(3000) },
        { type: "text", text: text(3000) },
        { type: "toolCall", id: "c1", name: "bash", arguments: { command: "ls" } },
      ],
      timestamp: 99_999,
    });
    s.push({
      role: "toolResult",
      toolCallId: "c1",
      toolName: "bash",
      content: [{ type: "text", text: "a" }],
      timestamp: 100_000,
    });
    const prose = analyze(s.messages).blocks.find((b) => b.kind === "text" && b.msg === 1) as Block;
    const { out } = view(s, [prose.id]);
    const a = out[1] as AssistantMsg;
    expect(a.content.map((p) => p.type)).toEqual(["text", "toolCall"]);
    expect((a.content[0] as { text: string }).text.startsWith(`[TRUNCATED] id=${prose.id} chars=3000: `)).toBe(true);
    expect(out[2]).toEqual(s.messages[2]);
  });

  it("inserts a notice after its anchor, and drops a notice whose anchor is gone (compacted away)", () => {
    const s = new SessionBuilder().user("a").assistant("b").user("c");
    const notices = [
      { after: messageKeyAt(s.messages, 1), at: 5, text: "pruned!" },
      { after: "user:404", at: 6, text: "lost" },
    ];
    const { out } = view(s, [], notices);
    expect(out.map((m: ViewMessage) => m.role)).toEqual(["user", "assistant", "custom", "user"]);
    expect(out[2]).toMatchObject({ customType: NOTICE_TYPE, content: "pruned!", timestamp: 5 });
  });
});
