import { type CompiledPattern, NEVER_SETTLES, POLYNOMIAL_MAX_WINDOW } from "./compile.ts";
import type { Lane, LaneOwner } from "./lane.ts";
import type { DfaState } from "./lazy-dfa.ts";
import { DeltaBudget, overBudget } from "./native-budget.ts";
import { TextBuffer } from "./text-buffer.ts";

/** Native searches never look further back than this (bounds time on pathological long windows). */
export const NATIVE_MAX_WINDOW = 64 * 1024;

/** Native calls on windows up to this long (of patterns without polynomial backtracking) are not timed. */
const UNTIMED_WINDOW = 1024;

/** Shared empty result (never mutated: a push that finds something allocates its own array). */
const NO_HITS: PatternHit[] = [];

export interface PatternHit {
  pattern: number;
  /** Offset in the stream's text just past the match (for automaton hits) or of the native match's end. */
  end: number;
}

interface Candidate {
  /** Earliest offset a true match ending at the candidate could start from. */
  from: number;
  /** Checked on every delta once the text is this long... */
  firstDue: number;
  /** ...and for the last time once it is this long. */
  lastDue: number;
  /** The line the candidate lies on (line windows). */
  lineStart: number;
  /** Range of the (merged) candidate match ends (the automaton's accept offsets). */
  minEnd: number;
  maxEnd: number;
}

/**
 * Incremental matcher for one stream (the text, the thinking, or one tool call's arguments).
 *
 * `push(delta)` returns the patterns whose first match completes within this delta, where a match is complete
 * once the characters its lookaheads read (`\b`, `$`, `(?!...)`) have streamed too: `any` at the end of a delta
 * does not yet match `\bany\b`, since the next delta may say `anything`. `finish()` settles what only the end of
 * the stream completes. Exactly: a pattern fires on the first delta after which `settledRegex.test(text so far)`
 * holds (per closed line / per chunk for those windows), as the plain matcher `naiveFirstMatches` computes.
 *
 * Each character is examined once by the automaton; native work is confined to candidates and bounded windows,
 * read from a TextBuffer so its cost does not depend on the length of the response, and is on a CPU budget (native-budget.ts).
 */
export class StreamMatcher {
  private text = new TextBuffer();
  private state: DfaState;
  /** Units decided (matched); and patterns reported. */
  private readonly matched = new Set<number>();
  private readonly reported = new Set<number>();
  /** `all-of` patterns: parts matched so far and the furthest part end. */
  private readonly partial = new Map<number, { count: number; end: number }>();
  private readonly candidates = new Map<number, Candidate[]>();
  /** Start offset of the line the next character belongs to. */
  private lineStart = 0;
  private finished = false;
  /** Native work of the current delta, per unit and in all. */
  private readonly budget = new DeltaBudget();
  /** The lane runs nothing: no automaton pattern, no native, chunk or deferred unit. */
  private idle: boolean;
  /** The set's generation this matcher's lane belongs to (see rebuild). */
  private generation: number;

  constructor(
    private readonly set: LaneOwner,
    private lane: Lane = set.fullLane,
    /** The pattern ids this stream runs (all when undefined): its lane again after a rebuild. */
    private readonly restriction?: readonly number[],
  ) {
    this.state = lane.dfa.start;
    this.generation = set.generation;
    this.idle = StreamMatcher.runsNothing(lane);
  }

  private static runsNothing(lane: Lane): boolean {
    return (
      lane.dfa.patternCount === 0 &&
      lane.nativeIds.length === 0 &&
      lane.chunkIds.length === 0 &&
      lane.deferredIds.length === 0
    );
  }

  /** Everything pushed so far. */
  get buffer(): string {
    return this.text.toString();
  }

  get length(): number {
    return this.text.length;
  }

  /** States this stream's automaton has built so far (shared with the streams of the same restriction). */
  get automatonStates(): number {
    return this.lane.dfa.stateCount;
  }

  hasMatched(pattern: number): boolean {
    return this.reported.has(pattern);
  }

  push(chunk: string): PatternHit[] {
    if (chunk.length === 0 || this.finished) return NO_HITS;
    if (
      this.generation !== this.set.generation ||
      (this.lane.deferredIds.length !== 0 && this.text.length + chunk.length > this.set.deferredMaxText)
    ) {
      return this.rebuild(chunk);
    }
    return this.pushNow(chunk);
  }

