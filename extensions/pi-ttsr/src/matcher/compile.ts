import type { Expression, JS, NFA, NoParent } from "refa";
import {
  hasAssertion,
  lookaheadConjunction,
  lookaroundsConsumed,
  type ReachFacts,
  reachFacts,
  trailingAssertions,
  walkAst,
} from "./analysis.ts";
import { longestWord, nfaReadsChar, type PlainNfa, plainNfa } from "./automaton.ts";
import type { DeferredRegexes } from "./deferred.ts";
import { acceptPoints, firstPrefix, sampleStrings } from "./language-check.ts";
import { libs } from "./libs.ts";
import { checkRedos, type RedosVerdict } from "./redos.ts";

/** What a rule condition is matched against: see the README's "match window". */
export type MatchWindow = "accumulated" | "line" | "chunk";

export interface PatternSpec {
  source: string;
  flags: string;
  window: MatchWindow;
}

/**
 * How a pattern runs on the stream.
 * - `dfa`: exactly on the shared lazy automaton, linear time, no backtracking at all.
 * - `dfa-verify`: the automaton runs a superset of the pattern (assertions dropped, or refa's rewrite of them);
 *   only when it accepts is the native regex run, on a bounded window around the candidate. Also backreferences
 *   refa cannot resolve: the automaton runs them widened to `[\s\S]*`.
 * - `all-of`: a condition made only of lookaheads over the rest of the text (`(?=[\s\S]*A)(?=[\s\S]*B)`): its
 *   parts run as patterns of their own and it holds once every part has matched.
 * - `native`: what the automaton cannot run at all (`u`/`v` flags with astral characters, huge counted
 *   repetitions): the native regex over a bounded window per delta, on a CPU budget.
 * - `chunk`: the proposal's chunk window, the native regex over each raw delta (already bounded).
 */
export type PatternMode = "dfa" | "dfa-verify" | "all-of" | "native" | "chunk";

export interface CompiledPattern {
  spec: PatternSpec;
  mode: PatternMode;
  /** The native regex (global, for `lastIndex` searches), always the rule's own: never a rewrite of it. */
  regex: RegExp;
  /**
   * `regex` that only accepts a match whose outcome more text cannot change: `(?:src)(?=[\s\S]{lookahead})`.
   * Before that, a `\b` or `$` would be satisfied by the end of the text so far (the model writing `any` of
   * `anything`), which is not the end of the response. Same as `regex` when nothing looks ahead (or unboundedly).
   */
  settledRegex: RegExp;
  /** The automaton (exact for `dfa`, a superset for `dfa-verify`). */
  nfa?: PlainNfa;
  /** Longest match of the automaton (consumed characters), Infinity when unbounded: bounds where a match starts. */
  maxLength: number;
  /** Characters past a match's end that can still change it (`\b`, `$`, `(?!...)`); Infinity when unbounded. */
  lookahead: number;
  /**
   * Characters past a match's end that any of its assertions read, positive lookaheads included
   * (`x(?=[\s\S]*y)`: Infinity): text arriving that far after a match can complete it.
   */
  readAhead: number;
  /** Characters before a match's start its lookbehinds (`\b`, `^` with `m`, `(?<=...)`) read; Infinity: from 0. */
  lookbehind: number;
  /** Whether a match can contain a line feed (if not, a match never starts before the current line). */
  crossesLines: boolean;
  /**
   * `dfa-verify`: a candidate (the automaton accepted at offset p) is checked on each delta once the text reaches
   * `p + dueFrom`, and for the last time once it reaches `p + dueUntil`.
   */
  dueFrom: number;
  dueUntil: number;
  /**
   * `dfa-verify` when the automaton accepts exactly where matches end: `(?<=src)`, sticky, checks one candidate
   * end in time independent of the text before it (backward matching stops where the match does).
   */
  endRegex?: RegExp;
  /** With `endRegex`: the assertions a match ends with (sticky), checked first on a few characters around the end. */
  tail?: { regex: RegExp; reach: number };
  /** `all-of`: the parts, each compiled on its own. */
  parts?: CompiledPattern[];
  /** Backtracking the native engine may show on it (scslre): bounded by the window and the CPU budget. */
  polynomial: boolean;
  /** Non-fatal notes for `ttsr list` (e.g. polynomial backtracking bounded by the window). */
  notes: string[];
  /**
   * Not compiled yet (deferred.ts): the matcher runs these linear-time regexes on the text so far until the
   * pattern set compiles it. Never written to the compile cache.
   */
  deferred?: DeferredRegexes;
}

