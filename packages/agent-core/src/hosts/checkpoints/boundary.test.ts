import { describe, expect, it } from "vitest";
import type { SeamMessage } from "../checkpoints.ts";
import { boundaryDraft, committedAfter, toolCallsOf } from "./boundary.ts";

const message = (content: string, details: unknown = { id: content }): SeamMessage => ({
  role: "custom",
  customType: "steering:message",
  content,
  display: true,
  details,
  timestamp: 1,
});
const entry = (id: string, m?: SeamMessage) =>
  m
    ? { id, type: "custom_message", customType: m.customType, content: m.content, details: m.details }
    : { id, type: "message" };

describe("committedAfter", () => {
  const a = message("A");
  const b = message("B");

  it("finds the proposed entries, in order, after the leaf they followed", () => {
    const branch = [entry("1"), entry("2"), entry("3", a), entry("4"), entry("5", b)];
    expect(committedAfter(branch, "2", [a, b])).toBe(true);
    expect(committedAfter(branch, null, [a, b])).toBe(true);
  });

  it("is false when pi dropped them (nothing after the leaf), or only some are there, or the leaf is gone", () => {
    expect(committedAfter([entry("1"), entry("2")], "2", [a])).toBe(false);
    expect(committedAfter([entry("1"), entry("2", a)], "1", [a, b])).toBe(false);
    expect(committedAfter([entry("1", a), entry("2")], "2", [a])).toBe(false);
    expect(committedAfter([entry("9", a)], "1", [a])).toBe(false);
  });

  it("tells an entry of the same text with other details apart (another delivery of the same words)", () => {
    expect(committedAfter([entry("1"), entry("2", message("A", { id: "other" }))], "1", [a])).toBe(false);
  });
});

describe("boundaryDraft and toolCallsOf", () => {
  it("a seam message becomes a custom_message entry with its type, content, display and details", () => {
    expect(boundaryDraft(message("A"))).toEqual({
      type: "custom_message",
      customType: "steering:message",
      content: "A",
      display: true,
      details: { id: "A" },
    });
  });

  it("reads an assistant message's tool calls, and none of any other message", () => {
    const assistant = {
      role: "assistant",
      content: [
        { type: "text", text: "x" },
        { type: "toolCall", id: "c1", name: "bash", arguments: {} },
      ],
    };
    expect(toolCallsOf(assistant)).toEqual([{ id: "c1", name: "bash" }]);
    expect(toolCallsOf({ role: "user", content: [{ type: "toolCall", id: "c1", name: "bash" }] })).toEqual([]);
  });
});
