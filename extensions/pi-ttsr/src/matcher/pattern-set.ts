import { type CompiledPattern, type CompileResult, compilePattern, type PatternSpec, type Refusal } from "./compile.ts";
import { DEFERRED_MAX_TEXT } from "./deferred.ts";
import type { Lane, LaneOwner } from "./lane.ts";
import { LazyDfa } from "./lazy-dfa.ts";
import { type BudgetLimits, NATIVE_DELTA_BUDGET_MS, NATIVE_STRIKES, NATIVE_TOTAL_BUDGET_MS } from "./native-budget.ts";
import { StartFinder } from "./start-finder.ts";
import { StreamMatcher } from "./stream-matcher.ts";

export interface PatternSetOptions {
  /** Results of compiling `specs` (e.g. from the compile cache, deferred ones included); compiled here when absent. */
  compiled?: ReadonlyArray<CompileResult>;
  nativeBudgetMs?: number;
  /** Compiles a deferred pattern (compilePattern unless set: the registry's also caches it). */
  compile?: (spec: PatternSpec) => CompileResult;
  /** A stream compiles the deferred patterns before its text grows past this many characters (DEFERRED_MAX_TEXT). */
  deferredMaxText?: number;
}

export interface Suspension {
  pattern: number;
  reason: string;
}

/** A compiled set of patterns sharing one lazy automaton; create once per rule set, reuse across streams. */
export class PatternSet implements LaneOwner {
  /** Per pattern: what it compiled to (a deferred pattern until it is compiled), undefined when refused at load. */
  readonly patterns: Array<CompiledPattern | undefined>;
  /** Per pattern: why it was refused at load (with `refusals`: the kind), undefined when it compiled. */
  readonly errors: ReadonlyArray<string | undefined>;
  readonly refusals: ReadonlyArray<Refusal | undefined>;
  /** Per pattern: its compile result (deferred until compiled), what the compile cache stores. */
  readonly results: CompileResult[];
  /**
   * What the matcher runs: each pattern, or the parts of an `all-of` pattern. `unitOwner[u]` is the pattern id.
   */
  readonly units: CompiledPattern[] = [];
  readonly unitOwner: number[] = [];
  /** Unit ids that need work outside the automaton (native, chunk). */
  readonly nativeIds: number[] = [];
  readonly chunkIds: number[] = [];
  /** Unit ids of deferred patterns not compiled yet (deferred.ts). */
  private deferredIds: number[] = [];
  /** Bumped when deferred patterns are compiled: a stream's matcher then rebuilds on the new automaton. */
  generation = 0;
  readonly deferredMaxText: number;
  private readonly compileOne: (spec: PatternSpec) => CompileResult;
  private readonly compiledListeners: Array<(patterns: readonly number[]) => void> = [];
  /** Patterns suspended for the session (native work over its CPU budget), with the reason. */
  readonly suspended = new Map<number, string>();
  private readonly suspendListeners: Array<(s: Suspension) => void> = [];
  private readonly strikes = new Map<number, number>();

  /** Native CPU milliseconds one pattern may spend on one delta (NATIVE_DELTA_BUDGET_MS unless set). */
  readonly nativeBudgetMs: number;
  /** The budgets a stream's native work is held to (per pattern and for all, per delta). */
  readonly budgetLimits: BudgetLimits;

  constructor(specs: ReadonlyArray<PatternSpec>, options: PatternSetOptions = {}) {
    const results: ReadonlyArray<CompileResult> = options.compiled ?? specs.map(compilePattern);
    this.nativeBudgetMs = options.nativeBudgetMs ?? NATIVE_DELTA_BUDGET_MS;
    this.budgetLimits = { unitMs: this.nativeBudgetMs, totalMs: NATIVE_TOTAL_BUDGET_MS };
    this.deferredMaxText = options.deferredMaxText ?? DEFERRED_MAX_TEXT;
    this.compileOne = options.compile ?? compilePattern;
    this.results = [...results];
    this.patterns = results.map((r) => (r.ok ? r.pattern : undefined));
    this.errors = results.map((r) => (r.ok ? undefined : r.error));
    this.refusals = results.map((r) => (r.ok ? undefined : r.refusal));
    this.patterns.forEach((p, id) => {
      if (!p) return;
      for (const unit of p.parts ?? [p]) {
        const u = this.units.length;
        this.units.push(unit);
        this.unitOwner.push(id);
        if (unit.deferred) this.deferredIds.push(u);
        else if (unit.mode === "native") this.nativeIds.push(u);
        if (unit.mode === "chunk") this.chunkIds.push(u);
      }
    });
  }

  private full: Lane | undefined;
  private readonly lanes = new Map<string, Lane>();

  /**
   * The lane of every pattern: what a stream without a restriction runs. Built on first use: the manager runs
   * restricted lanes only, and building an automaton copies every pattern's NFA.
   */
  get fullLane(): Lane {
    this.full ??= this.laneOf(() => true);
    return this.full;
  }

  /** The automaton over every pattern (what `stream()` without a restriction runs). */
  get dfa(): LazyDfa {
    return this.fullLane.dfa;
  }