/**
 * Why a pattern is refused when it loads:
 * - `invalid`: not a regex;
 * - `empty`: it matches empty text, so it would fire on every response;
 * - `unanalysable`: the regex parser pi-ttsr analyses patterns with cannot read it;
 * - `too-slow`: it must run on the native engine, where it backtracks exponentially, or polynomially beyond
 *   degree 2 (`MAX_NATIVE_DEGREE`): one unlucky line would stall the stream for seconds or more.
 */
export type Refusal = "invalid" | "empty" | "unanalysable" | "too-slow";

/** A compiled pattern, or a refusal: `error` says what is wrong with the pattern (the caller adds file and key). */
export type CompileResult = { ok: true; pattern: CompiledPattern } | { ok: false; error: string; refusal: Refusal };

/** NFAs above this size fall back to the native engine rather than bloating the shared automaton. */
const MAX_NFA_NODES = 4000;
/**
 * A candidate of a superset that does not read a positive lookahead's text (`x(?=[\s\S]*y)` runs as `x`) is
 * re-checked for at most this many characters after it.
 */
export const RECHECK_HORIZON = 1024;
/** Matches at most this long are verified by a search back from the candidate (end-anchored checks beyond). */
const SHORT_MATCH = 256;
/**
 * Patterns the native engine runs may backtrack polynomially up to this degree: a failing search of its window
 * (POLYNOMIAL_MAX_WINDOW, 2048 characters) then takes about 2048² = 4 M steps, a few ms. Degree 3 is about 8.6 G
 * steps (seconds to minutes): refused at load.
 */
export const MAX_NATIVE_DEGREE = 2;
/** Windows of patterns with polynomial backtracking are capped at this (their cost grows with its square). */
export const POLYNOMIAL_MAX_WINDOW = 2048;
/** Counted repetitions above this are widened to `+` / `*` for the automaton when it would be too large. */
const WIDEN_ABOVE = 100;

/**
 * Parses `/source/flags` literals written in rule files; plain strings are the source itself. Like a JS literal,
 * the source may not contain an unescaped `/`, so a condition such as `/usr/bin/` stays a plain pattern.
 */
export function splitLiteral(condition: string, flags: string): { source: string; flags: string } {
  const literal = /^\/(.+)\/([dgimsuvy]*)$/s.exec(condition);
  if (literal && !/(^|[^\\])\//.test(literal[1]!)) {
    return { source: literal[1]!, flags: uniqueFlags(literal[2]! + flags) };
  }
  return { source: condition, flags: uniqueFlags(flags) };
}

function uniqueFlags(flags: string): string {
  return [...new Set(flags.replace(/[gyd]/g, ""))].sort().join("");
}

/**
 * The `settledRegex` of a pattern whose assertions read to the end of the text (`a(?![\s\S]*b)`, `$` without `m`
 * inside a lookahead): no match of it is final before its line or the response ends, so none settles while
 * streaming; the end decides it with the pattern itself.
 */
export const NEVER_SETTLES = /(?!)/g;

/** `(?:src)(?=[\s\S]{n})`: only matches whose lookahead context has streamed (see `settledRegex`). */
function settledOf(source: string, flags: string, lookahead: number, regex: RegExp): RegExp {
  if (!Number.isFinite(lookahead)) return NEVER_SETTLES;
  if (lookahead <= 0) return regex;
  return new RegExp(`(?:${source})(?=[\\s\\S]{${lookahead}})`, `${flags}g`);
}

/** Compiles one condition; the error string names what is wrong (the caller adds file and key). */
export function compilePattern(spec: PatternSpec): CompileResult {
  const flags = uniqueFlags(spec.flags);
  const literal = spec.window === "chunk" ? undefined : literalChars(spec.source, flags);
  if (literal === undefined) return compileAnalysed(spec);
  const normalized: PatternSpec = { source: spec.source, flags, window: spec.window };
  return { ok: true, pattern: literalPattern(normalized, new RegExp(spec.source, `${flags}g`), literal) };
}

