import { combineTransformers, type Expression, JS, NFA, type NoParent, Transformers, transform } from "refa";
import { getLengthRange } from "regexp-ast-analysis";
import { checkRedos } from "./redos.ts";

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
 * - `dfa-verify`: the automaton runs an assertion-free superset of the pattern; only when it accepts is the
 *   native regex run, on a bounded window around the candidate (lookarounds, `\b`, `^`, `$`).
 *   Also backreferences refa cannot resolve: the automaton runs them widened to `[\s\S]*`.
 * - `native`: what the automaton cannot run at all (`u`/`v` flags, huge counted repetitions): the native regex
 *   over a bounded window per delta.
 * - `chunk`: the proposal's chunk window, the native regex over each raw delta (already bounded).
 */
export type PatternMode = "dfa" | "dfa-verify" | "native" | "chunk";

export interface CompiledPattern {
  spec: PatternSpec;
  mode: PatternMode;
  /** Native regex (global, for `lastIndex` searches); used by every mode but `dfa`. */
  regex: RegExp;
  /**
   * `regex` that only accepts a match whose lookahead context has fully streamed: `(?:src)(?=[\s\S]{lookahead})`.
   * Before that, a `\b` or `$` would be satisfied by the end of the text so far (the model writing `any` of
   * `anything`), which is not the end of the response. Same as `regex` when nothing looks ahead (or unboundedly).
   */
  settledRegex: RegExp;
  /** NFA of the pattern (assertions ignored) for the `dfa` / `dfa-verify` modes. */
  nfa?: NFA;
  /** Longest match length (consumed characters), Infinity when unbounded. */
  maxLength: number;
  /** How far past a match's end its lookaheads (`\b`, `$`, `(?=...)`) may read; Infinity when unbounded. */
  lookahead: number;
  /**
   * How far before a match's start its lookbehinds (`\b`, `^` with `m`, `(?<=...)`) may read; Infinity when
   * unbounded or when a non-multiline `^` needs to know where the text starts.
   */
  lookbehind: number;
  /** Whether a match can contain a line feed (if not, a match never starts before the current line). */
  crossesLines: boolean;
  /** Non-fatal notes for `ttsr list` (e.g. polynomial backtracking bounded by the window). */
  notes: string[];
}

export type CompileResult = { ok: true; pattern: CompiledPattern } | { ok: false; error: string };

/** NFAs above this size fall back to the native engine rather than bloating the shared automaton. */
const MAX_NFA_NODES = 4000;

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

interface AstNode {
  type: string;
  kind?: string;
  negate?: boolean;
  alternatives?: unknown[];
  [key: string]: unknown;
}

function walk(node: unknown, visit: (n: AstNode) => void): void {
  if (!node || typeof node !== "object") return;
  if (Array.isArray(node)) {
    for (const item of node) walk(item, visit);
    return;
  }
  const n = node as AstNode;
  if (typeof n.type !== "string") return;
  visit(n);
  for (const [key, value] of Object.entries(n)) {
    if (key === "parent" || key === "resolved" || key === "references" || key === "raw") continue;
    if (value && typeof value === "object") walk(value, visit);
  }
}

