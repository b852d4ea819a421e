import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { chunk } from "../testing/deltas.ts";
import { loadScaledTimeout } from "../testing/machine-load.ts";
import { type CompileResult, compilePattern, type MatchWindow, type PatternSpec } from "./compile.ts";
import { compileAll } from "./compile-cache.ts";
import { deferPattern } from "./deferred.ts";
import { naiveFirstMatches } from "./naive-first-matches.ts";
import { PatternSet } from "./pattern-set.ts";
import { checkRedos } from "./redos.ts";

const spec = (source: string, flags = "", window: MatchWindow = "accumulated"): PatternSpec => ({
  source,
  flags,
  window,
});

/** Every delta index at which the set's matcher fires (deltas.length: at finish), per pattern. */
function firings(set: PatternSet, deltas: readonly string[], restriction?: number[]): Array<number | null> {
  const m = set.stream(restriction);
  const result: Array<number | null> = set.patterns.map(() => null);
  const record = (hits: ReadonlyArray<{ pattern: number }>, k: number) => {
    for (const hit of hits) {
      expect(result[hit.pattern], `pattern ${hit.pattern} fired twice`).toBeNull();
      result[hit.pattern] = k;
    }
  };
  for (const [k, d] of deltas.entries()) record(m.push(d), k);
  record(m.finish(), deltas.length);
  return result;
}

/** A set whose patterns are all deferred where they can be (the rest compiled), with a small text limit. */
function deferredSet(specs: PatternSpec[], deferredMaxText: number): PatternSet {
  return new PatternSet(specs, { compiled: compileAll(specs, undefined, { defer: true }).results, deferredMaxText });
}

describe("deferring a pattern's compile", () => {
  it.each([
    ["(?<=a)b", "", "lookbehind"],
    ["a(?=b)", "", "lookahead"],
    ["(a)\\1", "", "backreference"],
    ["é+", "u", "unicode flag"],
    ["\\b(a+)+\\b", "", "nested repetition with an assertion"],
    ["\\w+\\s*\\w+\\b", "", "three repetitions with an assertion"],
    ["a+a*\\b", "", "two repetitions with an assertion (degree 3 once the search moves)"],
    ["é", "i", "a non-ASCII character under i"],
    ["a*", "", "matches empty text"],
    ["a{0,400}b", "", "too large for the linear engine"],
    ["\\c", "i", "a lone backslash (Annex B) under i"],
    ["[", "", "not a regex"],
  ])("compiles /%s/%s now (%s)", (source, flags) => {
    expect(deferPattern(spec(source, flags), flags)).toBeUndefined();
  });

  it("never throws: a group of 150,000 alternatives is compiled now or deferred, not a stack overflow", () => {
    const source = `x\\b(?:${Array.from({ length: 150_000 }, () => "a").join("|")})`;
    expect(() => deferPattern(spec(source), "")).not.toThrow();
  });

  it("spells out i over long patterns too", () => {
    const word = "Deprecated".repeat(2_000);
    const deferred = deferPattern(spec(word, "i"), "i")?.deferred;
    expect(deferred?.plain.test(`x ${word.toUpperCase()} y`)).toBe(true);
    expect(deferred?.plain.test(`x ${word.slice(1)} y`)).toBe(false);
  });

  it("never defers a chunk window", () => {
    expect(deferPattern(spec("a+b", "", "chunk"), "")).toBeUndefined();
  });

  it.each([
    ["(a+)+b", ""],
    ["import\\s+\\{[^}]*Old[^}]*\\}\\s+from", "i"],
    ["\\bnew\\s+Legacy\\b", "i"],
    ["^import", "m"],
    ["END$", ""],
  ])("defers /%s/%s", (source, flags) => {
    expect(deferPattern(spec(source, flags), flags)?.deferred).toBeDefined();
  });

  it("a trailing \\b or $ waits one character; one followed by what a match must consume does not", () => {
    expect(deferPattern(spec("any\\b"), "")?.lookahead).toBe(1);
    expect(deferPattern(spec("^\\s*x$", "m"), "m")?.lookahead).toBe(1);
    expect(deferPattern(spec("\\bany\\b\\s+x"), "")?.lookahead).toBe(0);
    expect(deferPattern(spec("a\\b(?:x|y\\b)?"), "")?.lookahead).toBe(1);
  });

  it("spells out i exactly: the rewrite matches what the rule's own regex matches, where it does", () => {
    const atoms = ["a", "Z", "k", "s", "[a-f]", "[^x]", "[Z-a]", "[-a]", "[a-]", "\\w", "\\W", "[\\w-]", ".", "_"];
    const patternArb = fc
      .array(fc.tuple(fc.constantFrom(...atoms), fc.constantFrom("", "+", "?", "{2}")), { minLength: 1, maxLength: 4 })
      .map((parts) => parts.map(([a, q]) => a + q).join(""));
    const textArb = fc
      .array(
        fc.constantFrom("a", "A", "z", "Z", "k", "K", "\u212a", "s", "S", "\u017f", "é", "É", "-", "_", "^", "`", " "),
      )
      .map((chars) => chars.join(""));
    fc.assert(
      fc.property(patternArb, textArb, (source, text) => {
        const deferred = deferPattern(spec(source, "i"), "i")?.deferred;
        if (!deferred) return;
        const want = new RegExp(source, "i").exec(text);
        const got = deferred.plain.exec(text);
        expect(got && [got.index, got[0]], `/${source}/i on ${JSON.stringify(text)}`).toEqual(
          want && [want.index, want[0]],
        );
      }),
      { numRuns: 2000, ...(process.env.CI ? { seed: 20_261_128 } : {}) },
    );
  });
});