/** `compilePattern` through the regex libraries' analysis, whatever the pattern (plain strings too: tests). */
export function compileAnalysed(spec: PatternSpec): CompileResult {
  const flags = uniqueFlags(spec.flags);
  let regex: RegExp;
  try {
    regex = new RegExp(spec.source, `${flags}g`);
  } catch (error) {
    return {
      ok: false,
      refusal: "invalid",
      error: `invalid regex /${spec.source}/${flags}: ${(error as Error).message}`,
    };
  }
  if (new RegExp(spec.source, flags).test("")) {
    return {
      ok: false,
      refusal: "empty",
      error: `/${spec.source}/${flags} matches empty text, so it would fire on every response`,
    };
  }
  const normalized: PatternSpec = { source: spec.source, flags, window: spec.window };
  let parser: JS.Parser;
  let facts: ReachFacts;
  try {
    parser = libs.refa.JS.Parser.fromLiteral({ source: spec.source, flags });
    facts = reachFacts(parser);
  } catch (error) {
    return {
      ok: false,
      refusal: "unanalysable",
      error: `cannot analyse /${spec.source}/${flags}: ${(error as Error).message}`,
    };
  }
  const b = new Builder(normalized, regex, parser, facts);
  if (spec.window === "chunk") return b.native("chunk window");

  if (spec.window === "accumulated") {
    const parts = lookaheadConjunction(parser, spec.source);
    if (parts) return b.allOf(parts);
  }

  const unicode = flags.includes("u") || flags.includes("v");
  let expression: NoParent<Expression>;
  let maxCharacter: number;
  try {
    const parsed = parser.parse({ assertions: "parse", backreferences: "throw" });
    maxCharacter = parsed.maxCharacter;
    expression = libs.refa.transform(edgeInlining(), parsed.expression);
  } catch (error) {
    const why = (error as Error).message.split("\n")[0] ?? "unsupported";
    if (unicode) return b.native("unicode flag");
    return b.backreferenceSuperset() ?? b.native(why);
  }
  const automaton = (e: NoParent<Expression>) => nfaOf(e, maxCharacter, unicode);
  const rewritten = automaton(expression);
  if (!rewritten) {
    if (unicode) return b.native("unicode flag with characters outside the BMP");
    return b.widenedSuperset() ?? b.native("automaton too large");
  }

  // No assertion anywhere: refa's automaton is the pattern itself.
  if (!hasAssertion(parser)) return b.exact(rewritten);

  // Assertions: refa rewrote them (inlined the positive ones at the edges). Trust the rewrite only as far as the
  // generated strings confirm it: exact, else a superset whose candidates the native regex verifies.
  const ignored = automaton(parser.parse({ assertions: "ignore", backreferences: "throw" }).expression);
  const samples = sampleStrings(
    [rewritten, ignored, lookaroundWords(spec.source, flags)].filter((n): n is PlainNfa => n !== undefined),
    hashOf(spec.source + flags),
    spec.source,
  );
  const settled = new RegExp(settledOf(spec.source, flags, facts.settle, regex).source, flags);
  const check = new SampleCheck(settled, new RegExp(spec.source, flags), samples);
  if (!hasRefaAssertion(expression) && !acceptsEmpty(rewritten) && check.exact(rewritten)) return b.exact(rewritten);
  // A candidate of a short pattern is verified by a search over a few characters; a long or unbounded one is
  // best checked end-anchored (cost independent of the line), when the automaton accepts exactly at match ends.
  const endAnchoredOk = (nfa: PlainNfa) =>
    b.endRegex !== undefined && !(longestWord(nfa) <= SHORT_MATCH) && check.endAnchored(nfa, facts.settle, b.endRegex);
  if (!acceptsEmpty(rewritten)) {
    if (endAnchoredOk(rewritten)) return b.verified(rewritten, facts.settle, facts.settle, true);
    if (check.superset(rewritten, facts.settle, facts.settle)) return b.verified(rewritten, facts.settle, facts.settle);
    if (check.superset(rewritten, 0, facts.settle)) return b.verified(rewritten, 0, facts.settle);
  }
  if (ignored && !acceptsEmpty(ignored)) {
    const until = Math.max(facts.settle, Math.min(facts.readAhead, RECHECK_HORIZON));
    const endAnchored = until === facts.settle && endAnchoredOk(ignored);
    if (endAnchored || check.superset(ignored, facts.settle, until)) {
      return b.verified(ignored, facts.settle, until, endAnchored);
    }
  }
  return b.native("its assertions could not be checked on an automaton");
}

