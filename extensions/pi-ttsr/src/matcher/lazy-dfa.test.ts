import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { loadScaledTimeout } from "../testing/machine-load.ts";
import type { MatchWindow, PatternSpec } from "./compile.ts";
import { naiveFirstMatches } from "./naive-first-matches.ts";
import { PatternSet } from "./pattern-set.ts";

/** Delta index of each pattern's first hit (deltas.length: at finish), or null. */
function firstHits(set: PatternSet, deltas: readonly string[], patterns?: number[]): Array<number | null> {
  const m = set.stream(patterns);
  const result: Array<number | null> = set.patterns.map(() => null);
  deltas.forEach((d, k) => {
    for (const hit of m.push(d)) result[hit.pattern] ??= k;
  });
  for (const hit of m.finish()) result[hit.pattern] ??= deltas.length;
  return result;
}

// Patterns sharing one automaton: literals and classes that start alike, line windows beside accumulated ones
// (a line feed ends only the line patterns' partial matches), characters outside ASCII (stepped lazily).
const ATOMS = ["a", "b", "ab", "é", "\\n", "[^a]", "[a-é]", "\\w", "\\s", ".", "\\u2028", "x"];
const patternArb: fc.Arbitrary<PatternSpec> = fc.record({
  source: fc
    .array(
      fc.tuple(fc.constantFrom(...ATOMS), fc.constantFrom("", "", "?", "+", "*")).map(([a, q]) => a + q),
      { minLength: 1, maxLength: 4 },
    )
    .map((parts) => parts.join("")),
  flags: fc.constantFrom("", "", "i", "s"),
  window: fc.constantFrom<MatchWindow>("accumulated", "line"),
});
const textArb = fc
  .array(fc.constantFrom("a", "b", "ab", "é", "É", "\n", " ", "x", "\u2028", "aé\nb"), { maxLength: 16 })
  .map((parts) => parts.join(""));

describe("the shared lazy automaton", () => {
  it(
    "finds each pattern of a set where a full-buffer test of that pattern alone does, also on a restricted lane",
    () => {
      fc.assert(
        fc.property(
          fc.array(patternArb, { minLength: 2, maxLength: 6 }),
          textArb,
          fc.array(fc.nat(), { maxLength: 8 }),
          (specs, text, cuts) => {
            const set = new PatternSet(specs);
            const points = [...new Set(cuts.map((c) => c % (text.length + 1)))].sort((a, b) => a - b);
            const deltas: string[] = [];
            let last = 0;
            for (const p of [...points, text.length]) {
              if (p > last) deltas.push(text.slice(last, p));
              last = Math.max(last, p);
            }
            const usable = specs.map((_, i) => i).filter((i) => !set.errors[i]);
            const expected = specs.map((spec, i) =>
              set.errors[i] ? null : naiveFirstMatches([spec], deltas, { final: true })[0]!,
            );
            expect(firstHits(set, deltas)).toEqual(expected);
            const odd = usable.filter((i) => i % 2 === 1);
            expect(firstHits(set, deltas, odd)).toEqual(expected.map((e, i) => (odd.includes(i) ? e : null)));
          },
        ),
        {
          numRuns: Number(process.env.RUNS ?? 300),
          ...(process.env.FC_SEED || process.env.CI ? { seed: Number(process.env.FC_SEED ?? 20_261_128) } : {}),
        },
      );
    },
    loadScaledTimeout(30_000),
  );
});
