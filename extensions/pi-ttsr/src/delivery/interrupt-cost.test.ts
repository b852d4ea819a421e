import { describe, expect, it } from "vitest";
import {
  addInterrupt,
  EMPTY_TALLY,
  formatDollars,
  interruptCostStatus,
  interruptCostText,
  readAttemptUsage,
} from "./interrupt-cost.ts";

/** pi-ai's `Usage` of an aborted Anthropic attempt: message_start reported the input and a cache write. */
const ANTHROPIC_ABORT = {
  input: 1200,
  output: 37,
  cacheRead: 0,
  cacheWrite: 4000,
  totalTokens: 5237,
  cost: { input: 0.0036, output: 0.000555, cacheRead: 0, cacheWrite: 0.015, total: 0.019155 },
};

describe("readAttemptUsage: the stream_abort event's usage, read defensively", () => {
  it("reads pi-ai's Usage", () => {
    expect(readAttemptUsage(ANTHROPIC_ABORT)).toEqual({
      input: 1200,
      output: 37,
      cacheRead: 0,
      cacheWrite: 4000,
      totalTokens: 5237,
      cost: 0.019155,
    });
  });

  it.each([
    ["absent (stock pi, an older patch)", undefined],
    ["null", null],
    ["not an object", "5237"],
    ["an object without any count", { cost: { total: 1 } }],
    ["counts that are not numbers", { input: "1", output: Number.NaN, totalTokens: -3 }],
    [
      "all zeros (pi-ai's initial usage: the provider's usage event had not come yet)",
      { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { total: 0 } },
    ],
  ])("%s: no usage", (_what, value) => {
    expect(readAttemptUsage(value)).toBeUndefined();
  });

  it("reads back what it persisted (cost as a plain number)", () => {
    const usage = readAttemptUsage(ANTHROPIC_ABORT);
    expect(readAttemptUsage(JSON.parse(JSON.stringify(usage)))).toEqual(usage);
  });

  it("a provider that left totalTokens at 0 is summed; a missing or 0 cost is not shown as money", () => {
    const zeroCost = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 };
    expect(
      readAttemptUsage({ input: 10, output: 5, cacheRead: 100, cacheWrite: 0, totalTokens: 0, cost: zeroCost }),
    ).toEqual({
      input: 10,
      output: 5,
      cacheRead: 100,
      cacheWrite: 0,
      totalTokens: 115,
    });
  });
});

describe("the session's tally and its text", () => {
  it("says nothing before an interrupt reported usage (not '0 tokens')", () => {
    expect(interruptCostText(EMPTY_TALLY)).toBeUndefined();
    const unknown = addInterrupt(addInterrupt(EMPTY_TALLY, undefined), undefined);
    expect(unknown.interrupts).toBe(2);
    expect(interruptCostText(unknown)).toBeUndefined();
    expect(interruptCostStatus(unknown)).toBeUndefined();
  });

  it("sums tokens and money over interrupts", () => {
    const usage = readAttemptUsage(ANTHROPIC_ABORT);
    const tally = addInterrupt(addInterrupt(EMPTY_TALLY, usage), usage);
    expect(tally).toEqual({
      interrupts: 2,
      withUsage: 2,
      tokens: 10_474,
      cacheWrite: 8000,
      cost: 0.03831,
      costKnown: true,
    });
    expect(interruptCostText(tally)).toBe("interrupts cost 10,474 tokens this session ($0.04)");
    expect(interruptCostStatus(tally)).toBe("TTSR interrupts: 10,474 tok ($0.04)");
  });

  it("tokens without prices: no money; some interrupts without usage: the total is said to be partial", () => {
    const noPrice = readAttemptUsage({ input: 40, output: 2, cacheRead: 0, cacheWrite: 0, totalTokens: 42 });
    const tally = addInterrupt(addInterrupt(EMPTY_TALLY, noPrice), undefined);
    expect(interruptCostText(tally)).toBe("interrupts cost 42 tokens this session; 1 of 2 interrupts reported usage");
  });

  it("dollars: cents from a cent, four decimals below", () => {
    expect(formatDollars(0)).toBe("$0.00");
    expect(formatDollars(0.0031)).toBe("$0.0031");
    expect(formatDollars(1.5)).toBe("$1.50");
  });
});
