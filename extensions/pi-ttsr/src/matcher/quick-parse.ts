import type { AST } from "@eslint-community/regexpp";

/**
 * A regex parser for the patterns rules are mostly written with, so that screening them for deferral (deferred.ts)
 * does not load regexpp (about 4 ms) and parse each pattern with it (about 50 µs): on a first start with 100 regex
 * rules that was a third of pi-ttsr's start-up.
 *
 * It reads what regexpp reads for a pattern without the `u` or `v` flag, and builds the same nodes (type, offsets,
 * raw text, values, parents: tested node for node against regexpp), for: characters and identity escapes of
 * punctuation, `\n \r \t \f \v`, `.`, `\d \D \s \S \w \W`, classes with ranges, `^ $ \b \B`, capturing and `(?:`
 * groups, alternation, and the quantifiers `* + ? {n} {n,} {n,m}`, lazy or not. Anything else (lookarounds,
 * backreferences, named groups, `\x \u \c`, octal and Annex B's literal `{ } ]`) is left to regexpp: undefined.
 * The pattern must already be a valid regex (the caller constructed it).
 */
export function quickParse(source: string): AST.Pattern | undefined {
  try {
    return new QuickParser(source).pattern();
  } catch (error) {
    if (error === UNSUPPORTED) return undefined;
    throw error;
  }
}

/** Thrown inside the parser for anything it leaves to regexpp. */
const UNSUPPORTED = Symbol("unsupported");

/** The largest quantifier bound read here (regexpp reads larger ones as doubles; such patterns are rare). */
const MAX_BOUND = 2 ** 31 - 1;

