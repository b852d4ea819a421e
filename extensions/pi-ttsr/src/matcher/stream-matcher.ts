import { type CompiledPattern, type CompileResult, compilePattern, type PatternSpec } from "./compile.ts";
import { type DfaState, LazyDfa } from "./lazy-dfa.ts";
import { StartFinder } from "./start-finder.ts";
import { TextBuffer } from "./text-buffer.ts";

/** Native searches never look further back than this (bounds time on pathological long windows). */
export const NATIVE_MAX_WINDOW = 64 * 1024;
/**
 * An unbounded lookahead that refa could not inline (a negative one, say `(?![\s\S]*done)`) is decided on the
 * text so far, like the plain matcher does, for at most this many characters after the match; then the candidate
 * is dropped. Keeps the per-delta work bounded.
 */
export const LOOKAHEAD_HORIZON = 1024;

/** A compiled set of patterns sharing one lazy automaton; create once per rule set, reuse across streams. */
export class PatternSet {
  readonly patterns: ReadonlyArray<CompiledPattern | undefined>;
  readonly errors: ReadonlyArray<string | undefined>;
  readonly dfa: LazyDfa;
  /** Ids of the patterns that need work outside the automaton (verify queue, native, chunk). */
  readonly nativeIds: number[];
  readonly chunkIds: number[];

  constructor(specs: ReadonlyArray<PatternSpec>) {
    const results: CompileResult[] = specs.map(compilePattern);
    this.patterns = results.map((r) => (r.ok ? r.pattern : undefined));
    this.errors = results.map((r) => (r.ok ? undefined : r.error));
    this.dfa = new LazyDfa(
      this.patterns.map((p) =>
        p?.nfa && (p.mode === "dfa" || p.mode === "dfa-verify")
          ? { nfa: p.nfa, lineMode: p.spec.window === "line" }
          : undefined,
      ),
    );
    this.nativeIds = [];
    this.chunkIds = [];
    this.patterns.forEach((p, id) => {
      if (p?.mode === "native") this.nativeIds.push(id);
      if (p?.mode === "chunk") this.chunkIds.push(id);
    });
  }

  stream(): StreamMatcher {
    return new StreamMatcher(this);
  }

  private readonly startFinders = new Map<number, StartFinder | undefined>();

  /** The reversed automaton of a verified pattern, built on first need. */
  startFinder(id: number): StartFinder | undefined {
    if (!this.startFinders.has(id)) {
      const nfa = this.patterns[id]?.nfa;
      this.startFinders.set(id, nfa ? new StartFinder(nfa) : undefined);
    }
    return this.startFinders.get(id);
  }
}

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
  /** Buffer length at which the candidate's lookahead context has fully streamed (Infinity: never). */
  settledAt: number;
  /** The line the candidate lies on (line windows). */
  lineStart: number;
  /** Unbounded lookaheads only: dropped once the buffer is longer than this. */
  deadline: number;
  /** Range of the (merged) candidate match ends. */
  minEnd: number;
  maxEnd: number;
}

/**
 * Incremental matcher for one stream (the text, the thinking, or one tool call's arguments).
 *
 * `push(delta)` returns the patterns whose first match completes within this delta, where a match is complete
 * once the characters its lookaheads read (`\b`, `$`, `(?=...)`) have streamed too: `any` at the end of a delta
 * does not yet match `\bany\b`, since the next delta may say `anything`. `finish()` settles what only the end of
 * the stream completes. Exactly: a pattern fires on the first delta after which `settledRegex.test(text so far)`
 * holds (per closed line / per chunk for those windows), as the plain matcher `naiveFirstMatches` computes.
 *
 * Each character is examined once by the automaton; native work is confined to candidates and bounded windows,
 * read from a TextBuffer so its cost does not depend on the length of the response.
 */
export class StreamMatcher {
  private readonly text = new TextBuffer();
  private state: DfaState;
  private readonly matched = new Set<number>();
  private readonly candidates = new Map<number, Candidate[]>();
  /** Start offset of the line the next character belongs to. */
  private lineStart = 0;
  private finished = false;

  constructor(private readonly set: PatternSet) {
    this.state = set.dfa.start;
  }

  /** Everything pushed so far. */
  get buffer(): string {
    return this.text.toString();
  }

  get length(): number {
    return this.text.length;
  }

  hasMatched(pattern: number): boolean {
    return this.matched.has(pattern);
  }

