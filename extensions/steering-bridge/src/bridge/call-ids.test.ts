import { describe, expect, it } from "vitest";
import { resolveCallId } from "./call-ids.ts";

describe("resolveCallId", () => {
  it("takes pi's id or either part of a Responses call_…|fc_… id; nothing ambiguous", () => {
    const inFlight = ["call_A|fc_1", "toolu_01", "bash_1732464000000_1"];
    expect(resolveCallId("call_A|fc_1", inFlight)).toBe("call_A|fc_1");
    expect(resolveCallId("call_A", inFlight)).toBe("call_A|fc_1");
    expect(resolveCallId("fc_1", inFlight)).toBe("call_A|fc_1");
    expect(resolveCallId("toolu_01", inFlight)).toBe("toolu_01");
    expect(resolveCallId("call_B", inFlight)).toBeUndefined();
    expect(resolveCallId("call_A", ["call_A|fc_1", "call_A|fc_2"])).toBeUndefined();
  });
});
