import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compileAnalysed, compilePattern, literalChars, type MatchWindow } from "./compile.ts";

// Characters a plain-string rule may hold: letters, digits, punctuation, the regex syntax escaped, a line feed,
// a tab and characters outside ASCII; and pieces that make a source not a plain string.
const PIECES = ["a", "Z", "0", " ", "_", "-", "@", "/", "é", "ß", "\n", "\t", '"', "'", ":", ";", "<", "=", "#"];
const ESCAPES = [
  "\\(",
  "\\)",
  "\\.",
  "\\[",
  "\\]",
  "\\{",
  "\\}",
  "\\*",
  "\\+",
  "\\?",
  "\\|",
  "\\^",
  "\\$",
  "\\\\",
  "\\/",
  "\\-",
];
const NOT_PLAIN = ["\\b", "\\d", "\\w", "\\s", ".", "a*", "(", "[ab]", "^", "$", "x|y", "\\1", "\\n", "]", "}"];

const windows = fc.constantFrom<MatchWindow>("accumulated", "line");

describe("plain-string patterns compile without the regex libraries", () => {
  it("to exactly what refa's analysis makes of them (every field, the automaton node for node)", () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(...PIECES, ...ESCAPES), { minLength: 1, maxLength: 12 }).map((p) => p.join("")),
        fc.constantFrom("", "m", "s", "ms", "sm"),
        windows,
        (source, flags, window) => {
          expect(literalChars(source, flags)).toBeDefined();
          const spec = { source, flags, window };
          expect(compilePattern(spec)).toEqual(compileAnalysed(spec));
        },
      ),
      { numRuns: 300, ...(process.env.CI ? { seed: 20_261_128 } : {}) },
    );
  });

  it("rules' usual strings too; anything else (or the i, u, v flags) goes through the analysis", () => {
    const usual = ["forbiddenCall7\\(", "legacy-module-3", "@deprecated/pkg1", "TODO\\(ticket-9\\)", "oldApi\\.v2\\."];
    for (const source of usual) {
      const spec = { source, flags: "", window: "accumulated" as const };
      expect(literalChars(source, "")).toBeDefined();
      expect(compilePattern(spec)).toEqual(compileAnalysed(spec));
    }
    for (const piece of NOT_PLAIN) expect(literalChars(`ab${piece}`, "")).toBeUndefined();
    for (const flags of ["i", "u", "v", "mi"]) expect(literalChars("abc", flags)).toBeUndefined();
    expect(literalChars("", "")).toBeUndefined();
    expect(compilePattern({ source: "ab", flags: "", window: "chunk" }).ok && "chunk").toBe("chunk");
  });
});