/** Compiles one condition; the error string names what is wrong (the caller adds file and key). */
export function compilePattern(spec: PatternSpec): CompileResult {
  const flags = uniqueFlags(spec.flags);
  let regex: RegExp;
  try {
    regex = new RegExp(spec.source, flags + "g");
  } catch (error) {
    return { ok: false, error: `invalid regex /${spec.source}/${flags}: ${(error as Error).message}` };
  }
  if (new RegExp(spec.source, flags).test("")) {
    return { ok: false, error: `/${spec.source}/${flags} matches empty text, so it would fire on every response` };
  }
  const notes: string[] = [];
  const normalized: PatternSpec = { source: spec.source, flags, window: spec.window };

  let parser: JS.Parser;
  let original: RegexFacts;
  try {
    parser = JS.Parser.fromLiteral({ source: spec.source, flags });
    original = analyse(parser);
  } catch (error) {
    return { ok: false, error: `cannot analyse /${spec.source}/${flags}: ${(error as Error).message}` };
  }

  const nativeFallback = (why: string): CompileResult => {
    const redos = checkRedos(spec.source, flags);
    if (redos.exponential) {
      return {
        ok: false,
        error: `/${spec.source}/${flags} has exponential backtracking (ReDoS) and needs the native engine (${why})`,
      };
    }
    if (redos.polynomial) notes.push("polynomial backtracking, bounded by the match window");
    notes.push(`native engine: ${why}`);
    return {
      ok: true,
      pattern: {
        spec: normalized,
        mode: spec.window === "chunk" ? "chunk" : "native",
        regex,
        settledRegex: settledOf(spec.source, flags, original.lookahead, regex),
        maxLength: original.maxLength,
        lookahead: original.lookahead,
        lookbehind: original.lookbehind,
        crossesLines: crossesLinesOf(parser),
        notes,
      },
    };
  };

  if (spec.window === "chunk") return nativeFallback("chunk window");
  if (flags.includes("u") || flags.includes("v")) return nativeFallback("unicode flag");

  // refa parses assertions into lookarounds and inlines the positive ones at the pattern's edges
  // (`foo(?=bar)` is `foobar` for "does the text contain a match"): often nothing is left to verify.
  let expression: NoParent<Expression>;
  let maxCharacter: number;
  try {
    const parsed = parser.parse({ assertions: "parse", backreferences: "throw" });
    maxCharacter = parsed.maxCharacter;
    expression = transform(EDGE_INLINING, parsed.expression);
  } catch (error) {
    const why = (error as Error).message.split("\n")[0] ?? "unsupported";
    return backreferenceSuperset(parser, spec, regex, original, notes) ?? nativeFallback(why);
  }
  let nfa: NFA;
  try {
    nfa = NFA.fromRegex(
      expression,
      { maxCharacter },
      { assertions: "ignore" },
      new NFA.LimitedNodeFactory(MAX_NFA_NODES),
    );
  } catch (error) {
    return nativeFallback((error as Error).message.split("\n")[0] ?? "unsupported");
  }
  if (nfa.finals.has(nfa.initial)) {
    // Assertions aside, it matches empty text: the automaton would accept everywhere.
    return nativeFallback("matches empty text apart from assertions");
  }
  if (!hasRefaAssertion(expression)) {
    return {
      ok: true,
      pattern: {
        spec: normalized,
        mode: "dfa",
        regex,
        settledRegex: regex,
        nfa,
        maxLength: original.maxLength,
        lookahead: 0,
        lookbehind: 0,
        crossesLines: nfaHasChar(nfa, 10),
        notes,
      },
    };
  }
  // Assertions remain: the automaton runs the assertion-free superset, the native engine verifies candidates
  // with the simplified regex (same matches, fewer lookarounds, so candidates settle sooner).
  let literal: { source: string; flags: string };
  let verify: RegexFacts;
  let verifyRegex: RegExp;
  try {
    literal = JS.toLiteral(expression, { flags: parser.flags });
    verifyRegex = new RegExp(literal.source, uniqueFlags(literal.flags) + "g");
    verify = analyse(JS.Parser.fromLiteral({ source: literal.source, flags: uniqueFlags(literal.flags) }));
  } catch {
    literal = { source: spec.source, flags };
    verifyRegex = regex;
    verify = original;
  }
  const redos = checkRedos(literal.source, literal.flags);
  if (redos.exponential) {
    return {
      ok: false,
      error: `/${spec.source}/${flags} has exponential backtracking (ReDoS); its assertions need the native engine`,
    };
  }
  if (redos.polynomial) notes.push("polynomial backtracking, bounded by the candidate window");
  return {
    ok: true,
    pattern: {
      spec: normalized,
      mode: "dfa-verify",
      regex: verifyRegex,
      settledRegex: settledOf(literal.source, uniqueFlags(literal.flags), verify.lookahead, verifyRegex),
      nfa,
      maxLength: original.maxLength,
      lookahead: verify.lookahead,
      lookbehind: verify.lookbehind,
      crossesLines: nfaHasChar(nfa, 10),
      notes,
    },
  };
}

/**
 * Backreferences refa cannot resolve (`(\\w+) \\1`): the automaton runs the pattern with each backreference
 * widened to `[\\s\\S]*` (a superset: whatever `\\1` matches, that matches too) and the native regex verifies its
 * candidates, instead of running the native regex on every delta.
 */
function backreferenceSuperset(
  parser: JS.Parser,
  spec: PatternSpec,
  regex: RegExp,
  original: RegexFacts,
  notes: string[],
): CompileResult | undefined {
  const refs: Array<{ start: number; end: number }> = [];
  walk(parser.ast.pattern, (n) => {
    if (n.type !== "Backreference") return;
    const start = n["start"] as number;
    if (!refs.some((r) => r.start === start)) refs.push({ start, end: n["end"] as number });
  });
  if (refs.length === 0) return undefined;
  let source = spec.source;
  for (const r of refs.sort((a, b) => b.start - a.start)) {
    source = `${source.slice(0, r.start)}(?:[\\s\\S]*)${source.slice(r.end)}`;
  }
  const flags = uniqueFlags(spec.flags);
  let nfa: NFA;
  try {
    const superset = JS.Parser.fromLiteral({ source, flags });
    const { expression, maxCharacter } = superset.parse({ assertions: "ignore", backreferences: "throw" });
    nfa = NFA.fromRegex(
      expression,
      { maxCharacter },
      { assertions: "ignore" },
      new NFA.LimitedNodeFactory(MAX_NFA_NODES),
    );
  } catch {
    return undefined;
  }
  if (nfa.finals.has(nfa.initial)) return undefined;
  const redos = checkRedos(spec.source, flags);
  if (redos.exponential) {
    return {
      ok: false,
      error: `/${spec.source}/${flags} has exponential backtracking (ReDoS); its backreferences need the native engine`,
    };
  }
  if (redos.polynomial) notes.push("polynomial backtracking, bounded by the candidate window");
  notes.push("backreferences: verified by the native engine on the automaton's candidates");
  return {
    ok: true,
    pattern: {
      spec: { source: spec.source, flags, window: spec.window },
      mode: "dfa-verify",
      regex,
      settledRegex: settledOf(spec.source, flags, original.lookahead, regex),
      nfa,
      maxLength: original.maxLength,
      lookahead: original.lookahead,
      lookbehind: original.lookbehind,
      crossesLines: nfaHasChar(nfa, 10),
      notes,
    },
  };
}