/** Characters a literal may hold unescaped: none that the regex syntax reads (`]` and `}` stay with refa). */
const PLAIN = /^[^\\^$.*+?()[\]{}|\ud800-\udfff]$/;
/** Characters a literal may hold escaped (`\(` is `(`). */
const ESCAPED = /^[\\^$.*+?()[\]{}|/-]$/;

/**
 * The characters of a pattern that is one plain string (`forbiddenCall\(`, `legacy-module`) under flags that do
 * not change what it matches (`m`, `s`: it has no `^`, `$` or `.`), else undefined. Most rules are such strings;
 * they compile without parsing or loading the regex libraries, to what refa's path makes of them (tested).
 */
export function literalChars(source: string, flags: string): string | undefined {
  if (/[^ms]/.test(flags)) return undefined;
  let out = "";
  for (let i = 0; i < source.length; i++) {
    const c = source[i]!;
    if (c === "\\") {
      const next = source[++i];
      if (next === undefined || !ESCAPED.test(next)) return undefined;
      out += next;
    } else if (PLAIN.test(c)) out += c;
    else return undefined;
  }
  return out.length > 0 ? out : undefined;
}

/** The `dfa` pattern of a literal: a chain automaton, one node per character (refa's, node for node). */
function literalPattern(spec: PatternSpec, regex: RegExp, chars: string): CompiledPattern {
  const out: PlainNfa["out"] = [];
  for (let i = 0; i < chars.length; i++) {
    const c = chars.charCodeAt(i);
    out.push([{ to: i + 1, ranges: [c, c] }]);
  }
  out.push([]);
  return {
    spec,
    mode: "dfa",
    regex,
    settledRegex: regex,
    nfa: { initial: 0, finals: [chars.length], out },
    maxLength: chars.length,
    lookahead: 0,
    readAhead: 0,
    lookbehind: 0,
    crossesLines: chars.includes("\n"),
    dueFrom: 0,
    dueUntil: 0,
    polynomial: false,
    notes: [],
  };
}

/** A stretch of a pattern's source and what replaces it. */
type Span = { start: number; end: number; text: string };

/** Assembles the CompiledPattern of each mode from what was parsed. */
class Builder {
  readonly notes: string[] = [];
  /** `(?<=src)`, sticky: is there a match ending exactly at `lastIndex`? (Not with backreferences: reversed.) */
  readonly endRegex: RegExp | undefined;

  constructor(
    readonly spec: PatternSpec,
    readonly regex: RegExp,
    readonly parser: JS.Parser,
    readonly facts: ReachFacts,
  ) {
    this.endRegex = endRegexOf(spec);
  }

  private base(mode: PatternMode, nfa: PlainNfa | undefined): CompiledPattern {
    const settled =
      mode === "dfa" ? this.regex : settledOf(this.spec.source, this.spec.flags, this.facts.settle, this.regex);
    return {
      spec: this.spec,
      mode,
      regex: this.regex,
      settledRegex: settled,
      ...(nfa ? { nfa } : {}),
      maxLength: nfa ? longestWord(nfa) : this.facts.maxLength,
      lookahead: mode === "dfa" ? 0 : this.facts.settle,
      readAhead: mode === "dfa" ? 0 : this.facts.readAhead,
      lookbehind: mode === "dfa" ? 0 : this.facts.lookbehind,
      crossesLines: nfa ? nfaReadsChar(nfa, 10) : crossesLinesOf(this.parser),
      dueFrom: 0,
      dueUntil: 0,
      polynomial: false,
      notes: this.notes,
    };
  }

  exact(nfa: PlainNfa): CompileResult {
    return { ok: true, pattern: this.base("dfa", nfa) };
  }