  push(chunk: string): PatternHit[] {
    if (chunk.length === 0 || this.finished) return NO_HITS;
    // Allocated lazily: the common delta matches nothing and must not create garbage.
    let hits = NO_HITS;
    const base = this.text.length;
    this.text.append(chunk);
    const dfa = this.set.dfa;
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
    if (this.candidates.size === 0 && this.set.nativeIds.length === 0 && this.set.chunkIds.length === 0) return hits;
    if (hits === NO_HITS) hits = [];
    if (this.candidates.size !== 0) this.verifyCandidates(hits, false);
    for (const id of this.set.nativeIds) {
      if (!this.matched.has(id)) this.runNative(id, base, hits, false);
    }
    for (const id of this.set.chunkIds) {
      if (this.matched.has(id)) continue;
      const re = this.set.patterns[id]!.regex;
      re.lastIndex = 0;
      const m = re.exec(chunk);
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
    this.finished = true;
    const hits: PatternHit[] = [];
    if (this.candidates.size !== 0) this.verifyCandidates(hits, true);
    for (const id of this.set.nativeIds) {
      if (!this.matched.has(id)) this.runNative(id, this.text.length, hits, true);
    }
    return hits.length === 0 ? NO_HITS : hits;
  }

  private hit(pattern: number, end: number, hits: PatternHit[]): void {
    this.matched.add(pattern);
    this.candidates.delete(pattern);
    hits.push({ pattern, end });
  }

  private onAccept(accepts: Int32Array, end: number, lineStart: number, hits: PatternHit[]): void {
    for (const id of accepts) {
      if (this.matched.has(id)) continue;
      const p = this.set.patterns[id]!;
      if (p.mode === "dfa") {
        this.hit(id, end, hits);
        continue;
      }
      // dfa-verify: the assertion-free superset matched; queue a candidate for the native check.
      const line = p.spec.window === "line";
      let from = 0;
      if (line || !p.crossesLines) from = lineStart;
      else if (Number.isFinite(p.maxLength)) from = Math.max(0, end - p.maxLength);
      from = Math.max(from, end - NATIVE_MAX_WINDOW);
      const settledAt = end + p.lookahead;
      const deadline = end + LOOKAHEAD_HORIZON;
      const list = this.candidates.get(id);
      if (!list) {
        this.candidates.set(id, [{ from, settledAt, lineStart, deadline, minEnd: end, maxEnd: end }]);
        continue;
      }
      // Candidates of one line / one settling point are checked by one search: merge them.
      const last = list[list.length - 1]!;
      if (last.settledAt === settledAt || (!Number.isFinite(settledAt) && !Number.isFinite(last.settledAt))) {
        if (!line || last.lineStart === lineStart) {
          last.from = Math.min(last.from, from);
          last.deadline = Math.max(last.deadline, deadline);
          last.minEnd = Math.min(last.minEnd, end);
          last.maxEnd = Math.max(last.maxEnd, end);
          continue;
        }
      }
      list.push({ from, settledAt, lineStart, deadline, minEnd: end, maxEnd: end });
    }
  }

  /** Searches the buffer from `from` on (with the context its lookbehinds need); returns the match end or -1. */
  private searchFrom(p: CompiledPattern, re: RegExp, from: number): number {
    const windowStart = Number.isFinite(p.lookbehind) ? Math.max(0, from - p.lookbehind) : 0;
    const window = this.text.slice(windowStart);
    re.lastIndex = from - windowStart;
    const m = re.exec(window);
    return m ? windowStart + m.index + m[0].length : -1;
  }

  /** The line starting at `lineStart`, searched on its own (closed lines are final; the open one may grow). */
  private searchLine(p: CompiledPattern, lineStart: number, final: boolean): number {
    const tail = this.text.slice(lineStart, lineStart + NATIVE_MAX_WINDOW);
    const nl = tail.indexOf("\n");
    const line = nl < 0 ? tail : tail.slice(0, nl);
    const re = nl >= 0 || final ? p.regex : p.settledRegex;
    re.lastIndex = 0;
    const m = re.exec(line);
    return m ? lineStart + m.index + m[0].length : -1;
  }

  private verifyCandidates(hits: PatternHit[], final: boolean): void {
    const len = this.text.length;
    for (const [id, list] of this.candidates) {
      const p = this.set.patterns[id]!;
      const line = p.spec.window === "line";
      // A candidate is due once its lookahead context streamed (or its line closed, or the stream ended).
      // Unbounded lookaheads never settle before the end: those are checked on every delta, as a prefix.
      const due = (c: Candidate) =>
        final || c.settledAt <= len || !Number.isFinite(c.settledAt) || (line && this.text.lastNewline >= c.lineStart);
      let found = -1;
      let from = Number.POSITIVE_INFINITY;
      for (const c of list) {
        if (!due(c)) continue;
        if (line) {
          found = this.searchLine(p, c.lineStart, final);
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
        from = Math.min(from, start);
      }
      if (!line && Number.isFinite(from)) found = this.searchFrom(p, final ? p.regex : p.settledRegex, from);
      if (found >= 0) {
        this.hit(id, found, hits);
        continue;
      }
      const waiting = list.filter(
        (c) =>
          !due(c) ||
          (!Number.isFinite(c.settledAt) &&
            !final &&
            c.deadline >= len &&
            !(line && this.text.lastNewline >= c.lineStart)),
      );
      if (waiting.length === 0) this.candidates.delete(id);
      else this.candidates.set(id, waiting);
    }
  }

  private runNative(id: number, base: number, hits: PatternHit[], final: boolean): void {
    const p = this.set.patterns[id]!;
    const len = this.text.length;
    if (p.spec.window === "line") {
      // Lines closed in this delta, then the open line; earlier lines were decided when they closed.
      const start = this.text.lastNewlineBefore(base, NATIVE_MAX_WINDOW) + 1;
      const region = this.text.slice(start);
      let offset = 0;
      while (offset <= region.length) {
        const nl = region.indexOf("\n", offset);
        const line = region.slice(offset, nl < 0 ? region.length : nl);
        const re = nl >= 0 || final ? p.regex : p.settledRegex;
        re.lastIndex = 0;
        const m = re.exec(line);
        if (m) {
          this.hit(id, start + offset + m.index + m[0].length, hits);
          return;
        }
        if (nl < 0) break;
        offset = nl + 1;
      }
      return;
    }
    // A newly settled match ends after `base - lookahead` (else it was found before): bound its start. An
    // unbounded lookahead is looked at for LOOKAHEAD_HORIZON characters.
    const settledUpTo = Math.max(0, base - (Number.isFinite(p.lookahead) ? p.lookahead : LOOKAHEAD_HORIZON));
    let from = 0;
    if (!p.crossesLines) from = this.text.lastNewlineBefore(settledUpTo, NATIVE_MAX_WINDOW) + 1;
    else if (Number.isFinite(p.maxLength)) from = Math.max(0, settledUpTo - p.maxLength);
    from = Math.max(from, len - NATIVE_MAX_WINDOW);
    const end = this.searchFrom(p, final ? p.regex : p.settledRegex, from);
    if (end >= 0) this.hit(id, end, hits);
  }
}

/**
 * The reference semantics, written plainly: after each delta, test every pattern on the whole text so far
 * (on each line of it / on the delta, for those windows), accepting only matches whose lookahead context has
 * streamed (`settledRegex`; a closed line is final). With `final`, the end of the stream then settles the rest:
 * a pattern first matching there gets index `deltas.length`. Quadratic; for the property tests.
 */
export function naiveFirstMatches(
  specs: ReadonlyArray<PatternSpec>,
  deltas: readonly string[],
  options: { final?: boolean } = {},
): Array<number | null> {
  const compiled = specs.map((spec) => {
    const result = compilePattern(spec);
    const flags = spec.flags.replace(/[gyd]/g, "");
    const plain = new RegExp(spec.source, flags);
    const settled = result.ok ? new RegExp(result.pattern.settledRegex.source, flags) : plain;
    return { plain, settled };
  });
  const result: Array<number | null> = specs.map(() => null);
  let acc = "";
  const test = (i: number, spec: PatternSpec, delta: string, final: boolean): boolean => {
    const { plain, settled } = compiled[i]!;
    if (spec.window === "chunk") return !final && plain.test(delta);
    if (spec.window === "line") {
      const lines = acc.split("\n");
      const open = lines.pop()!;
      return lines.some((line) => plain.test(line)) || (final ? plain : settled).test(open);
    }
    return (final ? plain : settled).test(acc);
  };
  deltas.forEach((delta, k) => {
    acc += delta;
    specs.forEach((spec, i) => {
      if (result[i] === null && test(i, spec, delta, false)) result[i] = k;
    });
  });
  if (options.final) {
    specs.forEach((spec, i) => {
      if (result[i] === null && test(i, spec, "", true)) result[i] = deltas.length;
    });
  }
  return result;
}
