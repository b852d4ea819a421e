import { describe, expect, it } from "vitest";
import { analyze } from "../plan/analysis.ts";
import { SessionBuilder } from "../testing/fixtures.ts";
import { windowOf } from "./turns.ts";

describe("turns", () => {
  it("ages messages by turns from the end; a preamble is older than every turn", () => {
    const s = new SessionBuilder()
      .push({ role: "compactionSummary", summary: "earlier", timestamp: 1 })
      .user("one")
      .assistant("a1");
    s.tool("read", { path: "x" }, "body");
    s.user("two").assistant("a2").user("three");
    const analysis = analyze(s.messages);
    expect(s.messages.map((_m, i) => analysis.ageOf(i))).toEqual([3, 2, 2, 2, 2, 1, 1, 0]);
  });

  it("windows: intact below keepRecentIntactTurns, cold below keepRecentTurns, old from it", () => {
    const w = { keepRecentTurns: 6, keepRecentIntactTurns: 1 };
    expect(windowOf(0, w)).toBe("intact");
    expect(windowOf(1, w)).toBe("cold");
    expect(windowOf(5, w)).toBe("cold");
    expect(windowOf(6, w)).toBe("old");
    expect(windowOf(2, { keepRecentTurns: 2, keepRecentIntactTurns: 2 })).toBe("old");
    expect(windowOf(1, { keepRecentTurns: 2, keepRecentIntactTurns: 2 })).toBe("intact");
    expect(windowOf(0, { keepRecentTurns: 0, keepRecentIntactTurns: 0 })).toBe("intact"); // the current turn, always
    expect(windowOf(1, { keepRecentTurns: 0, keepRecentIntactTurns: 0 })).toBe("old");
    expect(windowOf(3, { keepRecentTurns: 1, keepRecentIntactTurns: 4 })).toBe("intact");
    expect(windowOf(4, { keepRecentTurns: 1, keepRecentIntactTurns: 4 })).toBe("old");
  });
});
