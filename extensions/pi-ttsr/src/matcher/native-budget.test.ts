import { describe, expect, it } from "vitest";
import { cpuMs, DeltaBudget, overBudget } from "./native-budget.ts";

const LIMITS = { unitMs: 40, totalMs: 120 };

/** Blocks this thread for `ms` of wall time without using the CPU: what another process holding the CPU does to us. */
function starved(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** Uses `ms` of this thread's own CPU time. */
function busy(ms: number): void {
  const until = cpuMs() + ms;
  while (cpuMs() < until) {}
}

describe("native budget: a pattern is judged by its own CPU time", () => {
  it("strikes a unit once per delta, when its cost first crosses the budget or goes far over it", () => {
    expect(overBudget(10, 30, 30, LIMITS)).toEqual({ strike: false, total: false });
    expect(overBudget(30, 45, 45, LIMITS)).toEqual({ strike: true, total: false });
    expect(overBudget(45, 60, 60, LIMITS)).toEqual({ strike: false, total: false });
    expect(overBudget(45, 170, 170, LIMITS)).toEqual({ strike: true, total: true });
    expect(overBudget(0, 10, 130, LIMITS)).toEqual({ strike: false, total: true });
  });

  it("a call the machine delayed (wall time, no CPU) costs what it ran, not what it waited", () => {
    const budget = new DeltaBudget();
    const { result, ms } = budget.run(0, () => {
      starved(80);
      return "found";
    });
    expect(result).toBe("found");
    expect(ms).toBeGreaterThanOrEqual(75); // by the wall clock: a strike, were it believed
    expect(budget.confirm()).toBeLessThan(LIMITS.unitMs);
    expect(budget.spentBy(0)).toBeLessThan(LIMITS.unitMs);
    expect(budget.total).toBeLessThan(LIMITS.totalMs);
  });

  it("a call that really is slow stays over budget once confirmed, and later calls are timed in CPU time", () => {
    const budget = new DeltaBudget();
    budget.run(1, () => busy(1));
    budget.run(0, () => busy(70));
    expect(budget.confirm()).toBeGreaterThanOrEqual(60);
    expect(budget.spentBy(0)).toBeGreaterThanOrEqual(60);
    expect(budget.spentBy(1)).toBeLessThan(LIMITS.unitMs);
    expect(budget.isConfirmed).toBe(true);
    // Confirmed: a delay from elsewhere no longer counts at all.
    const { ms } = budget.run(2, () => starved(60));
    expect(ms).toBeLessThan(LIMITS.unitMs);
    budget.drop(0);
    expect(budget.spentBy(0)).toBe(0);
    budget.reset();
    expect([budget.isConfirmed, budget.total, budget.spentBy(1)]).toEqual([false, 0, 0]);
  });
});