  /**
   * The set compiled its deferred patterns (or this stream is about to outgrow them: it has them compiled now):
   * runs the new lane over the text so far, then the delta. Catching up reports nothing the deferred patterns
   * did not (both are exact), except that what was reported stays reported.
   */
  private rebuild(chunk: string): PatternHit[] {
    const deferred = this.lane.deferredIds.length !== 0;
    if (deferred && this.text.length + chunk.length > this.set.deferredMaxText) this.set.compileDeferred();
    this.generation = this.set.generation;
    // A lane without deferred patterns is unchanged (a compile replaces only those): nothing to catch up on.
    if (!deferred) return chunk.length > 0 ? this.pushNow(chunk) : NO_HITS;
    const text = this.text.toString();
    this.lane = this.set.laneFor(this.restriction);
    this.idle = StreamMatcher.runsNothing(this.lane);
    this.text = new TextBuffer();
    this.state = this.lane.dfa.start;
    this.lineStart = 0;
    this.candidates.clear();
    // (the catch-up is one delta of the whole text: chunk-window units, which read each delta alone, skip it)
    const caught = text.length > 0 ? this.pushNow(text, true) : NO_HITS;
    const hits = chunk.length > 0 ? this.pushNow(chunk) : NO_HITS;
    return caught.length === 0 ? hits : [...caught, ...hits];
  }

  private pushNow(chunk: string, catchUp = false): PatternHit[] {
    // Allocated lazily: the common delta matches nothing and must not create garbage.
    let hits = NO_HITS;
    const base = this.text.length;
    this.text.append(chunk);
    // A stream no rule watches (prose with only tool rules) does not read its characters at all.
    if (this.idle) return NO_HITS;
    const dfa = this.lane.dfa;
    let s = this.state;
    let lineStart = this.lineStart;
    for (let i = 0; i < chunk.length; i++) {
      const c = chunk.charCodeAt(i);
      s = (c < 128 ? s.ascii[c] : undefined) ?? dfa.step(s, c);
      if (s.accepts.length !== 0) {
        if (hits === NO_HITS) hits = [];
        this.onAccept(s.accepts, base + i + 1, lineStart, hits);
      }
      if (c === 10) lineStart = base + i + 1;
    }
    this.state = s;
    this.lineStart = lineStart;
    const lane = this.lane;
    if (
      this.candidates.size === 0 &&
      lane.nativeIds.length === 0 &&
      lane.chunkIds.length === 0 &&
      lane.deferredIds.length === 0
    )
      return hits;
    if (hits === NO_HITS) hits = [];
    this.runVerifiers(base, hits, false);
    for (const id of this.lane.chunkIds) {
      if (catchUp || this.matched.has(id) || this.set.isSuspendedUnit(id)) continue;
      const re = this.set.units[id]!.regex;
      const m = this.timed(id, () => {
        re.lastIndex = 0;
        return re.exec(chunk);
      });
      if (m) this.hit(id, base + m.index + m[0].length, hits);
    }
    return hits.length === 0 ? NO_HITS : hits;
  }

  /**
   * The stream ended: the end of the text is now a real end, so matches that only waited for more text to
   * settle a lookahead (`\b`, `$` at the very end) are decided. Later pushes are ignored.
   */
  finish(): PatternHit[] {
    if (this.finished) return NO_HITS;
    // deferred patterns compiled since the last delta: catch up on the new lane first
    const caught = this.generation !== this.set.generation ? this.rebuild("") : NO_HITS;
    this.finished = true;
    const hits: PatternHit[] = [...caught];
    this.runVerifiers(this.text.length, hits, true);
    return hits.length === 0 ? NO_HITS : hits;
  }

  /** A new delta's native budget, then the candidates to verify and the native-only units (from `from`). */
  private runVerifiers(from: number, hits: PatternHit[], final: boolean): void {
    this.budget.reset();
    if (this.candidates.size !== 0) this.verifyCandidates(hits, final);
    for (const id of this.lane.nativeIds)
      if (!this.matched.has(id) && !this.set.isSuspendedUnit(id)) this.runNative(id, from, hits, final);
    if (this.lane.deferredIds.length !== 0) this.runDeferred(from, hits, final);
  }

