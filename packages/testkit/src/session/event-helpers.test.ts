import { describe, expect, it } from "vitest";
import { deltasOf, messageText } from "./event-helpers.ts";

describe("deltasOf", () => {
  it("keeps only message_update deltas of the requested kind, in order", () => {
    const events = [
      { type: "agent_start" },
      { type: "message_update", assistantMessageEvent: { type: "text_delta", delta: "a" } },
      { type: "message_update", assistantMessageEvent: { type: "thinking_delta", delta: "t" } },
      { type: "message_update", assistantMessageEvent: { type: "text_start" } },
      { type: "message_update", assistantMessageEvent: { type: "text_delta", delta: "b" } },
    ];
    expect(deltasOf(events, "text_delta")).toEqual(["a", "b"]);
    expect(deltasOf(events, "thinking_delta")).toEqual(["t"]);
    expect(deltasOf(events, "toolcall_delta")).toEqual([]);
  });
});

describe("messageText", () => {
  it("reads strings, content blocks and whole messages", () => {
    expect(messageText("plain")).toBe("plain");
    expect(messageText([{ type: "text", text: "a" }, { type: "image" }, { type: "text", text: "b" }])).toBe("ab");
    expect(messageText({ role: "user", content: [{ type: "text", text: "hi" }] })).toBe("hi");
    expect(messageText({ role: "assistant", content: null })).toBe("");
    expect(messageText(undefined)).toBe("");
  });
});
