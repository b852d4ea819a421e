import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chunk } from "../testing/deltas.ts";
import { loadScaledTimeout, spinners } from "../testing/machine-load.ts";
import type { PatternSpec } from "./compile.ts";
import { naiveFirstMatches } from "./naive-first-matches.ts";
import { PatternSet } from "./pattern-set.ts";

/** The seeds' example rules plus patterns that exercise every matcher mode. */
const SPECS: PatternSpec[] = [
  { source: "import.*from ['\"]deprecated-module['\"]", flags: "i", window: "line" },
  { source: "from ['\"]@old-sdk/", flags: "", window: "line" },
  { source: ":\\s*any[\\s;,)\\]]", flags: "", window: "line" },
  { source: "console\\.(log|debug|info)\\(", flags: "", window: "line" },
  { source: "(api[_-]?key|secret|password|token)\\s*[=:]\\s*['\"][^'\"]{8,}", flags: "i", window: "line" },
  { source: "import.*from ['\"]deprecated-module['\"]", flags: "i", window: "accumulated" },
  { source: ":\\s*any[\\s;,)\\]]", flags: "", window: "accumulated" },
  { source: "\\bany\\b", flags: "", window: "accumulated" },
  { source: "\\bany\\b", flags: "", window: "line" },
  { source: "foo(?=bar)", flags: "", window: "accumulated" },
  { source: "x(?!y)", flags: "", window: "accumulated" },
  { source: "(?<=\\.)then", flags: "", window: "accumulated" },
  { source: "^import", flags: "m", window: "accumulated" },
  { source: "^import", flags: "", window: "line" },
  { source: "END$", flags: "", window: "accumulated" },
  { source: "END$", flags: "m", window: "accumulated" },
  { source: "BEGIN[\\s\\S]*?END", flags: "", window: "accumulated" },
  { source: "BEGIN.*END", flags: "s", window: "accumulated" },
  { source: "foo\\nbar", flags: "", window: "accumulated" },
  { source: "(\\w+) \\1", flags: "", window: "accumulated" },
  { source: "(\\w+) \\1", flags: "", window: "line" },
  { source: "TODO", flags: "", window: "chunk" },
  { source: "é+x", flags: "u", window: "accumulated" },
  { source: "secret", flags: "i", window: "accumulated" },
  { source: "(a|b)\\1c", flags: "", window: "accumulated" },
  // Verified, may cross lines, unbounded: the reversed automaton bounds where candidates start.
  { source: "(?<!\\.)res\\s*=(?!=)", flags: "", window: "accumulated" },
  { source: "(?<![\\w.])re[\\s\\S]*?s\\b", flags: "", window: "accumulated" },
];

const FRAGMENTS = [
  "import",
  "Import ",
  " from ",
  "'",
  '"',
  "deprecated-module",
  "@old-sdk/",
  ": any",
  "any",
  "many",
  " ",
  " ",
  "\n",
  "\n",
  ";",
  ")",
  "console.log(",
  "console.",
  "api_key = '",
  'token: "',
  "abcdefghij",
  "foo",
  "bar",
  "BEGIN",
  "END",
  "x",
  "y",
  "TODO",
  ".then",
  "then",
  "word",
  "é",
  "secret",
  "aac",
  "bb",
  "res",
  ".res",
  " =",
  "=",
  "re",
];

const textArb = fc.array(fc.constantFrom(...FRAGMENTS), { maxLength: 40 }).map((parts) => parts.join(""));

function ours(set: PatternSet, deltas: string[]): Array<number | null> {
  const m = set.stream();
  const result: Array<number | null> = set.patterns.map(() => null);
  deltas.forEach((d, k) => {
    for (const hit of m.push(d)) {
      expect(result[hit.pattern]).toBeNull();
      result[hit.pattern] = k;
    }
  });
  for (const hit of m.finish()) {
    expect(result[hit.pattern]).toBeNull();
    result[hit.pattern] = deltas.length;
  }
  return result;
}

/**
 * Property tests of the whole set: a few seconds each on a quiet machine (30 s leaves room), scaled by how much
 * slower the machine runs this process right now (CI runs every package's suite at once on 2 cores).
 */
const PROPERTY_TIMEOUT_MS = loadScaledTimeout(30_000);