  /**
   * The deferred patterns (deferred.ts) on the text so far, as the reference semantics reads it: the whole text
   * (each line closed in this delta, and the open line, for line windows), settled matches only until the end.
   * Linear-time regexes over at most `deferredMaxText` characters: not timed.
   */
  private runDeferred(base: number, hits: PatternHit[], final: boolean): void {
    const text = this.text.toString();
    // Line windows: from the line that was open before this delta.
    const firstLine = base === 0 ? 0 : text.lastIndexOf("\n", base - 1) + 1;
    for (const id of this.lane.deferredIds) {
      if (this.matched.has(id) || this.set.isSuspendedUnit(id)) continue;
      const p = this.set.units[id]!;
      const d = p.deferred;
      if (!d) continue;
      const settle = final ? 0 : d.settle;
      const re = final ? d.plain : d.settled;
      if (p.spec.window !== "line") {
        const m = re.exec(text);
        if (m) this.hit(id, m.index + m[0].length - settle, hits);
        continue;
      }
      for (let start = firstLine; start <= text.length; ) {
        const nl = text.indexOf("\n", start);
        const closed = nl >= 0;
        const m = (closed ? d.plain : re).exec(text.slice(start, closed ? nl : text.length));
        if (m) {
          this.hit(id, start + m.index + m[0].length - (closed ? 0 : settle), hits);
          break;
        }
        if (!closed) break;
        start = nl + 1;
      }
    }
  }

  /**
   * Runs one native search (pure: it may run twice, see native-budget.ts) and books its cost; a unit over its
   * per-delta budget is suspended (it stops running at once).
   */
  private timed<T>(unit: number, work: () => T): T {
    const budget = this.budget;
    const { result, ms } = budget.run(unit, work);
    const limits = this.set.budgetLimits;
    let cost = ms;
    let verdict = overBudget(budget.spentBy(unit) - cost, budget.spentBy(unit), budget.total, limits);
    if (!verdict.strike && !verdict.total) return result;
    // Over by the wall clock: confirm by the work's own cost before any strike.
    if (!budget.isConfirmed) {
      cost = budget.confirm();
      verdict = overBudget(budget.spentBy(unit) - cost, budget.spentBy(unit), budget.total, limits);
    }
    if (verdict.strike) {
      this.set.overBudget(unit, budget.spentBy(unit));
      if (this.set.isSuspendedUnit(unit)) {
        this.candidates.delete(unit);
        budget.drop(unit);
      }
    }
    // All patterns together: past the delta budget, the one that spent most in this delta is suspended, so
    // many slow patterns cannot add up to a long stall either.
    if (verdict.total) {
      let worst = -1;
      let most = -1;
      for (const [u, spent] of budget.entries()) {
        if (spent > most && !this.set.isSuspendedUnit(u)) {
          worst = u;
          most = spent;
        }
      }
      if (worst >= 0) {
        this.set.suspend(worst, most);
        this.candidates.delete(worst);
        budget.drop(worst);
      }
    }
    return result;
  }

  private hit(unit: number, end: number, hits: PatternHit[]): void {
    this.matched.add(unit);
    this.candidates.delete(unit);
    const pattern = this.set.unitOwner[unit]!;
    if (this.reported.has(pattern) || this.set.suspended.has(pattern)) return;
    const parts = this.set.patterns[pattern]!.parts;
    if (parts) {
      const seen = this.partial.get(pattern) ?? { count: 0, end: 0 };
      seen.count++;
      seen.end = Math.max(seen.end, end);
      this.partial.set(pattern, seen);
      if (seen.count < parts.length) return;
      end = seen.end;
    }
    this.reported.add(pattern);
    hits.push({ pattern, end });
  }

  private onAccept(accepts: Int32Array, end: number, lineStart: number, hits: PatternHit[]): void {
    for (const id of accepts) {
      if (this.matched.has(id)) continue;
      const p = this.set.units[id]!;
      if (p.mode === "dfa") {
        this.hit(id, end, hits);
        continue;
      }
      if (this.set.isSuspendedUnit(id)) continue;
      // dfa-verify: the superset matched; queue a candidate for the native check.
      const line = p.spec.window === "line";
      let from = end - Math.min(p.maxLength, this.maxWindow(p));
      if (line || !p.crossesLines) from = Math.max(from, lineStart);
      from = Math.max(0, from);
      const firstDue = end + p.dueFrom;
      const lastDue = end + p.dueUntil;
      const list = this.candidates.get(id);
      if (!list) {
        this.candidates.set(id, [{ from, firstDue, lastDue, lineStart, minEnd: end, maxEnd: end }]);
        continue;
      }
      // Candidates of one line / one due point are checked by one search: merge them. End-anchored checks
      // look at each end, so those merge only when due together and adjacent.
      const last = list[list.length - 1]!;
      if (last.firstDue === firstDue && (!line || last.lineStart === lineStart) && !p.endRegex) {
        last.from = Math.min(last.from, from);
        last.lastDue = Math.max(last.lastDue, lastDue);
        last.minEnd = Math.min(last.minEnd, end);
        last.maxEnd = Math.max(last.maxEnd, end);
        continue;
      }
      list.push({ from, firstDue, lastDue, lineStart, minEnd: end, maxEnd: end });
    }
  }

