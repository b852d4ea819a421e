import v8 from "node:v8";
import type { AST } from "@eslint-community/regexpp";
import type { CompiledPattern, PatternSpec } from "./compile.ts";
import { libs } from "./libs.ts";
import { quickParse } from "./quick-parse.ts";

/**
 * Deferring a pattern's compile. Analysing a regex rule for the automaton costs about 1 ms (3 ms in a fresh process,
 * plus 40 ms to load the regex libraries): a first start with 100 regex rules spent 300 ms on it before the model
 * said a word. A rule the compile cache cannot answer therefore starts as a *deferred* pattern: the rule's own regex,
 * run on V8's linear-time engine (the `l` flag: no backtracking, so no pattern can stall it) over the whole text so
 * far, which is the reference semantics itself (`naiveFirstMatches`). That is cheap while a response is short; a
 * stream that grows past DEFERRED_MAX_TEXT compiles the set's deferred patterns then (see PatternSet), and a session
 * compiles them when it is idle.
 *
 * Only patterns whose compile cannot refuse them as too slow are deferred, so that refusal stays a load-time error:
 * no lookarounds or backreferences, and with `^`, `$` or `\b` (which the compiled pattern verifies natively, where
 * two repetitions trading characters, plus the search moving its start, make degree 3) at most one repetition.
 * Flags `i`, `m`, `s` only (`i` is rewritten: the linear engine lacks it).
 */

/** A stream with deferred patterns compiles them before its text grows past this many characters. */
export const DEFERRED_MAX_TEXT = 2048;

/** What a deferred pattern runs: linear-time regexes equivalent to the rule's own. */
export interface DeferredRegexes {
  /** The rule's regex (not global). */
  plain: RegExp;
  /**
   * `(?:plain)[\s\S]{settle}`: a match whose lookahead context has streamed (the compiled pattern's `settledRegex`,
   * with the context consumed instead of looked at: the linear engine has no lookahead). A match of it ends
   * `settle` characters after the rule's match.
   */
  settled: RegExp;
  settle: number;
}

let linearEngine: boolean | undefined;
/** The flag of V8's linear-time engine (a constant: no regex literal can carry it). */
const LINEAR = "l";

/**
 * Whether V8's linear-time engine takes `l` regexes in this process. Turning its flag on only adds that flag letter
 * to the regex syntax; no other regex changes engine.
 */
function linearEngineAvailable(): boolean {
  if (linearEngine === undefined) {
    try {
      linearEngine = new RegExp("a", LINEAR).test("a");
    } catch {
      try {
        v8.setFlagsFromString("--enable-experimental-regexp-engine");
        linearEngine = new RegExp("a", LINEAR).test("a");
      } catch {
        linearEngine = false;
      }
    }
  }
  return linearEngine;
}

/**
 * The deferred pattern of a spec, or undefined when it must compile now (see the module comment). Never throws.
 */
export function deferPattern(spec: PatternSpec, flags: string): CompiledPattern | undefined {
  if (spec.window === "chunk" || /[^ims]/.test(flags) || !linearEngineAvailable()) return undefined;
  let regex: RegExp;
  try {
    // constructed, not run: V8 compiles a regex on its first use, and this one may never run
    regex = new RegExp(spec.source, `${flags}g`);
  } catch {
    return undefined;
  }
  let pattern: AST.Pattern;
  try {
    pattern =
      quickParse(spec.source) ??
      new libs.regexpp.RegExpParser({ ecmaVersion: 2025 }).parsePattern(spec.source, 0, spec.source.length, {
        unicode: false,
        unicodeSets: false,
      });
  } catch {
    return undefined;
  }
  let shape: Shape | undefined;
  let source: string;
  try {
    // (deeply nested or huge patterns may exhaust the stack here: compiled now, then)
    shape = shapeOf(pattern, flags.includes("i"));
    if (!shape || (shape.assertions && (shape.nested || shape.repetitions > 1))) return undefined;
    source = flags.includes("i") ? caseExpanded(spec.source, pattern) : spec.source;
  } catch {
    return undefined;
  }
  const linearFlags = flags.replace("i", "") + LINEAR;
  let deferred: DeferredRegexes;
  try {
    const plain = new RegExp(source, linearFlags);
    const settled = shape.settle === 0 ? plain : new RegExp(`(?:${source})[\\s\\S]{${shape.settle}}`, linearFlags);
    deferred = { plain, settled, settle: shape.settle };
    // A pattern matching empty text is refused by its compile: do that now (the same answer as the rule's regex).
    if (plain.test("")) return undefined;
  } catch {
    // "Cannot be executed in linear time" (a large counted repetition): compile it now.
    return undefined;
  }
  return {
    spec: { source: spec.source, flags, window: spec.window },
    mode: "native",
    regex,
    settledRegex: regex,
    maxLength: Number.POSITIVE_INFINITY,
    lookahead: shape.settle,
    readAhead: shape.settle,
    lookbehind: Number.POSITIVE_INFINITY,
    crossesLines: true,
    dueFrom: 0,
    dueUntil: 0,
    polynomial: false,
    notes: [],
    deferred,
  };
}

interface Shape {
  /** `^`, `$`, `\b` or `\B` anywhere. */
  assertions: boolean;
  /** A repetition inside a repeated group. */
  nested: boolean;
  /** Quantifiers that repeat (`?` does not). */
  repetitions: number;
  /** Characters past a match's end its `\b`/`$` read (what settles it): 0 or 1. */
  settle: number;
}

type Node = AST.Node;

