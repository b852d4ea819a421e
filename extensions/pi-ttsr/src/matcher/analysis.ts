import type { JS } from "refa";
import { libs } from "./libs.ts";

/** What the regex reads around its match, from the AST (regexpp, as kept by refa's parser). */
export interface ReachFacts {
  /**
   * Characters past a match's end that can still change whether it is a match: what `\b`, `$`, negative
   * lookaheads (and positive ones containing those) read. The max over assertions, not their sum: in
   * `then\b(?!any)` the `\b` reads 1 and `(?!any)` 3, so 3 settle it. A positive lookahead made only of
   * characters (`foo(?=bar)`) counts 0: once its text has streamed, more text cannot undo it.
   */
  settle: number;
  /** Characters past a match's end that any assertion reads (positive lookahead contents included). */
  readAhead: number;
  /** Characters before a match's start its assertions read; Infinity for a non-multiline `^`. */
  lookbehind: number;
  /** Longest match (consumed characters), Infinity when unbounded. */
  maxLength: number;
}

export interface Node {
  type: string;
  kind?: string;
  negate?: boolean;
  parent?: Node;
  alternatives?: Node[];
  elements?: Node[];
  element?: Node;
  [key: string]: unknown;
}

type Flags = JS.Parser["ast"]["flags"];

export function reachFacts(parser: JS.Parser): ReachFacts {
  const ast = parser.ast as unknown as { pattern: Node; flags: Flags };
  const multiline = parser.flags.multiline === true;
  const scope = { flags: ast.flags, multiline };
  return {
    settle: aheadReach(ast.pattern, ast.pattern, scope, false),
    readAhead: aheadReach(ast.pattern, ast.pattern, scope, true),
    lookbehind: behindReach(ast.pattern, ast.pattern, scope),
    maxLength: lengthRange(ast.pattern.alternatives!, ast.flags).max,
  };
}

interface Scope {
  flags: Flags;
  multiline: boolean;
}

function lengthRange(node: Node | Node[], flags: Flags): { min: number; max: number } {
  return libs.analysis.getLengthRange(node as never, flags as never);
}

/**
 * Visits every node of a regex AST (regexpp's, or refa's expression) below `node`, parents first; `visit` returning
 * false skips a node's children. Back-links (`parent`, a backreference's `resolved`) are not followed.
 */
export function walkAst(node: unknown, visit: (n: Node) => unknown): void {
  if (!node || typeof node !== "object") return;
  if (Array.isArray(node)) {
    for (const item of node) walkAst(item, visit);
    return;
  }
  const n = node as Node;
  if (typeof n.type !== "string" || visit(n) === false) return;
  for (const [key, value] of Object.entries(n)) {
    if (key !== "parent" && key !== "resolved" && key !== "references" && key !== "raw") walkAst(value, visit);
  }
}

/** The assertions directly inside `root` (not inside a nested lookaround, which its own reach covers). */
function assertionsOf(root: Node): Node[] {
  const found: Node[] = [];
  walkAst(root.type === "Assertion" ? root.alternatives : root, (n) => {
    if (n === root || n.type !== "Assertion") return true;
    found.push(n);
    return false;
  });
  return found;
}

/** The fewest characters `root` consumes after (before) `node`. */
function consumedAround(node: Node, root: Node, side: "after" | "before", flags: Flags): number {
  let total = 0;
  let current = node;
  while (current.parent && current !== root) {
    const parent = current.parent;
    if (parent.type === "Alternative") {
      const elements = parent.elements!;
      const at = elements.indexOf(current);
      const siblings = side === "after" ? elements.slice(at + 1) : elements.slice(0, at);
      for (const sibling of siblings) total += lengthRange(sibling, flags).min;
    }
    if (parent === root) break;
    current = parent;
  }
  return total;
}

/**
 * How far past the end of `root`'s match its assertions read. `all`: every read (positive lookahead contents
 * too); else only reads whose outcome more text can change.
 */
function aheadReach(root: Node, top: Node, scope: Scope, all: boolean): number {
  let reach = 0;
  for (const a of assertionsOf(root)) {
    let reads = 0;
    if (a.kind === "word" || a.kind === "end") reads = 1;
    else if (a.kind === "lookahead") {
      const inner = aheadReach(a, top, scope, all);
      const sensitive = all || a.negate === true || inner > 0;
      reads = sensitive ? lengthRange(a.alternatives!, scope.flags).max + inner : 0;
    } else if (a.kind === "lookbehind") reads = aheadReach(a, top, scope, all);
    if (reads === 0) continue;
    reach = Math.max(reach, reads - consumedAround(a, root, "after", scope.flags));
  }
  return Math.max(0, reach);
}

function behindReach(root: Node, top: Node, scope: Scope): number {
  let reach = 0;
  for (const a of assertionsOf(root)) {
    let reads = 0;
    if (a.kind === "word") reads = 1;
    else if (a.kind === "start") reads = scope.multiline ? 1 : Number.POSITIVE_INFINITY;
    else if (a.kind === "lookbehind")
      reads = lengthRange(a.alternatives!, scope.flags).max + behindReach(a, top, scope);
    else if (a.kind === "lookahead") reads = behindReach(a, top, scope);
    if (reads === 0) continue;
    reach = Math.max(reach, reads - consumedAround(a, root, "before", scope.flags));
  }
  return Math.max(0, reach);
}