  private maxWindow(p: CompiledPattern): number {
    return p.polynomial ? POLYNOMIAL_MAX_WINDOW : NATIVE_MAX_WINDOW;
  }

  /** The text from `from` on, with the context its lookbehinds need, within the pattern's window. */
  private windowFrom(p: CompiledPattern, from: number): string {
    const windowStart = Number.isFinite(p.lookbehind) ? Math.max(0, from - p.lookbehind) : 0;
    return this.text.slice(Math.max(windowStart, this.text.length - this.maxWindow(p) - 1024));
  }

  /** Searches the buffer from `from` on (see windowFrom); returns the match end or -1. */
  private searchFrom(unit: number, p: CompiledPattern, re: RegExp, from: number): number {
    const window = this.windowFrom(p, from);
    const offset = this.text.length - window.length;
    const start = Math.max(0, from - offset);
    const search = () => {
      re.lastIndex = start;
      return re.exec(window);
    };
    // A short window of a pattern without polynomial backtracking cannot be slow: the clock would cost more.
    const m = p.polynomial || window.length > UNTIMED_WINDOW ? this.timed(unit, search) : search();
    return m ? offset + m.index + m[0].length : -1;
  }

  /** The line starting at `lineStart`, searched on its own (closed lines are final; the open one may grow). */
  private searchLine(unit: number, p: CompiledPattern, lineStart: number, final: boolean): number {
    const tail = this.text.slice(lineStart, lineStart + this.maxWindow(p));
    const nl = tail.indexOf("\n");
    const line = nl < 0 ? tail : tail.slice(0, nl);
    const re = nl >= 0 || final ? p.regex : p.settledRegex;
    const m = this.timed(unit, () => {
      re.lastIndex = 0;
      return re.exec(line);
    });
    return m ? lineStart + m.index + m[0].length : -1;
  }

  private verifyCandidates(hits: PatternHit[], final: boolean): void {
    const len = this.text.length;
    const lastNewline = this.text.lastNewline;
    for (const [id, list] of this.candidates) {
      const p = this.set.units[id]!;
      const line = p.spec.window === "line";
      // A candidate is due from `firstDue` on (or once its line closed, or at the end of the stream).
      let found = -1;
      if (p.endRegex && !line) found = this.checkEnds(id, p, list, final);
      else {
        let from = Number.POSITIVE_INFINITY;
        for (const c of list) {
          const closed = line && lastNewline >= c.lineStart;
          if (!(final || c.firstDue <= len || closed)) continue;
          if (line) {
            found = this.searchLine(id, p, c.lineStart, final);
            if (found >= 0) break;
            continue;
          }
          let start = c.from;
          // A long window (the pattern may cross lines, or is unbounded): find where the matches can start.
          if (c.maxEnd - start > 256) {
            const finder = this.set.startFinder(id);
            if (finder?.useful) {
              start = Math.max(start, finder.earliestStart(this.text, c.minEnd, c.maxEnd, c.maxEnd - start));
            }
          }
          if (start < from) from = start;
        }
        if (!line && from !== Number.POSITIVE_INFINITY) {
          found = this.searchFrom(id, p, final ? p.regex : p.settledRegex, from);
        }
      }
      if (found >= 0) {
        this.hit(id, found, hits);
        continue;
      }
      if (!this.candidates.has(id)) continue; // suspended while checking
      // Keep what is not decided yet: not due, or due but still inside its re-check span.
      let kept = 0;
      if (!final) {
        for (const c of list) {
          const closed = line && lastNewline >= c.lineStart;
          const due = c.firstDue <= len || closed;
          if (!due || (c.lastDue > len && !closed)) list[kept++] = c;
        }
      }
      if (kept === 0) this.candidates.delete(id);
      else list.length = kept;
    }
  }