  verified(nfa: PlainNfa, dueFrom: number, dueUntil: number, endAnchored = false, sameEnds = false): CompileResult {
    if (!Number.isFinite(this.facts.settle)) {
      return this.native("its assertions read to the end of the text: decided when its line or the response ends");
    }
    const redos = checkRedos(this.spec.source, this.spec.flags);
    const slow = this.tooSlow(redos, "its assertions need the native engine");
    if (slow) return slow;
    const pattern = this.base("dfa-verify", nfa);
    // The superset's matches end where the pattern's do (nothing inlined): the pattern's own length bounds them.
    if (sameEnds) pattern.maxLength = Math.min(pattern.maxLength, this.facts.maxLength);
    pattern.dueFrom = Number.isFinite(dueFrom) ? dueFrom : 0;
    pattern.dueUntil = Number.isFinite(dueUntil) ? dueUntil : RECHECK_HORIZON;
    if (endAnchored && this.endRegex) {
      pattern.endRegex = this.endRegex;
      const tail = trailingAssertions(this.parser, this.spec.source);
      if (tail) pattern.tail = { regex: new RegExp(tail.source, `${this.spec.flags}y`), reach: tail.reach };
    }
    pattern.polynomial = redos.polynomial;
    if (redos.polynomial)
      this.notes.push("polynomial backtracking (degree 2): verified on bounded windows, on a CPU budget");
    return { ok: true, pattern };
  }

  native(why: string): CompileResult {
    const redos = checkRedos(this.spec.source, this.spec.flags);
    const slow = this.tooSlow(redos, `needs the native engine (${why})`);
    if (slow) return slow;
    const pattern = this.base(this.spec.window === "chunk" ? "chunk" : "native", undefined);
    pattern.polynomial = redos.polynomial;
    if (redos.polynomial) this.notes.push("polynomial backtracking (degree 2): bounded windows, on a CPU budget");
    this.notes.push(`native engine: ${why}`);
    return { ok: true, pattern };
  }

  allOf(sources: string[]): CompileResult {
    const parts: CompiledPattern[] = [];
    for (const source of sources) {
      const part = compilePattern({ source, flags: this.spec.flags, window: "accumulated" });
      if (!part.ok) return this.native("a lookahead part could not be compiled");
      if (part.pattern.mode === "all-of") return this.native("nested lookahead conditions");
      parts.push(part.pattern);
      for (const note of part.pattern.notes) this.notes.push(`/${source}/: ${note}`);
    }
    const pattern = this.base("all-of", undefined);
    pattern.parts = parts;
    return { ok: true, pattern };
  }

  /**
   * Backreferences refa cannot resolve (`(\\w+) \\1`): the automaton runs the pattern with each backreference
   * widened to `[\\s\\S]*` (a superset: whatever `\\1` matches, that matches too) and the native regex verifies its
   * candidates, instead of running the native regex on every delta.
   */
  backreferenceSuperset(): CompileResult | undefined {
    const refs: Span[] = [];
    walkAst(this.parser.ast.pattern, (n) => {
      if (n.type !== "Backreference") return;
      const start = n["start"] as number;
      if (!refs.some((r) => r.start === start)) refs.push({ start, end: n["end"] as number, text: "(?:[\\s\\S]*)" });
    });
    return this.verifiedSuperset(refs, "backreferences");
  }

  /**
   * A pattern whose automaton is too large because of big counted repetitions (`x{1,5000}y`): the automaton runs
   * it with those widened to `+` / `*` (a superset whose matches end where the pattern's do), and the native
   * regex verifies the few candidates, instead of running on every delta.
   */
  widenedSuperset(): CompileResult | undefined {
    const spans: Span[] = [];
    walkAst(this.parser.ast.pattern, (n) => {
      if (n.type !== "Quantifier") return;
      const min = n["min"] as number;
      const max = n["max"] as number;
      if (min <= WIDEN_ABOVE && (max <= WIDEN_ABOVE || max === Number.POSITIVE_INFINITY)) return;
      const lazy = n["greedy"] === false ? "?" : "";
      spans.push({ start: n.element!["end"] as number, end: n["end"] as number, text: (min >= 1 ? "+" : "*") + lazy });
    });
    return this.verifiedSuperset(spans, "large counted repetitions");
  }

