/**
 * What one delta's native regex work costs, per unit, judged by the work's own cost: not by the wall clock, which
 * also counts the time other processes held the CPU (a build, CI running every suite, a laptop on battery) and
 * garbage collection pauses.
 *
 * Each native call is timed with the wall clock (cheap: most calls take microseconds). Only when the wall times say
 * a budget is crossed is the delta's work confirmed: every call of the delta so far runs again, timed in CPU time
 * of this thread, and each call is charged the smaller of its two measures. A pattern that is slow is slow both
 * times; a delay from elsewhere (the process descheduled, a collection of garbage other code made) does not recur
 * in the same call, and CPU time does not count time the thread waited. For the rest of a confirmed delta each call
 * is timed in CPU time directly.
 */

/**
 * Native work on one pattern in one delta may cost this much (ms of its own CPU time; neither other processes nor
 * garbage collection count). A pattern over it on NATIVE_STRIKES deltas of a session, or over 4 times it on one, is
 * suspended for the session, with one warning. Single native calls are bounded by their windows (the stream
 * matcher's NATIVE_MAX_WINDOW, less for patterns with polynomial backtracking), so the event loop is never held long.
 */
export const NATIVE_DELTA_BUDGET_MS = 40;
export const NATIVE_STRIKES = 3;
/** Native work of all patterns on one delta; past it the costliest pattern of the delta is suspended. */
export const NATIVE_TOTAL_BUDGET_MS = 120;

type CpuUsage = () => { user: number; system: number };

const threadCpu = (process as unknown as { threadCpuUsage?: CpuUsage }).threadCpuUsage;
/** CPU time of this thread, ms (of the process, on a Node without a per-thread figure: still no other process). */
export const cpuMs: () => number =
  typeof threadCpu === "function"
    ? () => {
        const u = threadCpu.call(process);
        return (u.user + u.system) / 1000;
      }
    : () => {
        const u = process.cpuUsage();
        return (u.user + u.system) / 1000;
      };

export interface BudgetLimits {
  /** One unit's work on one delta. */
  unitMs: number;
  /** All units' work on one delta. */
  totalMs: number;
}

/**
 * Whether a unit's booked cost crossed the per-unit budget with this call (one strike per delta: when its total first
 * crosses, or when it goes far over), and whether the delta's total is over the total budget.
 */
export function overBudget(
  unitBefore: number,
  unitAfter: number,
  total: number,
  limits: BudgetLimits,
): { strike: boolean; total: boolean } {
  const strike = unitAfter > limits.unitMs && (unitBefore <= limits.unitMs || unitAfter > 4 * limits.unitMs);
  return { strike, total: total > limits.totalMs };
}

/** One delta's native calls and their costs (see the module comment). Reset at every delta. */
export class DeltaBudget {
  private readonly units: number[] = [];
  private readonly works: Array<() => unknown> = [];
  private readonly walls: number[] = [];
  private readonly spent = new Map<number, number>();
  /** Whether this delta's costs are CPU-confirmed. */
  private confirmed = false;
  total = 0;

  /** `cpu`: the clock of confirmations (tests may pass a fake). */
  constructor(private readonly cpu: () => number = cpuMs) {}

  reset(): void {
    if (this.units.length === 0 && !this.confirmed) return;
    this.units.length = 0;
    this.works.length = 0;
    this.walls.length = 0;
    this.spent.clear();
    this.confirmed = false;
    this.total = 0;
  }

  spentBy(unit: number): number {
    return this.spent.get(unit) ?? 0;
  }

  /** Units with a cost booked in this delta, and their cost. */
  entries(): IterableIterator<[number, number]> {
    return this.spent.entries();
  }

  /** Runs `work` (a pure search: it may run twice) and books its cost to `unit`; returns its result and its cost. */
  run<T>(unit: number, work: () => T): { result: T; ms: number } {
    if (this.confirmed) {
      const c0 = this.cpu();
      const result = work();
      return { result, ms: this.book(unit, this.cpu() - c0) };
    }
    const t0 = performance.now();
    const result = work();
    const ms = performance.now() - t0;
    this.units.push(unit);
    this.works.push(work);
    this.walls.push(ms);
    return { result, ms: this.book(unit, ms) };
  }

  /**
   * Re-runs the delta's calls so far in CPU time and re-books each at the smaller of its measures; returns the
   * last call's new cost. Later calls of the delta are timed in CPU time. No-op once confirmed.
   */
  confirm(): number {
    if (this.confirmed) return 0;
    this.confirmed = true;
    this.spent.clear();
    this.total = 0;
    let last = 0;
    for (let i = 0; i < this.works.length; i++) {
      const c0 = this.cpu();
      this.works[i]!();
      last = this.book(this.units[i]!, Math.min(this.walls[i]!, Math.max(0, this.cpu() - c0)));
    }
    this.units.length = 0;
    this.works.length = 0;
    this.walls.length = 0;
    return last;
  }

  get isConfirmed(): boolean {
    return this.confirmed;
  }

  /** Forgets a suspended unit's cost (it no longer runs, so it no longer weighs on the total). */
  drop(unit: number): void {
    this.total -= this.spent.get(unit) ?? 0;
    this.spent.delete(unit);
  }

  private book(unit: number, ms: number): number {
    this.spent.set(unit, (this.spent.get(unit) ?? 0) + ms);
    this.total += ms;
    return ms;
  }
}