const SET_ESCAPES: Record<string, { kind: "digit" | "space" | "word"; negate: boolean }> = {
  d: { kind: "digit", negate: false },
  D: { kind: "digit", negate: true },
  s: { kind: "space", negate: false },
  S: { kind: "space", negate: true },
  w: { kind: "word", negate: false },
  W: { kind: "word", negate: true },
};
const CONTROL_ESCAPES: Record<string, number> = { n: 0x0a, r: 0x0d, t: 0x09, f: 0x0c, v: 0x0b };
/** Escapes of ASCII punctuation: the character itself in every regex. */
const IDENTITY_ESCAPE = /[!-/:-@[-`{-~]/;

type Element = AST.Element;
type ClassElement = AST.CharacterClassElement;

class QuickParser {
  private at = 0;
  constructor(private readonly source: string) {}

  pattern(): AST.Pattern {
    const node = this.node<AST.Pattern>("Pattern", 0, { parent: null, alternatives: [] });
    this.disjunction(node, node.alternatives);
    if (this.at !== this.source.length) throw UNSUPPORTED;
    return this.close(node);
  }

  private disjunction(parent: AST.Pattern | AST.Group | AST.CapturingGroup, into: AST.Alternative[]): void {
    for (;;) {
      const alternative = this.node<AST.Alternative>("Alternative", this.at, { parent, elements: [] });
      while (this.at < this.source.length && this.peek() !== "|" && this.peek() !== ")")
        alternative.elements.push(this.term(alternative));
      into.push(this.close(alternative));
      if (this.peek() !== "|") return;
      this.at++;
    }
  }

  private term(parent: AST.Alternative): Element {
    const start = this.at;
    const atom = this.atom(parent);
    const bounds = this.quantifierBounds();
    if (!bounds) return atom;
    if (atom.type === "Assertion") throw UNSUPPORTED;
    const greedy = this.peek() !== "?";
    if (!greedy) this.at++;
    const quantifier = this.node<AST.Quantifier>("Quantifier", start, {
      parent,
      min: bounds.min,
      max: bounds.max,
      greedy,
      element: atom as AST.QuantifiableElement,
    });
    (atom as { parent: AST.Node }).parent = quantifier;
    return this.close(quantifier);
  }

  private quantifierBounds(): { min: number; max: number } | undefined {
    const c = this.peek();
    if (c === "*" || c === "+" || c === "?") {
      this.at++;
      return { min: c === "+" ? 1 : 0, max: c === "?" ? 1 : Number.POSITIVE_INFINITY };
    }
    if (c !== "{") return undefined;
    // only a whole `{n}`, `{n,}` or `{n,m}`; Annex B reads any other `{` as a character: regexpp's to read
    const match = /^\{(\d+)(,(\d*))?\}/.exec(this.source.slice(this.at));
    if (!match) throw UNSUPPORTED;
    const min = Number(match[1]);
    const max = match[2] === undefined ? min : match[3] ? Number(match[3]) : Number.POSITIVE_INFINITY;
    if (min > MAX_BOUND || (max !== Number.POSITIVE_INFINITY && max > MAX_BOUND) || max < min) throw UNSUPPORTED;
    this.at += match[0].length;
    return { min, max };
  }

  private atom(parent: AST.Alternative): Element {
    const start = this.at;
    const c = this.source[this.at++]!;
    switch (c) {
      case "^":
        return this.close(this.node<AST.Assertion>("Assertion", start, { parent, kind: "start" }));
      case "$":
        return this.close(this.node<AST.Assertion>("Assertion", start, { parent, kind: "end" }));
      case ".":
        return this.close(this.node<AST.CharacterSet>("CharacterSet", start, { parent, kind: "any" }));
      case "(":
        return this.group(parent, start);
      case "[":
        return this.characterClass(parent, start);
      case "\\":
        return this.escape(parent, start, false) as Element;
      case "*":
      case "+":
      case "?":
      case "{":
      case "}":
      case "]":
      case ")":
      case "|":
        throw UNSUPPORTED;
      default:
        return this.character(parent, start, c.charCodeAt(0));
    }
  }

  private group(parent: AST.Alternative, start: number): AST.Group | AST.CapturingGroup {
    let group: AST.Group | AST.CapturingGroup;
    if (this.peek() === "?") {
      if (this.source[this.at + 1] !== ":") throw UNSUPPORTED;
      this.at += 2;
      group = this.node<AST.Group>("Group", start, { parent, modifiers: null, alternatives: [] });
    } else {
      group = this.node<AST.CapturingGroup>("CapturingGroup", start, {
        parent,
        name: null,
        alternatives: [],
        references: [],
      });
    }
    this.disjunction(group, group.alternatives);
    if (this.source[this.at++] !== ")") throw UNSUPPORTED;
    return this.close(group);
  }

  private characterClass(parent: AST.Alternative, start: number): AST.CharacterClass {
    const negate = this.peek() === "^";
    if (negate) this.at++;
    const node = this.node<AST.CharacterClass>("CharacterClass", start, {
      parent,
      unicodeSets: false,
      negate,
      elements: [],
    } as Partial<AST.CharacterClass>);
    const elements = node.elements as ClassElement[];
    while (this.peek() !== "]") {
      if (this.at >= this.source.length) throw UNSUPPORTED;
      const from = this.classAtom(node);
      if (this.peek() !== "-" || this.source[this.at + 1] === "]" || this.at + 1 >= this.source.length) {
        elements.push(from);
        continue;
      }
      // a range: two characters (Annex B reads `\s-a` as three atoms: regexpp's to read)
      this.at++;
      const to = this.classAtom(node);
      if (from.type !== "Character" || to.type !== "Character" || from.value > to.value) throw UNSUPPORTED;
      const range = this.node<AST.CharacterClassRange>("CharacterClassRange", from.start, {
        parent: node,
        min: from,
        max: to,
      });
      from.parent = range;
      to.parent = range;
      elements.push(this.close(range));
    }
    this.at++;
    if (elements.length === 0) throw UNSUPPORTED;
    return this.close(node);
  }

  private classAtom(parent: AST.CharacterClass): AST.Character | AST.EscapeCharacterSet {
    const start = this.at;
    const c = this.source[this.at++]!;
    if (c === "\\") {
      // `\b` is a backspace in a class
      if (this.peek() === "b") {
        this.at++;
        return this.character(parent, start, 0x08);
      }
      return this.escape(parent, start, true) as AST.Character | AST.EscapeCharacterSet;
    }
    return this.character(parent, start, c.charCodeAt(0));
  }

  /** The escape after a `\` at `start` (already consumed). */
  private escape(
    parent: AST.Alternative | AST.CharacterClass,
    start: number,
    inClass: boolean,
  ): AST.Character | AST.EscapeCharacterSet | AST.WordBoundaryAssertion {
    const c = this.source[this.at++];
    if (c === undefined) throw UNSUPPORTED;
    const set = SET_ESCAPES[c];
    if (set) return this.close(this.node<AST.EscapeCharacterSet>("CharacterSet", start, { parent, ...set }));
    if (!inClass && (c === "b" || c === "B"))
      return this.close(
        this.node<AST.WordBoundaryAssertion>("Assertion", start, {
          parent: parent as AST.Alternative,
          kind: "word",
          negate: c === "B",
        }),
      );
    const control = CONTROL_ESCAPES[c];
    if (control !== undefined) return this.character(parent, start, control);
    if (IDENTITY_ESCAPE.test(c)) return this.character(parent, start, c.charCodeAt(0));
    throw UNSUPPORTED;
  }

  private character(
    parent: AST.Alternative | AST.CharacterClass | AST.Quantifier,
    start: number,
    value: number,
  ): AST.Character {
    return this.close(this.node<AST.Character>("Character", start, { parent, value } as Partial<AST.Character>));
  }

  private peek(): string | undefined {
    return this.source[this.at];
  }

  /** A node open at `start` (its end and raw text are set by `close`). */
  private node<T extends AST.Node>(type: T["type"], start: number, fields: Partial<T>): T {
    return { type, start, end: start, raw: "", ...fields } as unknown as T;
  }

  private close<T extends AST.Node>(node: T): T {
    node.end = this.at;
    node.raw = this.source.slice(node.start, node.end);
    return node;
  }
}