  /**
   * The pattern with `spans` of its source replaced (a superset ending where its matches end) on the automaton,
   * verified natively; undefined when nothing is replaced or the superset cannot run there.
   */
  private verifiedSuperset(spans: Span[], what: string): CompileResult | undefined {
    if (spans.length === 0) return undefined;
    let source = this.spec.source;
    for (const s of spans.sort((a, b) => b.start - a.start)) {
      source = source.slice(0, s.start) + s.text + source.slice(s.end);
    }
    const nfa = assertionFreeNfa({ source, flags: this.spec.flags });
    if (!nfa || acceptsEmpty(nfa)) return undefined;
    this.notes.push(`${what}: verified by the native engine on the automaton's candidates`);
    const until = Math.max(this.facts.settle, Math.min(this.facts.readAhead, RECHECK_HORIZON));
    return this.verified(nfa, this.facts.settle, until, false, true);
  }

  /** A refusal when the native engine would take too long on one unlucky window (see MAX_NATIVE_DEGREE). */
  private tooSlow(redos: RedosVerdict, why: string): CompileResult | undefined {
    const pattern = `/${this.spec.source}/${this.spec.flags}`;
    const fix = redos.fix ? `; ${redos.fix} matches the same without it` : "";
    if (redos.exponential) {
      return { ok: false, refusal: "too-slow", error: `${pattern} has exponential backtracking (ReDoS); ${why}${fix}` };
    }
    if (redos.degree <= MAX_NATIVE_DEGREE) return undefined;
    return {
      ok: false,
      refusal: "too-slow",
      error:
        `${pattern} backtracks polynomially (about n^${redos.degree} steps on n characters: ${redos.cause}); ${why}, ` +
        `where ${POLYNOMIAL_MAX_WINDOW} unlucky characters would stall the stream for seconds${fix}`,
    };
  }
}

function endRegexOf(spec: PatternSpec): RegExp | undefined {
  if (/\\[1-9k]/.test(spec.source)) return undefined;
  try {
    return new RegExp(`(?<=${spec.source})`, `${spec.flags}y`);
  } catch {
    return undefined;
  }
}

/** The generated-strings comparison of an automaton with the native regex (see language-check.ts). */
class SampleCheck {
  private readonly firsts: number[];
  private readonly finals: boolean[];
  /** Accept points of each sample, per automaton: the checks below ask for the same automaton several times. */
  private readonly points = new Map<PlainNfa, number[][]>();

  /** `settled` and `final`: the pattern's `settledRegex` and the pattern itself, without the `g` flag. */
  constructor(
    settled: RegExp,
    final: RegExp,
    private readonly samples: string[],
  ) {
    this.firsts = samples.map((w) => firstPrefix(w, (prefix) => settled.test(prefix)));
    this.finals = samples.map((w) => final.test(w));
  }

  private pointsOf(nfa: PlainNfa): number[][] {
    let points = this.points.get(nfa);
    if (!points) {
      points = acceptPoints(nfa, this.samples);
      this.points.set(nfa, points);
    }
    return points;
  }

  /** The automaton first accepts exactly where the regex first settles, and finds a match iff the regex does. */
  exact(nfa: PlainNfa): boolean {
    const all = this.pointsOf(nfa);
    return this.samples.every((_, i) => {
      const points = all[i]!;
      return (points[0] ?? -1) === this.firsts[i] && points.length > 0 === this.finals[i];
    });
  }

  /**
   * The regex first settles at k exactly when a match ends at k - settle where the automaton accepts; and a
   * match only the end settles ends at an accept point.
   */
  endAnchored(nfa: PlainNfa, settle: number, endRegex: RegExp): boolean {
    const endsAt = (text: string, p: number) => {
      endRegex.lastIndex = p;
      return endRegex.test(text);
    };
    const all = this.pointsOf(nfa);
    return this.samples.every((w, i) => {
      const points = all[i]!;
      const k = this.firsts[i]!;
      if (k >= 0) {
        const p = k - settle;
        return points.includes(p) && endsAt(w.slice(0, k), p);
      }
      if (!this.finals[i]) return true;
      return points.some((p) => p + settle > w.length && endsAt(w, p));
    });
  }