  /**
   * A matcher for one stream. `patterns` restricts it to those pattern ids (ids and hits stay those of the whole
   * set); the automaton for each distinct restriction is built once and shared by the streams that use it.
   */
  stream(patterns?: readonly number[]): StreamMatcher {
    return new StreamMatcher(this, this.laneFor(patterns), patterns);
  }

  /** The lane of a restriction (every pattern when undefined), built once per restriction and generation. */
  laneFor(patterns?: readonly number[]): Lane {
    if (!patterns) return this.fullLane;
    const key = patterns.join(",");
    let lane = this.lanes.get(key);
    if (!lane) {
      const wanted = new Set(patterns);
      lane = this.laneOf((unit) => wanted.has(this.unitOwner[unit]!));
      this.lanes.set(key, lane);
    }
    return lane;
  }

  /** Whether some pattern is still deferred. */
  get hasDeferred(): boolean {
    return this.deferredIds.length > 0;
  }

  /**
   * Compiles deferred patterns (all of them, or the first `limit`) and swaps them in: lanes are rebuilt and each
   * live stream's matcher catches up on its text at its next delta. A pattern its compile refuses (which the
   * deferral screen makes rare: the regex parser cannot read it) is off from then on, with the reason said once.
   */
  compileDeferred(limit = Number.POSITIVE_INFINITY): void {
    const done: number[] = [];
    for (const u of this.deferredIds.slice(0, limit)) {
      const id = this.unitOwner[u]!;
      const p = this.units[u]!;
      const result = this.compileOne(p.spec);
      this.results[id] = result;
      done.push(id);
      this.startFinders.delete(u);
      if (result.ok && !result.pattern.parts && !result.pattern.deferred) {
        this.patterns[id] = result.pattern;
        this.units[u] = result.pattern;
        if (result.pattern.mode === "native") this.nativeIds.push(u);
        if (result.pattern.mode === "chunk") this.chunkIds.push(u);
        continue;
      }
      const why = result.ok ? "it compiled to a form a deferred pattern cannot take" : result.error;
      this.suspendWith(id, `${why} (found when it compiled after the session started: it is off from now on)`);
    }
    if (done.length === 0) return;
    const compiled = new Set(done);
    this.deferredIds = this.deferredIds.filter((u) => !compiled.has(this.unitOwner[u]!));
    this.generation++;
    this.full = undefined;
    this.lanes.clear();
    for (const listener of this.compiledListeners) listener(done);
  }

  /** Called after each compileDeferred with the pattern ids it compiled (e.g. to cache them). */
  onCompiled(listener: (patterns: readonly number[]) => void): void {
    this.compiledListeners.push(listener);
  }

  private laneOf(includes: (unit: number) => boolean): Lane {
    return {
      dfa: new LazyDfa(
        this.units.map((p, u) =>
          includes(u) && p.nfa && (p.mode === "dfa" || p.mode === "dfa-verify")
            ? { nfa: p.nfa, lineMode: p.spec.window === "line" }
            : undefined,
        ),
      ),
      nativeIds: this.nativeIds.filter(includes),
      chunkIds: this.chunkIds.filter(includes),
      deferredIds: this.deferredIds.filter(includes),
    };
  }

  /** Called once per suspended pattern (e.g. to surface it as a rule issue). */
  onSuspend(listener: (s: Suspension) => void): void {
    this.suspendListeners.push(listener);
  }

  /** Suspends the pattern owning `unit` for the session. */
  suspend(unit: number, ms: number): void {
    const pattern = this.unitOwner[unit]!;
    if (this.suspended.has(pattern)) return;
    const p = this.patterns[pattern]!;
    this.suspendWith(
      pattern,
      `/${p.spec.source}/${p.spec.flags}: suspended for this session: the native regex engine spent ` +
        `${Math.round(ms)} ms of CPU time on one delta (budget ${this.nativeBudgetMs} ms per delta); simplify the pattern`,
    );
  }

  private suspendWith(pattern: number, reason: string): void {
    if (this.suspended.has(pattern)) return;
    this.suspended.set(pattern, reason);
    for (const listener of this.suspendListeners) listener({ pattern, reason });
  }

  /** One delta's native time of a unit went over budget: suspends it at the last strike (or far over budget). */
  overBudget(unit: number, ms: number): void {
    const strikes = (this.strikes.get(unit) ?? 0) + 1;
    this.strikes.set(unit, strikes);
    if (strikes >= NATIVE_STRIKES || ms > 4 * this.nativeBudgetMs) this.suspend(unit, ms);
  }

  isSuspendedUnit(unit: number): boolean {
    return this.suspended.size > 0 && this.suspended.has(this.unitOwner[unit]!);
  }

  private readonly startFinders = new Map<number, StartFinder | undefined>();

  /** The reversed automaton of a verified unit, built on first need. */
  startFinder(unit: number): StartFinder | undefined {
    if (!this.startFinders.has(unit)) {
      const nfa = this.units[unit]?.nfa;
      this.startFinders.set(unit, nfa ? new StartFinder(nfa) : undefined);
    }
    return this.startFinders.get(unit);
  }
}