  /**
   * End-anchored checks: is there a settled match ending exactly at a due candidate's end? The trailing
   * assertions are checked first on a few characters; only ends passing them get the full check, which reads
   * back (at most the window) to where the match starts.
   */
  private checkEnds(unit: number, p: CompiledPattern, list: Candidate[], final: boolean): number {
    return this.timed(unit, () => this.findEnd(p, list, final));
  }

  /**
   * checkEnds' search (pure: reads the text and the candidates; a re-run for the budget may find the list pruned
   * since, which only makes it cheaper).
   */
  private findEnd(p: CompiledPattern, list: readonly Candidate[], final: boolean): number {
    const len = this.text.length;
    let from = Number.POSITIVE_INFINITY;
    const ends: number[] = [];
    // The trailing assertions (`$`, `\b`) of every due end, on one small slice around them.
    let lo = Number.POSITIVE_INFINITY;
    let hi = -1;
    for (const c of list) {
      if (!(final || c.firstDue <= len)) continue;
      lo = Math.min(lo, c.minEnd);
      hi = Math.max(hi, c.maxEnd);
    }
    if (hi < 0) return -1;
    const tail = p.tail;
    const aroundStart = Math.max(0, lo - 2);
    const around = tail ? this.text.slice(aroundStart, hi + tail.reach + 2) : "";
    for (const c of list) {
      if (!(final || c.firstDue <= len)) continue;
      const before = ends.length;
      for (let end = c.minEnd; end <= c.maxEnd; end++) {
        if (tail) {
          tail.regex.lastIndex = end - aroundStart;
          if (!tail.regex.test(around)) continue;
        }
        ends.push(end);
      }
      if (ends.length > before) from = Math.min(from, c.from);
    }
    if (ends.length === 0) return -1;
    const window = this.windowFrom(p, from);
    const offset = len - window.length;
    const re = p.endRegex!;
    for (const end of ends) {
      if (end < offset) continue;
      re.lastIndex = end - offset;
      if (re.test(window)) return end;
    }
    return -1;
  }

  private runNative(id: number, base: number, hits: PatternHit[], final: boolean): void {
    const p = this.set.units[id]!;
    const len = this.text.length;
    const maxWindow = this.maxWindow(p);
    if (p.spec.window === "line") {
      // Lines closed in this delta, then the open line; earlier lines were decided when they closed.
      const start = this.text.lastNewlineBefore(base, maxWindow) + 1;
      const region = this.text.slice(Math.max(start, len - maxWindow));
      const regionStart = len - region.length;
      const end = this.timed(id, () => {
        let offset = 0;
        while (offset <= region.length) {
          const nl = region.indexOf("\n", offset);
          const line = region.slice(offset, nl < 0 ? region.length : nl);
          const re = nl >= 0 || final ? p.regex : p.settledRegex;
          re.lastIndex = 0;
          const m = re.exec(line);
          if (m) return regionStart + offset + m.index + m[0].length;
          if (nl < 0) break;
          offset = nl + 1;
        }
        return -1;
      });
      if (end >= 0) this.hit(id, end, hits);
      return;
    }
    // Nothing settles before the end: the end searches the whole window.
    if (p.settledRegex === NEVER_SETTLES) {
      if (final) {
        const end = this.searchFrom(id, p, p.regex, Math.max(0, len - maxWindow));
        if (end >= 0) this.hit(id, end, hits);
      }
      return;
    }
    // A newly settled match ends after `base - lookahead` (else it was found before), or after `base - readAhead`
    // when this delta may have completed what a positive lookahead reads: bound its start (an unbounded positive
    // lookahead: the whole window).
    const settledUpTo = Math.max(0, base - Math.max(p.lookahead, p.readAhead));
    let from = 0;
    if (!p.crossesLines) from = this.text.lastNewlineBefore(settledUpTo, maxWindow) + 1;
    else if (Number.isFinite(p.maxLength)) from = Math.max(0, settledUpTo - p.maxLength);
    from = Math.max(from, len - maxWindow);
    const end = this.searchFrom(id, p, final ? p.regex : p.settledRegex, from);
    if (end >= 0) this.hit(id, end, hits);
  }
}