describe("StreamMatcher", () => {
  const set = new PatternSet(SPECS);
  /**
   * Ours fires on the delta the full-buffer reference does, with the native budget on: none of these patterns is
   * slow, so none may be suspended, however busy the machine (the budget counts the work's own CPU time).
   */
  const expectAgreement = (deltas: string[]) => {
    expect(ours(set, deltas)).toEqual(naiveFirstMatches(SPECS, deltas, { final: true }));
    expect([...set.suspended.values()]).toEqual([]);
  };

  it("compiles every example, choosing the automaton when it can", () => {
    expect(set.errors.filter(Boolean)).toEqual([]);
    const modes = set.patterns.map((p) => p?.mode);
    expect(modes[0]).toBe("dfa");
    expect(modes[7]).toBe("dfa-verify");
    expect(modes[19]).toBe("dfa-verify"); // backreference: superset automaton, native verification
    expect(modes[22]).toBe("dfa"); // u flag, but no character outside the BMP: the automaton runs it
    expect(modes[21]).toBe("chunk");
    expect(modes[24]).toBe("dfa");
  });

  it("a stream restricted to some patterns reports only those, under the whole set's ids", () => {
    fc.assert(
      fc.property(textArb, fc.uniqueArray(fc.nat({ max: SPECS.length - 1 })), (text, picked) => {
        const only = [...picked].sort((a, b) => a - b);
        const hitsOf = (m: ReturnType<PatternSet["stream"]>) => [...[...text].flatMap((c) => m.push(c)), ...m.finish()];
        const everything = hitsOf(set.stream()).filter((h) => only.includes(h.pattern));
        expect(hitsOf(set.stream(only))).toEqual(everything);
      }),
      { numRuns: 200 },
    );
    // No pattern: no work, whatever streams.
    const idle = set.stream([]);
    expect(idle.push("bad( eval( any TODO ".repeat(50))).toEqual([]);
    expect(idle.finish()).toEqual([]);
    expect(idle.automatonStates).toBe(1);
    expect(idle.buffer).toBe("bad( eval( any TODO ".repeat(50));
  });

  it(
    "fires on the same delta as a full-buffer matcher, for random texts and chunkings",
    () => {
      fc.assert(
        fc.property(textArb, fc.array(fc.nat(), { maxLength: 60 }), (text, cuts) => {
          expectAgreement(chunk(text, cuts));
        }),
        { numRuns: 600 },
      );
    },
    PROPERTY_TIMEOUT_MS,
  );

  it(
    "agrees on long texts (several internal blocks)",
    () => {
      // A long match-free prefix, so matches (and their native windows) lie deep in the buffer.
      const longText = fc
        .tuple(fc.integer({ min: 1000, max: 4000 }), textArb, textArb)
        .map(([n, a, b]) => `${a.replace(/x/g, "")}${"qa wb\n".repeat(n)}${b}`);
      fc.assert(
        fc.property(longText, fc.array(fc.nat(), { minLength: 50, maxLength: 400 }), (text, cuts) => {
          expectAgreement(chunk(text, cuts));
        }),
        { numRuns: 25 },
      );
    },
    PROPERTY_TIMEOUT_MS,
  );

  it(
    "agrees for one-character deltas",
    () => {
      fc.assert(
        fc.property(textArb, (text) => {
          expectAgreement([...text]);
        }),
        { numRuns: 200 },
      );
    },
    PROPERTY_TIMEOUT_MS,
  );

  describe("on a busy machine (two processes spinning for the length of these tests)", () => {
    let busy: ReturnType<typeof spinners> | undefined;
    beforeAll(() => {
      busy = spinners(2);
    });
    afterAll(() => busy?.stop());

    it(
      "suspends no pattern and agrees with the full-buffer matcher, one-character deltas and random chunkings",
      () => {
        // A fresh set with a tight budget (2 ms per pattern and delta: a wall clock would blame these patterns for
        // every time the machine paused this process in one of their searches); the spinners load the machine.
        const busySet = new PatternSet(SPECS, { nativeBudgetMs: 2 });
        fc.assert(
          fc.property(textArb, fc.array(fc.nat(), { maxLength: 60 }), fc.boolean(), (text, cuts, single) => {
            const deltas = single ? [...text] : chunk(text, cuts);
            expect(ours(busySet, deltas)).toEqual(naiveFirstMatches(SPECS, deltas, { final: true }));
          }),
          { numRuns: 300, seed: 595_932_432 },
        );
        expect([...busySet.suspended.values()]).toEqual([]);
        // The counterexample, under load: a match at 7 expected.
        expect(ours(busySet, [...'Import token: "'])).toEqual(
          naiveFirstMatches(SPECS, [...'Import token: "'], { final: true }),
        );
      },
      PROPERTY_TIMEOUT_MS,
    );
  });

  it("catches a multi-line accumulated match split across many deltas", () => {
    const s = new PatternSet([{ source: "BEGIN[\\s\\S]*?END", flags: "", window: "accumulated" }]);
    const m = s.stream();
    expect(m.push("BEG")).toEqual([]);
    expect(m.push("IN\nline\n")).toEqual([]);
    expect(m.push("more E")).toEqual([]);
    expect(m.push("ND tail")).toEqual([{ pattern: 0, end: "BEGIN\nline\nmore END".length }]);
    expect(m.push("BEGIN END")).toEqual([]);
  });

  it("waits for the character after a trailing \\b or $: `any` of `anything` is not `\\bany\\b`", () => {
    const s = new PatternSet([
      { source: "\\bany\\b", flags: "", window: "accumulated" },
      { source: "END$", flags: "m", window: "accumulated" },
    ]);
    const m = s.stream();
    expect(m.push("x: any")).toEqual([]);
    expect(m.push("thing END")).toEqual([]);
    expect(m.push("ING; y: any")).toEqual([]);
    expect(m.push(";")).toEqual([{ pattern: 0, end: "x: anything ENDING; y: any".length }]);
    expect(m.push(" END")).toEqual([]);
    expect(m.finish()).toEqual([{ pattern: 1, end: "x: anything ENDING; y: any; END".length }]);
  });

  it("rejects invalid and empty-matching patterns with a reason", () => {
    const s = new PatternSet([
      { source: "(unclosed", flags: "", window: "accumulated" },
      { source: "a*", flags: "", window: "accumulated" },
    ]);
    expect(s.errors[0]).toMatch(/invalid regex/);
    expect(s.errors[1]).toMatch(/matches empty text/);
  });

  it("runs a catastrophic pattern on the automaton without backtracking", () => {
    const s = new PatternSet([{ source: "(a+)+b", flags: "", window: "accumulated" }]);
    expect(s.patterns[0]?.mode).toBe("dfa");
    const m = s.stream();
    for (let i = 0; i < 1000; i++) m.push("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa");
    expect(m.push("!")).toEqual([]);
    expect(m.push("aab")).toHaveLength(1);
  });

  it("refuses an exponential pattern that needs the native engine", () => {
    const s = new PatternSet([{ source: "(a+)+$", flags: "", window: "accumulated" }]);
    expect(s.errors[0]).toMatch(/exponential backtracking/);
  });
});
