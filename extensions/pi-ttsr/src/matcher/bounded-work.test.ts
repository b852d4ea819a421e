import { describe, expect, it } from "vitest";
import { RuleRegistry } from "../manager/registry.ts";
import { testRule } from "../testing/rule-fixture.ts";
import type { PatternSpec } from "./compile.ts";
import { PatternSet } from "./pattern-set.ts";
import type { PatternHit } from "./stream-matcher.ts";

/** Streams `text` in `size`-character deltas; returns the hits of each delta (and of finish, last). */
function stream(set: PatternSet, text: string, size = 4): PatternHit[][] {
  const m = set.stream();
  const out: PatternHit[][] = [];
  for (let i = 0; i < text.length; i += size) out.push(m.push(text.slice(i, i + size)));
  out.push(m.finish());
  return out;
}

function firstHit(set: PatternSet, text: string, size = 4): number | null {
  const hits = stream(set, text, size);
  const k = hits.findIndex((h) => h.length > 0);
  return k < 0 ? null : k;
}

const spec = (source: string, flags = ""): PatternSpec => ({ source, flags, window: "accumulated" });

describe("bounded work on patterns that backtrack on long lines", () => {
  it("checks `[ \\t]+$` (m) at each candidate's end, not by searching the line, and stays exact", () => {
    const set = new PatternSet([spec("[ \\t]+$", "m")]);
    const p = set.patterns[0]!;
    expect(p.mode).toBe("dfa-verify");
    expect(p.endRegex).toBeDefined();
    const spaces = " ".repeat(10_000);
    expect(firstHit(set, `${spaces}x`)).toBeNull();
    // Trailing spaces before a line feed: fires on the delta of the line feed.
    expect(firstHit(set, `${spaces}x  \nmore`, 4)).toBe(Math.floor(10_003 / 4));
  });

  it("`\\s+$` fires only at the end of a response that ends in white space", () => {
    const set = new PatternSet([spec("\\s+$")]);
    expect(set.patterns[0]!.endRegex).toBeDefined();
    const spaces = " \n".repeat(5_000);
    expect(firstHit(set, `${spaces}x`)).toBeNull();
    const hits = stream(set, `x${spaces}`);
    expect(hits.slice(0, -1).flat()).toEqual([]);
    expect(hits.at(-1)).toEqual([{ pattern: 0, end: 10_001 }]);
  });

  it("`^.{121,}$` (m) is decided per line end", () => {
    const set = new PatternSet([spec("^.{121,}$", "m")]);
    expect(set.patterns[0]!.endRegex).toBeDefined();
    const long = "y".repeat(10_000);
    expect(firstHit(set, `short\n${long}\nnext`, 4)).toBe(Math.floor((6 + 10_000) / 4));
    expect(firstHit(set, `short\n${"y".repeat(120)}\nz`, 4)).toBeNull();
  });

  it("`a*a*b` with the u flag runs on the automaton (no backtracking at all)", () => {
    const set = new PatternSet([spec("a*a*b", "u"), spec("é+x", "u")]);
    expect(set.patterns.map((p) => p?.mode)).toEqual(["dfa", "dfa"]);
    expect(firstHit(set, "a".repeat(5_000))).toBeNull();
    expect(firstHit(set, `${"a".repeat(5_000)}b`)).toBe(1250);
  });

  it("a u pattern reading astral characters stays native, on a budget", () => {
    const set = new PatternSet([spec("a.b", "u")]);
    expect(set.patterns[0]!.mode).toBe("native");
    expect(firstHit(set, "xa😀b", 1)).toBe(4);
  });

  it("`x{1,5000}y` runs widened (`x+y`) on the automaton: the native regex only checks a candidate at a `y`", () => {
    const set = new PatternSet([spec("x{1,5000}y")]);
    expect(set.patterns[0]!.mode).toBe("dfa-verify");
    expect(firstHit(set, "x".repeat(10_000))).toBeNull();
    expect(firstHit(set, `${"x".repeat(10_000)}y`, 100)).toBe(100);
    expect(stream(set, `${"x".repeat(10_000)}y`, 100)[100]).toEqual([{ pattern: 0, end: 10_001 }]);
  });

  it("suspends a pattern over its native CPU budget for the session, with one warning", () => {
    const strict = new PatternSet([spec("a.b", "u"), spec("plain")], { nativeBudgetMs: -1e9 });
    const seen: string[] = [];
    strict.onSuspend((s) => seen.push(s.reason));
    // No match (two code points between a and b); the native window grows past the untimed size.
    const hits = stream(strict, "xa😀😀b ".repeat(400), 3);
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatch(/a\.b\/u: suspended for this session/);
    expect(strict.suspended.has(0)).toBe(true);
    // The suspended pattern never fires; the others still do.
    expect(hits.flat()).toEqual([]);
    const m = strict.stream();
    expect(m.push("a😀b plain")).toEqual([{ pattern: 1, end: 10 }]);
  });

  it("surfaces a suspension as a rule issue naming the rule's file and key", () => {
    const registry = new RuleRegistry(
      [testRule("ws", { path: "/p/.pi/rules/ws.md", conditions: [{ source: "a.b", flags: "u" }] })],
      { cacheDir: false },
    );
    const announced: string[] = [];
    registry.onIssue((i) => announced.push(`${i.path}: ${i.message}`));
    registry.patternSet.suspend(0, 123);
    registry.patternSet.suspend(0, 456);
    expect(announced).toHaveLength(1);
    expect(announced[0]).toMatch(/ws\.md: \/a\.b\/u: suspended for this session.*123 ms/);
    expect(registry.issues.some((i) => i.rule === "ws" && /suspended/.test(i.message))).toBe(true);
    const m = registry.patternSet.stream();
    expect(m.push("a😀b")).toEqual([]);
    expect(m.finish()).toEqual([]);
  });
});
