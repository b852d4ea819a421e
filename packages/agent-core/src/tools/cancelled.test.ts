import { cancelledToolResult } from "@mariozechner/pi-agent-core";
import { describe, expect, it } from "vitest";
import { hostCancellationOf, isCancelledByHost } from "./cancelled.ts";

describe("isCancelledByHost", () => {
  it("recognises the result the loop builds for a cancelled call", () => {
    const result = cancelledToolResult("call_1", "bash", "user clicked stop");
    expect(isCancelledByHost(result.details)).toBe(true);
    expect(hostCancellationOf(result.details)).toEqual({ byHost: true, reason: "user clicked stop" });
    expect(result.content).toEqual([
      { type: "text", text: "Tool call call_1 (bash) was cancelled by the host: user clicked stop" },
    ]);
  });

  it("says no for ordinary details, tool errors and look-alikes", () => {
    for (const details of [undefined, null, {}, "cancelled", { cancelled: true }, { cancelled: { byHost: "yes" } }]) {
      expect(isCancelledByHost(details)).toBe(false);
    }
    expect(isCancelledByHost({ cancelled: { byHost: true } })).toBe(false);
  });
});
