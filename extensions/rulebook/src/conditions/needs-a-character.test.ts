import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { needsACharacter } from "./needs-a-character.ts";
import { regexProblem } from "./stream.ts";

/** The reference: what V8 says of the compiled regex. */
const matchesEmpty = (source: string, flags: string) => new RegExp(source, flags).test("");
const valid = (source: string, flags: string) => {
  try {
    new RegExp(source, flags);
    return true;
  } catch {
    return false;
  }
};

/** Pieces of regex syntax, the ones this reads and the ones it must leave to V8. */
const PIECES = [
  ..."ab.-/\\^$|()[]{}*+?,0123456789".split(""),
  ..."\\d \\D \\s \\S \\w \\W \\b \\B \\n \\t \\v \\0 \\1 \\k<n> \\x41 \\u0041 \\u{1F600} \\p{L} \\cA \\( \\. \\/ \\\\ \\- \\]".split(
    " ",
  ),
  ..."(?: (?= (?! (?<= (?<! (?<n> [^ [] [^] {0} {1} {0,} {1,2} +? *? ?? {2}?".split(" "),
  "😀",
  "\ud83d",
  "\ude00",
  "é",
];
const FLAGS = ["", "i", "m", "s", "u", "v", "y", "g", "im", "su", "iv", "dgimsuy"];

describe("needsACharacter: a regex that surely cannot match empty text, without compiling it", () => {
  it("never says so of a regex that matches empty text (V8 as the reference, on generated regexes)", () => {
    let read = 0;
    let validCount = 0;
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(...PIECES), { maxLength: 8 }),
        fc.constantFrom(...FLAGS),
        (pieces, flags) => {
          const source = pieces.join("");
          if (!valid(source, flags)) return;
          validCount++;
          if (!needsACharacter(source, flags)) return;
          read++;
          expect(matchesEmpty(source, flags), `/${source}/${flags}`).toBe(false);
        },
      ),
      { numRuns: 40_000 },
    );
    // it must also answer for a good share, or it saves nothing
    expect(read / validCount).toBeGreaterThan(0.15);
  });

  it("reads the conditions users write, and leaves the rest to V8", () => {
    const read = ["console\\.log\\(", "import\\s+\\{[^}]*\\}", "^\\s*TODO", "\\bany\\b", "[A-Z]{3}", "(?=a)a", "😀+"];
    for (const source of read) expect(needsACharacter(source, ""), source).toBe(true);
    const left = ["(foo|bar)", "a?b*", "x|y(z)", "a*", "^$", "\\1a", "\\x41", "(?:ab)+", "a{0}", "a{,2}"];
    for (const source of left) expect(needsACharacter(source, ""), source).toBe(false);
    // under `v`, classes nest and combine: left to V8
    expect(needsACharacter("[a--b]", "v")).toBe(false);
  });

  it("a condition it reads is still compiled for its syntax, and one that matches empty text is still refused", () => {
    expect(regexProblem({ source: "a(", flags: "" })).toMatch(/^invalid regex/);
    expect(regexProblem({ source: "\\-x", flags: "u" })).toMatch(/^invalid regex/);
    expect(regexProblem({ source: "x|", flags: "" })).toBe("it matches empty text, so it would fire on every response");
    expect(regexProblem({ source: "console\\.log\\(", flags: "" })).toBeUndefined();
  });
});