/** Whether the pattern has any assertion (`\b`, `^`, `$`, lookarounds) anywhere. */
export function hasAssertion(parser: JS.Parser): boolean {
  const ast = parser.ast as unknown as { pattern: Node };
  return assertionsOf(ast.pattern).length > 0;
}

/**
 * A condition made only of lookaheads that each search the rest of the text (`(?=[\s\S]*A)(?=[\s\S]*B)`):
 * "the text contains A and contains B". Returns the sources of A and B, or undefined for any other shape.
 * Each part then runs as a pattern of its own, and the condition holds once all parts have matched.
 */
export function lookaheadConjunction(parser: JS.Parser, source: string): string[] | undefined {
  const elements = soleAlternative(parser);
  if (!elements || elements.length === 0) return undefined;
  const parts: string[] = [];
  for (const el of elements) {
    if (el.type !== "Assertion" || el.kind !== "lookahead" || el.negate) return undefined;
    if (el.alternatives!.length !== 1) return undefined;
    const inner = el.alternatives![0]!.elements!;
    const first = inner[0];
    if (first?.type !== "Quantifier" || first["min"] !== 0 || first["max"] !== Number.POSITIVE_INFINITY) {
      return undefined;
    }
    if (!matchesEverything(first.element!, parser.flags.dotAll === true)) return undefined;
    const rest = inner.slice(1);
    if (rest.length === 0) return undefined;
    const start = rest[0]!["start"] as number;
    const end = rest[rest.length - 1]!["end"] as number;
    const part = source.slice(start, end);
    // Group numbers would shift: keep conditions with groups whole.
    if (/\\[1-9k]|\((?!\?)|\(\?</.test(part.replace(/\\\\/g, "").replace(/\(\?<[=!]/g, ""))) return undefined;
    parts.push(part);
  }
  return parts;
}

/** The elements of a pattern without top-level alternation (`a|b` has two alternatives: undefined). */
function soleAlternative(parser: JS.Parser): Node[] | undefined {
  const alternatives = (parser.ast as unknown as { pattern: Node }).pattern.alternatives!;
  return alternatives.length === 1 ? alternatives[0]!.elements! : undefined;
}

function matchesEverything(node: Node, dotAll: boolean): boolean {
  const raw = node["raw"] as string;
  if (raw === "[\\s\\S]" || raw === "[\\S\\s]" || raw === "[^]" || raw === "[\\d\\D]" || raw === "[\\w\\W]")
    return true;
  return dotAll && raw === ".";
}

/**
 * The assertions a match must end with (`$`, `\b`, `(?!\w)` at the top level's end), as a regex source, and how
 * far they read around the end. A candidate end where they fail cannot be a match end: checking them on a few
 * characters spares the full check (which reads back to where the match could start) at almost every candidate.
 */
export function trailingAssertions(parser: JS.Parser, source: string): { source: string; reach: number } | undefined {
  const elements = soleAlternative(parser);
  if (!elements) return undefined;
  let first = elements.length;
  let reach = 0;
  while (first > 0) {
    const el = elements[first - 1]!;
    if (el.type !== "Assertion") break;
    if (el.kind === "word" || el.kind === "end") reach = Math.max(reach, 1);
    else if (el.kind === "lookahead") {
      const inner = assertionsOf(el);
      if (inner.some((a) => a.kind === "lookbehind" || a.kind === "lookahead")) break;
      const max = lengthRange(el.alternatives!, parser.ast.flags).max;
      if (!Number.isFinite(max)) break;
      reach = Math.max(reach, max + 1);
    } else break;
    first--;
  }
  if (first === elements.length || first === 0) return undefined;
  const start = elements[first]!["start"] as number;
  const end = elements[elements.length - 1]!["end"] as number;
  return { source: source.slice(start, end), reach };
}

/**
 * The source with each outermost lookaround `(?=X)` / `(?<!X)` turned into an optional group `(?:X)?`: its words
 * put the text the assertions look at where they look, for generating test strings (see language-check.ts).
 */
export function lookaroundsConsumed(parser: JS.Parser, source: string): string {
  const ast = parser.ast as unknown as { pattern: Node };
  const spans: Array<{ start: number; end: number; body: string }> = [];
  for (const a of assertionsOf(ast.pattern)) {
    if (a.kind !== "lookahead" && a.kind !== "lookbehind") continue;
    const start = a["start"] as number;
    const end = a["end"] as number;
    const open = a.kind === "lookahead" ? 3 : 4;
    spans.push({ start, end, body: source.slice(start + open, end - 1) });
  }
  let out = source;
  for (const s of spans.sort((x, y) => y.start - x.start)) {
    out = `${out.slice(0, s.start)}(?:${s.body})?${out.slice(s.end)}`;
  }
  return out;
}
