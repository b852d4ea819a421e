import { describe, expect, it } from "vitest";
import { parseCancelCommand, parseSteerCommand } from "./steer-command.ts";

describe("/steer arguments", () => {
  it("takes an optional mode word and defaults the command to finish_step", () => {
    expect(parseSteerCommand("stop now please")).toEqual({
      content: "stop now please",
      mode: "finish_step",
      kind: "message",
    });
    expect(parseSteerCommand("interrupt don't run that")).toEqual({
      content: "don't run that",
      mode: "interrupt_immediate",
      kind: "message",
    });
    expect(parseSteerCommand("remind keep tests green")).toEqual({
      content: "keep tests green",
      mode: "finish_step",
      kind: "reminder",
    });
    expect(parseSteerCommand("note build is red")).toEqual({ content: "build is red", kind: "note" });
    expect(parseSteerCommand("audit decided by the user")).toMatchObject({ mode: "audit_only" });
  });

  it("refuses an empty text with the usage", () => {
    expect(() => parseSteerCommand("  ")).toThrow(/usage: \/steer/);
    expect(() => parseSteerCommand("interrupt")).toThrow(/usage: \/steer/);
  });

  it("reads /cancel-tool [callId] [reason]", () => {
    expect(parseCancelCommand("  ")).toEqual({});
    expect(parseCancelCommand("call_1 took too long")).toEqual({ callId: "call_1", reason: "took too long" });
  });
});