/** What deferring needs to know of a pattern, or undefined when it has something a deferred pattern cannot run. */
function shapeOf(pattern: AST.Pattern, ignoreCase: boolean): Shape | undefined {
  const shape: Shape = { assertions: false, nested: false, repetitions: 0, settle: 0 };
  let ok = true;
  const visit = (node: Node, repeated: boolean): void => {
    if (!ok) return;
    switch (node.type) {
      case "Pattern":
      case "Alternative":
      case "Group":
      case "CapturingGroup":
        if (node.type === "Group" && node.modifiers) ok = false;
        for (const child of "alternatives" in node ? node.alternatives : node.elements) visit(child, repeated);
        return;
      case "Quantifier": {
        if (node.max > 1) shape.repetitions++;
        if (node.max > 1 && repeated) shape.nested = true;
        visit(node.element, repeated || node.max > 1);
        return;
      }
      case "Assertion":
        if (node.kind === "lookahead" || node.kind === "lookbehind") {
          ok = false;
          return;
        }
        shape.assertions = true;
        if (node.kind === "word" || node.kind === "end") shape.settle = Math.max(shape.settle, 1 - minAfter(node));
        return;
      case "Character":
        // a lone `\` (Annex B's `\c` without a control letter): the `i` rewrite would glue it to what follows
        if (ignoreCase && (node.value > 0x7f || node.raw === "\\")) ok = false;
        return;
      case "CharacterClass":
        if (node.unicodeSets || (node.elements.length === 0 && !node.negate)) ok = false;
        else for (const e of node.elements) visit(e, repeated);
        return;
      case "CharacterClassRange":
        if (ignoreCase && node.max.value > 0x7f) ok = false;
        return;
      case "CharacterSet":
        if (node.kind === "property") ok = false;
        return;
      default:
        // backreferences, and anything newer than this screen knows
        ok = false;
    }
  };
  visit(pattern, false);
  return ok ? shape : undefined;
}

/** The fewest characters a match consumes after `node` (siblings after it, up to the pattern). */
function minAfter(node: Node): number {
  let total = 0;
  let current: Node = node;
  while (current.parent && current.type !== "Pattern") {
    const parent: Node = current.parent;
    if (parent.type === "Alternative") {
      const at = parent.elements.indexOf(current as AST.Element);
      for (const sibling of parent.elements.slice(at + 1)) total += minLength(sibling);
    }
    current = parent;
  }
  return total;
}

function minLength(node: Node): number {
  switch (node.type) {
    case "Character":
    case "CharacterClass":
    case "CharacterSet":
      return 1;
    case "Quantifier":
      return node.min === 0 ? 0 : node.min * minLength(node.element);
    case "Group":
    case "CapturingGroup": {
      let min = Number.POSITIVE_INFINITY;
      for (const a of node.alternatives)
        min = Math.min(
          min,
          a.elements.reduce((n, e) => n + minLength(e), 0),
        );
      return min;
    }
    default:
      return 0;
  }
}

const isUpper = (c: number) => c >= 0x41 && c <= 0x5a;
const isLower = (c: number) => c >= 0x61 && c <= 0x7a;
const isLetter = (c: number) => isUpper(c) || isLower(c);
const otherCase = (c: number) => (isUpper(c) ? c + 32 : c - 32);
/** A class atom written so that no neighbour can make it part of a range (`-` included). */
const atom = (c: number) => `\\u${c.toString(16).padStart(4, "0")}`;

/**
 * The source with `i` spelled out, for an ASCII-only pattern (checked by shapeOf): each letter becomes `[aA]`, each
 * class is rewritten with the other case of its letters added. Exact: without the `u` flag, `i` maps an ASCII
 * character only to its other case, and no non-ASCII character to an ASCII one; `\w`, `\b`, `.` and the other
 * escapes ignore `i`.
 */
function caseExpanded(source: string, pattern: AST.Pattern): string {
  const spans: Array<{ start: number; end: number; text: string }> = [];
  const visit = (node: Node): void => {
    if (node.type === "Character") {
      if (isLetter(node.value))
        spans.push({ start: node.start, end: node.end, text: `[${atom(node.value)}${atom(otherCase(node.value))}]` });
      return;
    }
    if (node.type === "CharacterClass") {
      let body = "";
      for (const e of node.elements) {
        if (e.type === "Character") body += atom(e.value) + (isLetter(e.value) ? atom(otherCase(e.value)) : "");
        else if (e.type === "CharacterClassRange")
          body += `${atom(e.min.value)}-${atom(e.max.value)}${rangeCounterparts(e.min.value, e.max.value)}`;
        else body += e.raw;
      }
      spans.push({ start: node.start, end: node.end, text: `[${node.negate ? "^" : ""}${body}]` });
      return;
    }
    if ("alternatives" in node) for (const a of node.alternatives) visit(a);
    else if ("elements" in node) for (const e of node.elements) visit(e);
    else if (node.type === "Quantifier") visit(node.element);
  };
  visit(pattern);
  // one pass: the spans do not overlap (a class's characters are its span's)
  const parts: string[] = [];
  let at = 0;
  for (const s of spans.sort((a, b) => a.start - b.start)) {
    parts.push(source.slice(at, s.start), s.text);
    at = s.end;
  }
  parts.push(source.slice(at));
  return parts.join("");
}

/** The other case of the letters in [lo, hi], as class ranges. */
function rangeCounterparts(lo: number, hi: number): string {
  let out = "";
  const part = (from: number, to: number, shift: number) => {
    const a = Math.max(lo, from);
    const b = Math.min(hi, to);
    if (a <= b) out += `${atom(a + shift)}-${atom(b + shift)}`;
  };
  part(0x41, 0x5a, 32);
  part(0x61, 0x7a, -32);
  return out;
}
