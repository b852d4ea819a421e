import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { RuleRegistry } from "../manager/registry.ts";
import { testRule } from "../testing/rule-fixture.ts";
import type { PatternSpec } from "./compile.ts";
import { cacheFile, compileAll, setFile } from "./compile-cache.ts";
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
    expect([first.cache, first.compiled]).toEqual(["miss", SPECS.length]);
    // A first start writes one file, the set's, in a folder of this compiler's.
    const folder = dirname(cacheFile(dir, SPECS[0]!));
    expect(readdirSync(dir)).toEqual([folder.slice(dir.length + 1)]);
    expect(readdirSync(folder)).toEqual([setFile(dir, SPECS).slice(folder.length + 1)]);
    const second = compileAll(SPECS, dir);
    expect([second.cache, second.compiled]).toEqual(["hit", 0]);
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

  it("stores a plain string's entry as its spec alone, and reads it back as compiling it gives", () => {
    dir = mkdtempSync(join(tmpdir(), "ttsr-cache-"));
    const literals: PatternSpec[] = ["forbiddenCall\\(", "legacy-module", "@deprecated/pkg", "a.b"].map(
      (source, i) => ({
        source,
        flags: i === 1 ? "m" : "",
        window: "accumulated",
      }),
    );
    const fresh = compileAll(literals).results;
    compileAll(literals, dir);
    const stored = JSON.parse(readFileSync(setFile(dir, literals), "utf8")).results;
    expect(stored.slice(0, 3)).toEqual(literals.slice(0, 3).map((spec) => ({ ok: true, literal: true, spec })));
    // `a.b` is a regex: its automaton is stored
    expect(stored[3].pattern.nfa).toBeDefined();
    const again = compileAll(literals, dir);
    expect(again.cache).toBe("hit");
    expect(again.results).toEqual(fresh);
  });

  it("keys by the pattern: an edited rule set compiles only the edited pattern, and leaves the other set's file alone", () => {
    dir = mkdtempSync(join(tmpdir(), "ttsr-cache-"));
    compileAll(SPECS, dir);
    // A rewrite is a rename of a new file (a new inode): the first set's file keeps its own.
    const kept = statSync(setFile(dir, SPECS)).ino;
    const edited = { source: "TODO", flags: "i", window: "accumulated" as const };
    const other = [...SPECS.slice(0, 3), edited];
    const result = compileAll(other, dir);
    expect([result.cache, result.compiled]).toEqual(["miss", 1]);
    expect(result.results).toEqual(other.map((s) => compileAll([s]).results[0]));
    expect(statSync(setFile(dir, SPECS)).ino).toBe(kept);
    // The two sets' files and the edited pattern's own.
    expect(readdirSync(dirname(cacheFile(dir, edited))).sort()).toEqual(
      [setFile(dir, SPECS), setFile(dir, other), cacheFile(dir, edited)]
        .map((f) => f.slice(dirname(f).length + 1))
        .sort(),
    );
    // The edited set's start after that reads its one set file.
    expect(compileAll(other, dir)).toMatchObject({ cache: "hit", compiled: 0 });
    // The same source in another window or with other flags is another pattern.
    expect(cacheFile(dir, { ...edited, window: "line" })).not.toBe(cacheFile(dir, edited));
    expect(cacheFile(dir, { ...edited, flags: "" })).not.toBe(cacheFile(dir, edited));
    expect(compileAll([{ ...edited, window: "line" }], dir).compiled).toBe(1);
  });

  it("finds an edited set's unchanged patterns in the last sets' files, another project's set between them", () => {
    dir = mkdtempSync(join(tmpdir(), "ttsr-cache-"));
    const first = compileAll(SPECS, dir);
    const edited = [...SPECS.slice(0, 6), { source: "TODO", flags: "i", window: "accumulated" as const }];
    const result = compileAll(edited, dir);
    expect([result.cache, result.compiled]).toEqual(["miss", 1]);
    expect(result.results.slice(0, 6)).toEqual(first.results.slice(0, 6));
    expect(result.results).toEqual(edited.map((s) => compileAll([s]).results[0]));
    // Another project's rules ran last (its set is the newest): the older sets' files still answer.
    const elsewhere = [{ source: "elsewhere\\b", flags: "", window: "line" as const }];
    compileAll(elsewhere, dir);
    const again = compileAll([...SPECS.slice(0, 5), { source: "FIXME", flags: "", window: "accumulated" }], dir);
    expect([again.cache, again.compiled]).toEqual(["miss", 1]);
    // A malformed entry in a set's file is skipped, not trusted: that pattern alone is compiled.
    const newest = setFile(dir, elsewhere);
    const whole = JSON.parse(readFileSync(newest, "utf8"));
    whole.results.push({ ok: true, pattern: { spec: SPECS[1], mode: 7 } });
    writeFileSync(newest, JSON.stringify(whole));
    for (const s of [SPECS, edited, [...SPECS.slice(0, 5), { source: "FIXME", flags: "", window: "accumulated" }]])
      rmSync(setFile(dir, s as PatternSpec[]));
    const malformed = compileAll([SPECS[1]!, elsewhere[0]!], dir);
    expect([malformed.cache, malformed.compiled]).toEqual(["miss", 1]);
    expect(malformed.results[0]).toEqual(first.results[1]);
  });

  it("ignores and rewrites a corrupt or foreign cache file", () => {
    dir = mkdtempSync(join(tmpdir(), "ttsr-cache-"));
    const fresh = compileAll(SPECS).results;
    for (const junk of [
      "{not json",
      '{"format":4,"results":[]}',
      JSON.stringify({ format: 999, results: [] }),
      "null",
    ]) {
      const own = mkdtempSync(join(dir, "junk-"));
      const set = setFile(own, SPECS);
      compileAll(SPECS, own);
      writeFileSync(set, junk);
      // Nothing else holds the patterns: all compiled again (each then written to its own file), nothing lost.
      const result = compileAll(SPECS, own);
      expect([result.cache, result.compiled]).toEqual(["miss", SPECS.length]);
      expect(result.results).toEqual(fresh);
      expect(compileAll(SPECS, own).cache).toBe("hit");
      // A corrupt pattern file is compiled again too.
      writeFileSync(cacheFile(own, SPECS[1]!), junk.replace("results", "result"));
      writeFileSync(set, junk);
      expect(compileAll(SPECS, own)).toMatchObject({ cache: "miss", compiled: 1 });
    }
    const set = setFile(dir, SPECS);
    compileAll(SPECS, dir);
    writeFileSync(set, "{}");
    compileAll(SPECS, dir);
    // An entry for another pattern (edited by hand, or a collision) is not trusted, a refusal's no more than a
    // compiled pattern's.
    for (const [k, spec] of [SPECS[0]!, SPECS[6]!].entries()) {
      const data = JSON.parse(readFileSync(cacheFile(dir, spec), "utf8"));
      // (a plain string's entry holds its spec alone)
      (data.result.pattern?.spec ?? data.result.spec).source = "something else";
      writeFileSync(cacheFile(dir, spec), JSON.stringify(data));
      const whole = JSON.parse(readFileSync(set, "utf8"));
      whole.results[k === 0 ? 0 : 6] = data.result;
      writeFileSync(set, JSON.stringify(whole));
      expect(compileAll(SPECS, dir).compiled).toBe(1);
    }
  });

  it("keeps the 8 newest rule sets' files, and the files of patterns compiled beside a set", () => {
    dir = mkdtempSync(join(tmpdir(), "ttsr-cache-"));
    const sets = Array.from({ length: 11 }, (_, i) => [SPECS[0]!, { ...SPECS[0]!, source: `rule${i}` }]);
    for (const set of sets) compileAll(set, dir);
    const folder = dirname(cacheFile(dir, SPECS[0]!));
    const names = readdirSync(folder);
    expect(names.filter((n) => n.startsWith("set-"))).toHaveLength(8);
    expect(names.filter((n) => !n.startsWith("set-"))).toHaveLength(10);
    // An older set is put together again from the newer sets' files and its patterns' own, nothing compiled.
    expect(compileAll(sets[1]!, dir)).toMatchObject({ cache: "hit", compiled: 0 });
  });

  it("compiles without a cache when the directory cannot be written", () => {
    dir = mkdtempSync(join(tmpdir(), "ttsr-cache-"));
    const blocked = join(dir, "file");
    writeFileSync(blocked, "a file, not a directory");
    const result = compileAll(SPECS, join(blocked, "cache"));
    expect([result.cache, result.compiled]).toEqual(["miss", SPECS.length]);
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
