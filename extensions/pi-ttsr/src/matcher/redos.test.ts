import { describe, expect, it } from "vitest";
import { compilePattern, MAX_NATIVE_DEGREE } from "./compile.ts";
import { PatternSet } from "./pattern-set.ts";
import { checkRedos } from "./redos.ts";

const accumulated = (source: string, flags = "") => compilePattern({ source, flags, window: "accumulated" });

describe("load-time refusal of patterns too slow for the native engine", () => {
  it.each([
    ["[ \\t]+$", "m", 2], // the search moves: n starts × n
    ["(\\w+) \\1", "", 2],
    ["\\w+\\s*\\w+\\b", "", 3], // \w+ and \w+ trade characters, and the search moves
    ["\\s*\\s*\\s*x(?=y)", "", 4],
    ["(?:a+){3}b(?<=\\b)", "", 4],
    ["\\bany\\b", "", 1],
  ])("/%s/%s backtracks with degree %i", (source, flags, degree) => {
    expect(checkRedos(source, flags).degree).toBe(degree);
  });

  it("refuses a pattern of degree 3 that needs the native engine, saying why and how to fix it", () => {
    const result = accumulated("\\w+\\s*\\w+\\b");
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.refusal).toBe("too-slow");
    expect(result.error).toMatch(/^\/\\w\+\\s\*\\w\+\\b\/ backtracks polynomially \(about n\^3 steps/);
    expect(result.error).toMatch(/\\w\+ and \\w\+ trade characters; the search moves its start/);
    expect(result.error).toMatch(/its assertions need the native engine, where 2048 unlucky characters/);
    expect(MAX_NATIVE_DEGREE).toBe(2);
  });

  it("names scslre's rewrite when there is one, and refuses exponential backtracking as before", () => {
    const result = compilePattern({ source: "b+b+(?<!a)(?<=\\b)", flags: "", window: "chunk" });
    expect(result).toMatchObject({ ok: false, refusal: "too-slow" });
    if (!result.ok) expect(result.error).toMatch(/\/b\{2,\}\(\?<!a\)\(\?<=\\b\)\/ matches the same without it$/);
    expect(accumulated("(a+)+$")).toMatchObject({ ok: false, refusal: "too-slow" });
  });

  it("keeps what the automaton runs alone, however it would backtrack, and degree 2 on the native engine", () => {
    expect(accumulated("\\w+\\s*\\w+")).toMatchObject({ ok: true, pattern: { mode: "dfa" } });
    expect(accumulated("(a+)+b")).toMatchObject({ ok: true, pattern: { mode: "dfa" } });
    const trailing = accumulated("[ \\t]+$", "m");
    expect(trailing).toMatchObject({ ok: true, pattern: { mode: "dfa-verify", polynomial: true } });
  });

  it("says why every other refusal happened; a pattern set keeps each reason and its kind", () => {
    expect(accumulated("(unclosed")).toMatchObject({ ok: false, refusal: "invalid" });
    expect(accumulated("a*")).toMatchObject({ ok: false, refusal: "empty" });
    const set = new PatternSet([
      { source: "(unclosed", flags: "", window: "line" },
      { source: "\\w+\\s*\\w+\\b", flags: "", window: "line" },
      { source: "plain", flags: "", window: "line" },
    ]);
    expect(set.refusals).toEqual(["invalid", "too-slow", undefined]);
    expect(set.errors[1]).toMatch(/backtracks polynomially/);
    expect(set.errors[2]).toBeUndefined();
  });
});
