import { type CompiledPattern, type CompileResult, compilePattern, type PatternSpec } from "./compile.ts";
import { type DfaState, LazyDfa } from "./lazy-dfa.ts";

/** Native searches never look further back than this (bounds time on pathological long windows). */
export const NATIVE_MAX_WINDOW = 64 * 1024;

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
  /** The buffer length past which the candidate can no longer become a match (its lookaheads are settled). */
  settledAt: number;
  /** For line windows: the line the candidate lies on. */
  lineStart: number;
}

/**
 * Incremental matcher for one stream (the text, the thinking, or one tool call's arguments).
 * `push(delta)` returns the patterns whose first match completes within this delta: exactly the patterns
 * for which a plain `regex.test(everythingSoFar)` turns true now (per line / per chunk for those windows).
 * Each character is examined once by the automaton; native work is confined to candidates and windows.
 */
export class StreamMatcher {
  private text = "";
  private state: DfaState;
  private readonly matched = new Set<number>();
  private readonly candidates = new Map<number, Candidate[]>();

  constructor(private readonly set: PatternSet) {
    this.state = set.dfa.start;
  }

  /** Everything pushed so far (tools use it to locate matches). */
  get buffer(): string {
    return this.text;
  }

  hasMatched(pattern: number): boolean {
    return this.matched.has(pattern);
  }

  push(chunk: string): PatternHit[] {
    if (chunk.length === 0) return NO_HITS;
    // Allocated lazily: the common delta matches nothing and must not create garbage.
    let hits = NO_HITS;
    const base = this.text.length;
    this.text += chunk;
    const dfa = this.set.dfa;
    let s = this.state;
    for (let i = 0; i < chunk.length; i++) {
      const c = chunk.charCodeAt(i);
      s = (c < 128 ? s.ascii[c] : undefined) ?? dfa.step(s, c);
      if (s.accepts.length !== 0) {
        if (hits === NO_HITS) hits = [];
        this.onAccept(s.accepts, base + i + 1, hits);
      }
    }
    this.state = s;
    if (this.candidates.size === 0 && this.set.nativeIds.length === 0 && this.set.chunkIds.length === 0) return hits;
    if (hits === NO_HITS) hits = [];
    if (this.candidates.size !== 0) this.verifyCandidates(hits);
    for (const id of this.set.nativeIds) {
      if (!this.matched.has(id)) this.runNative(id, base, hits);
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

  private hit(pattern: number, end: number, hits: PatternHit[]): void {
    this.matched.add(pattern);
    this.candidates.delete(pattern);
    hits.push({ pattern, end });
  }

  private onAccept(accepts: Int32Array, end: number, hits: PatternHit[]): void {
    for (const id of accepts) {
      if (this.matched.has(id)) continue;
      const p = this.set.patterns[id]!;
      if (p.mode === "dfa") {
        this.hit(id, end, hits);
        continue;
      }
      // dfa-verify: the assertion-free superset matched; queue a candidate for the native check.
      const line = p.spec.window === "line";
      const lineStart = this.text.lastIndexOf("\n", end - 1) + 1;
      let from = 0;
      if (line || !p.crossesLines) from = lineStart;
      else if (Number.isFinite(p.maxLength)) from = Math.max(0, end - p.maxLength);
      from = Math.max(from, end - NATIVE_MAX_WINDOW);
      const settledAt = end + p.lookahead;
      const list = this.candidates.get(id);
      const candidate = { from, settledAt, lineStart };
      if (list) list.push(candidate);
      else this.candidates.set(id, [candidate]);
    }
  }

  private verifyCandidates(hits: PatternHit[]): void {
    const len = this.text.length;
    for (const [id, list] of this.candidates) {
      const p = this.set.patterns[id]!;
      const re = p.regex;
      let found = -1;
      if (p.spec.window === "line") {
        const checked = new Set<number>();
        for (const c of list) {
          if (checked.has(c.lineStart)) continue;
          checked.add(c.lineStart);
          const nl = this.text.indexOf("\n", c.lineStart);
          const line = this.text.slice(c.lineStart, nl < 0 ? len : nl);
          re.lastIndex = 0;
          const m = re.exec(line);
          if (m) {
            found = c.lineStart + m.index + m[0].length;
            break;
          }
        }
      } else {
        let from = len;
        for (const c of list) from = Math.min(from, c.from);
        re.lastIndex = from;
        const m = re.exec(this.text);
        if (m) found = m.index + m[0].length;
      }
      if (found >= 0) {
        this.hit(id, found, hits);
        continue;
      }
      // Keep only candidates whose lookaheads can still change their outcome.
      const alive = list.filter((c) => {
        if (c.settledAt <= len) return false;
        if (p.spec.window === "line" && this.text.indexOf("\n", c.lineStart) >= 0) return false;
        return true;
      });
      if (alive.length === 0) this.candidates.delete(id);
      else this.candidates.set(id, alive);
    }
  }

  private runNative(id: number, base: number, hits: PatternHit[]): void {
    const p = this.set.patterns[id]!;
    const re = p.regex;
    const len = this.text.length;
    if (p.spec.window === "line") {
      // Lines closed in this delta, then the open line; earlier lines were checked when they were open.
      let start = this.text.lastIndexOf("\n", base - 1) + 1;
      while (start <= len) {
        const nl = this.text.indexOf("\n", start);
        const line = this.text.slice(Math.max(start, len - NATIVE_MAX_WINDOW), nl < 0 ? len : nl);
        re.lastIndex = 0;
        const m = re.exec(line);
        if (m) {
          this.hit(id, (nl < 0 ? len : nl) - line.length + m.index + m[0].length, hits);
          return;
        }
        if (nl < 0) break;
        start = nl + 1;
      }
      return;
    }
    // A new match must end after `base - lookahead` (else it was already found); bound its start.
    const settledUpTo = Math.max(0, base - p.lookahead);
    let from = 0;
    if (!p.crossesLines) from = this.text.lastIndexOf("\n", settledUpTo - 1) + 1;
    else if (Number.isFinite(p.maxLength)) from = Math.max(0, settledUpTo - p.maxLength);
    from = Math.max(from, len - NATIVE_MAX_WINDOW);
    re.lastIndex = from;
    const m = re.exec(this.text);
    if (m) this.hit(id, m.index + m[0].length, hits);
  }
}

/**
 * The reference semantics, written plainly: after each delta, test every pattern on the whole text so far
 * (lines of it / the delta, for those windows). Quadratic; used by the property tests and the bench.
 */
export function naiveFirstMatches(specs: ReadonlyArray<PatternSpec>, deltas: readonly string[]): Array<number | null> {
  const regexes = specs.map((s) => new RegExp(s.source, s.flags.replace(/[gyd]/g, "")));
  const result: Array<number | null> = specs.map(() => null);
  let acc = "";
  deltas.forEach((delta, k) => {
    acc += delta;
    specs.forEach((spec, i) => {
      if (result[i] !== null) return;
      const re = regexes[i]!;
      const ok =
        spec.window === "chunk"
          ? re.test(delta)
          : spec.window === "line"
            ? acc.split("\n").some((line) => re.test(line))
            : re.test(acc);
      if (ok) result[i] = k;
    });
  });
  return result;
}