// Deferrable shapes (no lookarounds or backreferences), with the assertions that settle late.
const ATOMS = ["a", "b", "ab", "then", "any", "x", "[ab]", "\\w", "\\s", ".", "[^a\\n]", "\\.", "\\n", "A", "[A-c]"];
const QUANTIFIERS = ["", "", "", "?", "*", "+", "{2}", "{1,3}"];
const elementArb: fc.Arbitrary<string> = fc.oneof(
  { weight: 5, arbitrary: fc.tuple(fc.constantFrom(...ATOMS), fc.constantFrom(...QUANTIFIERS)).map(([a, q]) => a + q) },
  { weight: 2, arbitrary: fc.constantFrom("\\b", "\\B", "^", "$") },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.constantFrom(...ATOMS), fc.constantFrom(...ATOMS), fc.constantFrom("", "?", "+"))
      .map(([a, b, q]) => `(?:${a}|${b})${q}`),
  },
);
const specArb: fc.Arbitrary<PatternSpec> = fc.record({
  source: fc.array(elementArb, { minLength: 1, maxLength: 5 }).map((parts) => parts.join("")),
  flags: fc.constantFrom("", "", "m", "s", "i", "ms", "im"),
  // chunk windows are never deferred, but share the stream's catch-up when the others compile
  window: fc.constantFrom<MatchWindow>("accumulated", "accumulated", "line", "chunk"),
});
const TEXT_PARTS = ["a", "b", "ab", "then", "any", "x", " ", "\n", ".", "A", "thena", ".then", "many", "_", "B"];
const textArb = fc.array(fc.constantFrom(...TEXT_PARTS), { maxLength: 24 }).map((p) => p.join(""));

