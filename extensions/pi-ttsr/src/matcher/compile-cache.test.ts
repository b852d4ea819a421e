import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { RuleRegistry } from "../manager/registry.ts";
import { testRule } from "../testing/rule-fixture.ts";
import type { PatternSpec } from "./compile.ts";
import { cacheKey, compileAll } from "./compile-cache.ts";
import { PatternSet } from "./pattern-set.ts";

const SPECS: PatternSpec[] = [
  { source: "console\\.log\\(", flags: "", window: "accumulated" },
  { source: "\\bany\\b", flags: "", window: "line" },
  { source: "[ \\t]+$", flags: "m", window: "accumulated" },
  { source: '(?=[\\s\\S]*"op")(?=[\\s\\S]*\\bCI\\b)', flags: "", window: "accumulated" },
  { source: "(\\w+) \\1", flags: "", window: "accumulated" },
  { source: "a.b", flags: "u", window: "accumulated" },
  { source: "a*", flags: "", window: "accumulated" },
];
const TEXT = 'let x: any = 1;   \nconsole.log(x) CI op "op" word word a😀b\n';

let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

function hitsOf(set: PatternSet, text: string): string {
  const m = set.stream();
  const hits = [...[...text].flatMap((c) => m.push(c)), ...m.finish()];
  return JSON.stringify(hits);
}

describe("compile cache", () => {
  it("compiles once, then reads the same patterns back (same fields, same modes, same matches)", () => {
    dir = mkdtempSync(join(tmpdir(), "ttsr-cache-"));
    const first = compileAll(SPECS, dir);
    expect(first.cache).toBe("miss");
    expect(readdirSync(dir)).toEqual([`${cacheKey(SPECS)}.json`]);
    const second = compileAll(SPECS, dir);
    expect(second.cache).toBe("hit");
    // Field for field, Infinity included (unbounded lengths and reaches, which JSON cannot carry as numbers).
    expect(second.results).toEqual(first.results);
    const unbounded = first.results.filter((r) => r.ok && r.pattern.maxLength === Number.POSITIVE_INFINITY);
    expect(unbounded.length).toBeGreaterThan(0);
    const fresh = new PatternSet(SPECS);
    const cached = new PatternSet(SPECS, { compiled: second.results });
    expect(cached.patterns.map((p) => p?.mode)).toEqual(fresh.patterns.map((p) => p?.mode));
    expect(cached.errors).toEqual(fresh.errors);
    expect(hitsOf(cached, TEXT)).toEqual(hitsOf(fresh, TEXT));
    expect(JSON.parse(hitsOf(fresh, TEXT)).length).toBeGreaterThan(3);
  });

  it("keys by the patterns: another rule set is compiled, not read", () => {
    dir = mkdtempSync(join(tmpdir(), "ttsr-cache-"));
    compileAll(SPECS, dir);
    const other = [...SPECS.slice(0, 3), { source: "TODO", flags: "i", window: "accumulated" as const }];
    expect(cacheKey(other)).not.toBe(cacheKey(SPECS));
    expect(compileAll(other, dir).cache).toBe("miss");
    expect(readdirSync(dir)).toHaveLength(2);
  });

  it("ignores and rewrites a corrupt or foreign cache file", () => {
    dir = mkdtempSync(join(tmpdir(), "ttsr-cache-"));
    const file = join(dir, `${cacheKey(SPECS)}.json`);
    for (const junk of ["{not json", '{"format":3,"results":[1,2]}', JSON.stringify({ format: 999, results: [] })]) {
      writeFileSync(file, junk);
      const result = compileAll(SPECS, dir);
      expect(result.cache).toBe("miss");
      expect(result.results.map((r) => r.ok)).toEqual([true, true, true, true, true, true, false]);
      expect(compileAll(SPECS, dir).cache).toBe("hit");
    }
    // An entry for another pattern (edited by hand, or a collision) is not trusted.
    const data = JSON.parse(readFileSync(file, "utf8"));
    data.results[0].pattern.spec.source = "something else";
    writeFileSync(file, JSON.stringify(data));
    expect(compileAll(SPECS, dir).cache).toBe("miss");
  });

  it("compiles without a cache when the directory cannot be written", () => {
    dir = mkdtempSync(join(tmpdir(), "ttsr-cache-"));
    const blocked = join(dir, "file");
    writeFileSync(blocked, "a file, not a directory");
    const result = compileAll(SPECS, join(blocked, "cache"));
    expect(result.cache).toBe("miss");
    expect(result.results).toHaveLength(SPECS.length);
    expect(readdirSync(dir)).toEqual(["file"]);
  });

  it("is what a rule registry uses: the second registry of the same rules reads them back", () => {
    dir = mkdtempSync(join(tmpdir(), "ttsr-cache-"));
    const rules = [
      testRule("a", { conditions: [{ source: "\\beval\\(", flags: "" }] }),
      testRule("b", { conditions: [{ source: "[ \\t]+$", flags: "m" }] }),
    ];
    const first = new RuleRegistry(rules, { cacheDir: dir });
    const second = new RuleRegistry(rules, { cacheDir: dir });
    expect([first.compileCache, second.compileCache]).toEqual(["miss", "hit"]);
    expect(hitsOf(second.patternSet, "x = eval(y)  \n")).toEqual(hitsOf(first.patternSet, "x = eval(y)  \n"));
    expect(new RuleRegistry(rules, { cacheDir: false }).compileCache).toBe("off");
  });
});
