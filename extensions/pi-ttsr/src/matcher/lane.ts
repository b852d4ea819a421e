import type { CompiledPattern } from "./compile.ts";
import type { LazyDfa } from "./lazy-dfa.ts";
import type { BudgetLimits } from "./native-budget.ts";
import type { StartFinder } from "./start-finder.ts";

/**
 * The units one kind of stream runs (prose, thinking, tool calls): its own automaton over just those units, and
 * the ones it checks natively. A stream whose source no rule watches does no work at all.
 */
export interface Lane {
  readonly dfa: LazyDfa;
  readonly nativeIds: readonly number[];
  readonly chunkIds: readonly number[];
  /** Units of deferred patterns (deferred.ts): their linear-time regexes run on the text so far. */
  readonly deferredIds: readonly number[];
}

/**
 * What a stream's matcher reads of its pattern set and reports back to it (over-budget native work). Declared apart
 * from both, so the set, which creates matchers, and the matcher do not import each other.
 */
export interface LaneOwner {
  readonly patterns: ReadonlyArray<CompiledPattern | undefined>;
  /** What the matcher runs: each pattern, or the parts of an `all-of` pattern; `unitOwner[u]` is the pattern id. */
  readonly units: readonly CompiledPattern[];
  readonly unitOwner: readonly number[];
  readonly suspended: ReadonlyMap<number, string>;
  readonly budgetLimits: BudgetLimits;
  readonly fullLane: Lane;
  /** Bumped when deferred patterns are compiled: lanes built before are stale. */
  readonly generation: number;
  /** A stream with deferred patterns compiles them before its text grows past this. */
  readonly deferredMaxText: number;
  laneFor(patterns?: readonly number[]): Lane;
  compileDeferred(): void;
  isSuspendedUnit(unit: number): boolean;
  overBudget(unit: number, ms: number): void;
  suspend(unit: number, ms: number): void;
  startFinder(unit: number): StartFinder | undefined;
}
