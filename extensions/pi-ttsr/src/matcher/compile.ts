import { JS, NFA } from "refa";
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
 * - `native`: features the automaton cannot express (unresolvable backreferences, `u`/`v` flags, huge
 *   counted repetitions): native regex over a bounded window per delta.
 * - `chunk`: the proposal's chunk window, the native regex over each raw delta (already bounded).
 */
export type PatternMode = "dfa" | "dfa-verify" | "native" | "chunk";

export interface CompiledPattern {
  spec: PatternSpec;
  mode: PatternMode;
  /** Native regex (global, for `lastIndex` searches); used by every mode but `dfa` (and by tools for positions). */
  regex: RegExp;
  /** NFA of the pattern (assertions ignored) for the `dfa` / `dfa-verify` modes. */
  nfa?: NFA;
  /** Longest match length (consumed characters), Infinity when unbounded. */
  maxLength: number;
  /** How far past a match's end its lookaheads (`\b`, `$`, `(?=...)`) may read; Infinity when unbounded. */
  lookahead: number;
  /** Whether a match can contain a line feed (if not, a match never starts before the current line). */
  crossesLines: boolean;
  /** Non-fatal notes for `ttsr list` (e.g. polynomial backtracking bounded by the window). */
  notes: string[];
}

export type CompileResult = { ok: true; pattern: CompiledPattern } | { ok: false; error: string };

/** NFAs above this size fall back to the native engine rather than bloating the shared automaton. */
const MAX_NFA_NODES = 4000;

/** Parses `/source/flags` literals written in rule files; plain strings are the source itself. */
export function splitLiteral(condition: string, flags: string): { source: string; flags: string } {
  const literal = /^\/(.+)\/([dgimsuvy]*)$/s.exec(condition);
  if (literal) return { source: literal[1]!, flags: uniqueFlags(literal[2]! + flags) };
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
    if (key === "parent" || key === "resolved" || key === "raw") continue;
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

  // Static facts from the regexpp AST (via refa's parser, which keeps it).
  let parser: JS.Parser;
  try {
    parser = JS.Parser.fromLiteral({ source: spec.source, flags });
  } catch (error) {
    return { ok: false, error: `cannot analyse /${spec.source}/${flags}: ${(error as Error).message}` };
  }
  let hasAssertions = false;
  let lookahead = 0;
  walk(parser.ast.pattern, (n) => {
    if (n.type !== "Assertion") return;
    hasAssertions = true;
    if (n.kind === "word" || n.kind === "end") lookahead += 1;
    else if (n.kind === "lookahead") {
      const range = getLengthRange(n.alternatives as never, parser.ast.flags as never);
      lookahead += range.max;
    }
  });
  const maxLength = getLengthRange(parser.ast.pattern.alternatives as never, parser.ast.flags as never).max;

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
        maxLength,
        lookahead,
        crossesLines: crossesLinesOf(parser),
        notes,
      },
    };
  };

  if (spec.window === "chunk") return nativeFallback("chunk window");
  if (flags.includes("u") || flags.includes("v")) return nativeFallback("unicode flag");

  let nfa: NFA;
  try {
    const { expression, maxCharacter } = parser.parse({ assertions: "ignore", backreferences: "throw" });
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
  if (hasAssertions) {
    const redos = checkRedos(spec.source, flags);
    if (redos.exponential) {
      return {
        ok: false,
        error: `/${spec.source}/${flags} has exponential backtracking (ReDoS); its assertions need the native engine`,
      };
    }
    if (redos.polynomial) notes.push("polynomial backtracking, bounded by the candidate window");
  }
  return {
    ok: true,
    pattern: {
      spec: normalized,
      mode: hasAssertions ? "dfa-verify" : "dfa",
      regex,
      nfa,
      maxLength,
      lookahead,
      crossesLines: nfaHasChar(nfa, 10),
      notes,
    },
  };
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