const EDGE_INLINING = combineTransformers([
  Transformers.simplify(),
  Transformers.patternEdgeAssertions({ inline: true, remove: false }),
]);

interface RegexFacts {
  lookahead: number;
  lookbehind: number;
  maxLength: number;
}

/** Lookaround reach and longest match, from the regexpp AST that refa's parser keeps. */
function analyse(parser: JS.Parser): RegexFacts {
  let lookahead = 0;
  let lookbehind = 0;
  const multiline = parser.flags.multiline;
  const astFlags = parser.ast.flags;
  walk(parser.ast.pattern, (n) => {
    if (n.type !== "Assertion") return;
    // How far an assertion reads past the match's end (before its start): what it reads, less the
    // characters the match surely consumes after (before) it. `\b` in `\bany\b` reads past the end only once.
    const ahead = (reads: number) => Math.max(0, reads - consumedAround(n, "after", astFlags));
    const behind = (reads: number) => Math.max(0, reads - consumedAround(n, "before", astFlags));
    if (n.kind === "word") {
      lookahead += ahead(1);
      lookbehind += behind(1);
    } else if (n.kind === "end") lookahead += ahead(1);
    else if (n.kind === "start") lookbehind += multiline ? behind(1) : Number.POSITIVE_INFINITY;
    else {
      const range = getLengthRange(n.alternatives as never, astFlags as never);
      if (n.kind === "lookahead") lookahead += ahead(range.max);
      else lookbehind += behind(range.max);
    }
  });
  const maxLength = getLengthRange(parser.ast.pattern.alternatives as never, astFlags as never).max;
  return { lookahead, lookbehind, maxLength };
}

/** `(?:src)(?=[\s\S]{n})`: only matches whose lookahead context has streamed (see `settledRegex`). */
function settledOf(source: string, flags: string, lookahead: number, regex: RegExp): RegExp {
  if (lookahead <= 0 || !Number.isFinite(lookahead)) return regex;
  return new RegExp(`(?:${source})(?=[\\s\\S]{${lookahead}})`, flags + "g");
}

function hasRefaAssertion(node: unknown): boolean {
  let found = false;
  const visit = (value: unknown): void => {
    if (found || !value || typeof value !== "object") return;
    if (Array.isArray(value)) {
      for (const item of value) visit(item);
      return;
    }
    const n = value as { type?: unknown };
    if (n.type === "Assertion") {
      found = true;
      return;
    }
    for (const [key, child] of Object.entries(value)) if (key !== "parent" && key !== "source") visit(child);
  };
  visit(node);
  return found;
}

/**
 * The fewest characters the match consumes after (or before) an element, walking up to the pattern. Inside a
 * lookaround nothing is known about the match itself: 0.
 */
function consumedAround(node: AstNode, side: "after" | "before", flags: unknown): number {
  let total = 0;
  let current = node;
  for (;;) {
    const parent = current["parent"] as AstNode | undefined;
    if (!parent || parent.type === "Pattern") return total;
    if (parent.type === "Assertion") return 0;
    if (parent.type === "Alternative") {
      const elements = parent["elements"] as AstNode[];
      const at = elements.indexOf(current);
      const siblings = side === "after" ? elements.slice(at + 1) : elements.slice(0, at);
      for (const sibling of siblings) total += getLengthRange(sibling as never, flags as never).min;
    }
    current = parent;
  }
}

function nfaHasChar(nfa: NFA, char: number): boolean {
  for (const node of nfa.nodes()) {
    for (const cs of node.out.values()) if (cs.has(char)) return true;
  }
  return false;
}

/** Conservative: true unless the automaton proves no consumed character can be a line feed. */
function crossesLinesOf(parser: JS.Parser): boolean {
  try {
    const { expression, maxCharacter } = parser.parse({ assertions: "ignore", backreferences: "throw" });
    const nfa = NFA.fromRegex(
      expression,
      { maxCharacter },
      { assertions: "ignore" },
      new NFA.LimitedNodeFactory(MAX_NFA_NODES),
    );
    return nfaHasChar(nfa, 10);
  } catch {
    return true;
  }
}
