import { describe, expect, it } from "vitest";
import { readStreamConditions, streamConditionProblem } from "./stream.ts";

const rule = (condition: string[], meta: Record<string, unknown> = {}) => ({ condition, meta });

describe("stream conditions as pi-ttsr reads them", () => {
  it("a rule none of whose conditions can be used gets one reason naming each", () => {
    expect(streamConditionProblem(rule(["TODO((fix"]))).toBe(
      "no stream condition can be used: /TODO((fix/: invalid regex: Unterminated group",
    );
    expect(streamConditionProblem(rule(["a*", "(?x)a"]))).toMatch(
      /^no stream condition can be used: \/a\*\/: it matches empty text.*; \/\(\?x\)a\/: inline group "\(\?x\)"/,
    );
  });

  it("one usable condition is enough; literals, leading inline flags and the flags key are read", () => {
    expect(streamConditionProblem(rule(["TODO((fix", "eval\\("]))).toBeUndefined();
    expect(streamConditionProblem(rule(["*.rs"]))).toBeUndefined();
    expect(streamConditionProblem(rule([]))).toBeUndefined();
    expect(readStreamConditions(["/todo/i", "(?s)a.b"], "m").regexes).toEqual([
      { source: "todo", flags: "im" },
      { source: "a.b", flags: "ms" },
    ]);
    // `u` makes an escape that is fine without it invalid: the rule's flags count
    expect(streamConditionProblem(rule(["\\-x"], { flags: "u" }))).toMatch(/invalid regex: Invalid escape/);
    expect(streamConditionProblem(rule(["\\-x"]))).toBeUndefined();
  });
});
