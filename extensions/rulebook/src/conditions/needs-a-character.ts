import { forEachOutsideClass } from "../frontmatter/outside-class.ts";

/**
 * Whether a valid regex surely cannot match empty text, read from its source alone. A rule's condition is checked
 * for matching empty text when it loads, and V8 answers that by compiling the regex (most of what checking 200 rules
 * costs a first start). Most conditions hold a character that must be there (`console\.log\(`, `import\s+\{`, the
 * `T` of `^\s*TODO`), which this finds without compiling. Conservative: `false` means "not known" (an alternation
 * outside groups, no term that must read a character before a construct not read here), never "it can"; the caller
 * then asks V8.
 */
export function needsACharacter(source: string, flags: string): boolean {
  // `v`: classes nest and combine; not read here
  if (flags.includes("v") || hasTopLevelAlternation(source)) return false;
  // one alternative: a sequence of terms, and it needs a character when one of them does
  for (let at = 0; at < source.length; ) {
    const atom = atomAt(source, at);
    if (atom === undefined) return false;
    const quantifier = quantifierAt(source, atom.end);
    if (quantifier === undefined) return false;
    if (atom.oneCharacter && quantifier.min > 0) return true;
    at = quantifier.end;
  }
  return false;
}

/** Escapes that read exactly one character: classes and control characters. */
const ONE_CHARACTER_ESCAPES = new Set("dDsSwWnrtfv");
/** ASCII punctuation: escaped, it is itself. */
const PUNCTUATION = /^[!-/:-@[-`{-~]$/;

interface Atom {
  end: number;
  /** It reads exactly one character (else: nothing, as an assertion, or not known, as a group). */
  oneCharacter: boolean;
}

/**
 * The term's atom at `at`: a character, `.`, a class, an escape of punctuation or a class escape (one character);
 * an assertion `^ $ \b \B` or a group (nothing known). Undefined for what is not read here (`\1`, `\x41`, `\p{L}`,
 * a brace or bracket Annex B reads as itself).
 */
function atomAt(source: string, at: number): Atom | undefined {
  const c = source[at]!;
  if (c === "^" || c === "$") return { end: at + 1, oneCharacter: false };
  if (c === "(") {
    const end = groupEnd(source, at);
    return end === undefined ? undefined : { end, oneCharacter: false };
  }
  if (c === "[") {
    const end = classEnd(source, at);
    return end === undefined ? undefined : { end, oneCharacter: true };
  }
  if (c === "\\") {
    const escaped = source[at + 1];
    if (escaped === "b" || escaped === "B") return { end: at + 2, oneCharacter: false };
    if (escaped === undefined || !(ONE_CHARACTER_ESCAPES.has(escaped) || PUNCTUATION.test(escaped))) return undefined;
    return { end: at + 2, oneCharacter: true };
  }
  if ("|)*+?{}]".includes(c)) return undefined;
  // a surrogate pair is one character under `u` (a quantifier after it applies to both halves)
  const code = c.charCodeAt(0);
  const pair = code >= 0xd800 && code <= 0xdbff && /[\udc00-\udfff]/.test(source[at + 1] ?? "");
  return { end: at + (pair ? 2 : 1), oneCharacter: true };
}

/**
 * The quantifier at `at` (none: exactly once), with the fewest times it lets its atom match; undefined for a `{`
 * that is not one (Annex B reads it as itself: not read here).
 */
function quantifierAt(source: string, at: number): { end: number; min: number } | undefined {
  const c = source[at];
  let end = at + 1;
  let min: number;
  if (c === "?" || c === "*") min = 0;
  else if (c === "+") min = 1;
  else if (c === "{") {
    const braces = /^\{(\d+)(?:,\d*)?\}/.exec(source.slice(at));
    if (!braces) return undefined;
    min = Number(braces[1]);
    end = at + braces[0].length;
  } else return { end: at, min: 1 };
  // lazy
  if (source[end] === "?") end++;
  return { end, min };
}

/** Where the group opened at `at` closes (its parentheses balanced; escapes and classes skipped by the walker). */
function groupEnd(source: string, at: number): number | undefined {
  let depth = 0;
  let end: number | undefined;
  forEachOutsideClass(source.slice(at), (c, i) => {
    if (c === "(") depth++;
    else if (c === ")" && --depth === 0) {
      end = at + i + 1;
      return "stop";
    }
    return undefined;
  });
  return end;
}

/** Where the class opened at `at` closes (JS syntax: the first unescaped `]`, so `[]` is the empty class). */
function classEnd(source: string, at: number): number | undefined {
  for (let i = at + 1; i < source.length; i++) {
    if (source[i] === "\\") i++;
    else if (source[i] === "]") return i + 1;
  }
  return undefined;
}

/** Whether a `|` stands outside every group and class (then an alternative other than the first may be empty). */
function hasTopLevelAlternation(source: string): boolean {
  if (!source.includes("|")) return false;
  let depth = 0;
  let found = false;
  forEachOutsideClass(source, (c) => {
    if (c === "(") depth++;
    else if (c === ")") depth--;
    else if (c === "|" && depth === 0) {
      found = true;
      return "stop";
    }
    return undefined;
  });
  return found;
}