describe("deferred patterns against the full-buffer reference", () => {
  it(
    "fire on the delta the reference settles, before and after the set compiles them mid-stream",
    () => {
      let deferredRuns = 0;
      fc.assert(
        fc.property(
          fc.array(specArb, { minLength: 1, maxLength: 3 }),
          textArb,
          fc.array(fc.nat(), { maxLength: 12 }),
          fc.constantFrom(1, 8, 24, 4096),
          (specs, text, cuts, limit) => {
            const set = deferredSet(specs, limit);
            // A refused pattern has no semantics to compare; deferral must never hide a load-time refusal.
            const compiled = specs.map((s) => compilePattern(s));
            for (const [i, r] of compiled.entries())
              if (!r.ok) expect(set.errors[i], `${JSON.stringify(specs[i])} deferred, then refused`).toBeDefined();
            if (compiled.some((r) => !r.ok)) return;
            // The reference backtracks: `(?:a|ab)+` on a long run of `a` could take it hours (see exactness.test.ts).
            const verdicts = specs.map((s) => checkRedos(s.source, s.flags));
            if (text.length > 16 && verdicts.some((v) => v.exponential)) return;
            if (text.length > 48 && verdicts.some((v) => v.polynomial)) return;
            if (set.hasDeferred) deferredRuns++;
            const deltas = chunk(text, cuts);
            const label = `${JSON.stringify(specs)} limit ${limit} on ${JSON.stringify(deltas)}`;
            expect(firings(set, deltas), label).toEqual(naiveFirstMatches(specs, deltas, { final: true }));
          },
        ),
        { numRuns: Number(process.env.RUNS ?? 600), ...(process.env.CI ? { seed: 20_261_128 } : {}) },
      );
      // the generators must really exercise deferral
      expect(deferredRuns).toBeGreaterThan(200);
    },
    loadScaledTimeout(60_000),
  );

  it("a restricted stream catches up on its own patterns when the set compiles", () => {
    const specs = [spec("a+b"), spec("then\\b", "i"), spec("x[^\\n]*y", "", "line")];
    const set = deferredSet(specs, 6);
    expect(set.hasDeferred).toBe(true);
    const deltas = ["aa", "ab T", "HEN", " x", "..", "y\nz"];
    // `THEN` settles once the character after it (its `\\b`) has streamed
    expect(firings(set, deltas, [1, 2])).toEqual([null, 3, 5]);
    expect(set.hasDeferred).toBe(false);
    expect(set.patterns.map((p) => p?.mode)).toEqual(["dfa", expect.any(String), expect.any(String)]);
  });

  it("catching up on the whole text does not run chunk-window rules on it as one delta", () => {
    const specs = [spec("ab", "", "chunk"), spec("x+y")];
    const set = deferredSet(specs, 3);
    expect(set.patterns[1]?.deferred).toBeDefined();
    expect(firings(set, ["a", "b", "b", "xy"])).toEqual([null, 3]);
  });

  it("a pattern its later compile refuses is off from then on, and says why once", () => {
    const specs = [spec("a+b"), spec("c+d")];
    const refuse = (s: PatternSpec): CompileResult =>
      s.source === "c+d"
        ? { ok: false, error: "/c+d/: cannot analyse", refusal: "unanalysable" }
        : compileAll([s]).results[0]!;
    const set = new PatternSet(specs, {
      compiled: compileAll(specs, undefined, { defer: true }).results,
      compile: refuse,
    });
    const said: string[] = [];
    set.onSuspend(({ reason }) => said.push(reason));
    const m = set.stream();
    expect(m.push("cd")).toEqual([{ pattern: 1, end: 2 }]);
    set.compileDeferred();
    expect(m.push(" ccd ab")).toEqual([{ pattern: 0, end: 9 }]);
    expect(said).toEqual([
      "/c+d/: cannot analyse (found when it compiled after the session started: it is off from now on)",
    ]);
  });
});

describe("the compile cache with deferred patterns", () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  it("a first start defers the regex rules, compiles the rest, and writes no set until all compiled", () => {
    const dir = mkdtempSync(join(tmpdir(), "ttsr-deferred-"));
    dirs.push(dir);
    const specs = [spec("forbiddenCall\\("), spec('console\\.(log|info)\\(\\s*"tag', "i"), spec("a(?=b)")];
    const first = compileAll(specs, dir, { defer: true });
    expect(first).toMatchObject({ cache: "miss", compiled: 2, deferred: 1 });
    const files = () => readdirSync(join(dir, readdirSync(dir)[0]!));
    // the regex compiled now has a file of its own (a plain string is cheaper to compile again than to look for);
    // no set file while one is deferred
    expect(files().filter((f) => f.startsWith("set-"))).toEqual([]);
    expect(files()).toHaveLength(1);
    // the next start finds it, compiles the plain string again and defers the same one
    expect(compileAll(specs, dir, { defer: true })).toMatchObject({ compiled: 1, deferred: 1 });
    expect(files()).toHaveLength(1);
  });
});