  /**
   * Every settled match is found by a candidate: some accept point p with p + dueFrom ≤ k ≤ p + dueUntil, where k is
   * where the regex first settles; a match that only the end settles has a candidate still pending at the end.
   */
  superset(nfa: PlainNfa, dueFrom: number, dueUntil: number): boolean {
    const all = this.pointsOf(nfa);
    return this.samples.every((w, i) => {
      const points = all[i]!;
      const k = this.firsts[i]!;
      if (k >= 0) return points.some((p) => p + dueFrom <= k && k <= p + dueUntil);
      if (!this.finals[i]) return true;
      return points.some((p) => p + dueUntil > w.length || p + dueFrom >= w.length);
    });
  }
}

/** An automaton whose words contain what the pattern's lookarounds look at (for generating test strings). */
function lookaroundWords(source: string, flags: string): PlainNfa | undefined {
  try {
    const parser = libs.refa.JS.Parser.fromLiteral({ source, flags });
    return assertionFreeNfa({ source: lookaroundsConsumed(parser, source), flags });
  } catch {
    return undefined;
  }
}

/**
 * The automaton of a pattern with its assertions dropped (a superset of it), or undefined when refa cannot parse it
 * or the automaton would outgrow MAX_NFA_NODES.
 */
function assertionFreeNfa(pattern: JS.Parser | { source: string; flags: string }): PlainNfa | undefined {
  try {
    const parser = "parse" in pattern ? pattern : libs.refa.JS.Parser.fromLiteral(pattern);
    const { expression, maxCharacter } = parser.parse({ assertions: "ignore", backreferences: "throw" });
    return nfaOf(expression, maxCharacter, false);
  } catch {
    return undefined;
  }
}

/**
 * refa's automaton of an expression (its assertions ignored), or undefined when it would outgrow MAX_NFA_NODES or,
 * for a `u`/`v` pattern, cannot run on UTF-16 code units (see codeUnitNfa).
 */
function nfaOf(expression: NoParent<Expression>, maxCharacter: number, unicode: boolean): PlainNfa | undefined {
  try {
    const factory = new libs.refa.NFA.LimitedNodeFactory(MAX_NFA_NODES);
    const nfa = libs.refa.NFA.fromRegex(expression, { maxCharacter }, { assertions: "ignore" }, factory);
    return unicode ? codeUnitNfa(nfa) : plainNfa(nfa);
  } catch {
    return undefined;
  }
}

function acceptsEmpty(nfa: PlainNfa): boolean {
  return nfa.finals.includes(nfa.initial);
}

function hashOf(text: string): number {
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
  return h >>> 0;
}

let inlining: ReturnType<typeof libs.refa.combineTransformers> | undefined;
function edgeInlining() {
  inlining ??= libs.refa.combineTransformers([
    libs.refa.Transformers.simplify(),
    libs.refa.Transformers.patternEdgeAssertions({ inline: true, remove: false }),
  ]);
  return inlining;
}

/**
 * A `u`/`v` automaton over code points runs on UTF-16 code units unchanged when it reads no character outside
 * the BMP and no surrogate: then an astral character (two code units) fails it in both views alike.
 */
function codeUnitNfa(nfa: NFA): PlainNfa {
  const plain = plainNfa(nfa);
  for (const edges of plain.out) {
    for (const e of edges) {
      for (let i = 0; i < e.ranges.length; i += 2) {
        if (e.ranges[i + 1]! > 0xffff || (e.ranges[i + 1]! >= 0xd800 && e.ranges[i]! <= 0xdfff)) {
          throw new Error("astral characters");
        }
      }
    }
  }
  return plain;
}

/** Whether refa's expression still has an assertion it could not rewrite away. */
function hasRefaAssertion(expression: NoParent<Expression>): boolean {
  let found = false;
  walkAst(expression, (n) => {
    if (n.type === "Assertion") found = true;
    return !found;
  });
  return found;
}

/** Conservative: true unless the automaton proves no consumed character can be a line feed. */
function crossesLinesOf(parser: JS.Parser): boolean {
  const nfa = assertionFreeNfa(parser);
  return nfa ? nfaReadsChar(nfa, 10) : true;
}
