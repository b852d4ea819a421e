import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { testRule } from "../testing/rule-fixture.ts";
import { RuleRegistry } from "./registry.ts";

const RULES = [
  testRule("a", { conditions: [{ source: "foo\\s+bar", flags: "" }] }),
  testRule("b", { conditions: [{ source: "\\bbaz\\b", flags: "i" }] }),
  testRule("c", { conditions: [{ source: "plain\\(", flags: "" }] }),
];

describe("a registry whose regex rules start deferred", () => {
  const dirs: string[] = [];
  afterEach(() => {
    vi.useRealTimers();
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  const cacheFiles = (dir: string) => readdirSync(join(dir, readdirSync(dir)[0]!));

  it("compiles them when idle, one per timer callback, caching each and then the whole set", () => {
    vi.useFakeTimers();
    const dir = mkdtempSync(join(tmpdir(), "ttsr-registry-deferred-"));
    dirs.push(dir);
    const registry = new RuleRegistry(RULES, { cacheDir: dir, defer: true });
    const set = registry.patternSet;
    expect(set.patterns.map((p) => (p?.deferred ? "deferred" : p?.mode))).toEqual(["deferred", "deferred", "dfa"]);
    // the deferred rules already fire, exactly
    expect(set.stream().push("x foo  bar BAZ.")).toEqual([
      { pattern: 0, end: 10 },
      { pattern: 1, end: 14 },
    ]);
    registry.compileDeferredLater();
    registry.compileDeferredLater(); // a second call while it runs adds nothing
    vi.advanceTimersByTime(999);
    expect(set.hasDeferred).toBe(true);
    vi.advanceTimersByTime(1);
    expect(set.patterns.filter((p) => p?.deferred)).toHaveLength(1);
    vi.advanceTimersByTime(1); // the next one at once (setTimeout 0: 1 ms)
    expect(set.hasDeferred).toBe(false);
    expect(vi.getTimerCount()).toBe(0);
    // each compiled pattern has its own file, then the set has one: the next start reads it whole
    expect(cacheFiles(dir).filter((f) => f.startsWith("set-"))).toHaveLength(1);
    const next = new RuleRegistry(RULES, { cacheDir: dir, defer: true });
    expect(next.compileCache).toBe("hit");
    expect(next.patternSet.hasDeferred).toBe(false);
    expect(next.patternSet.stream().push("x foo  bar BAZ.")).toEqual([
      { pattern: 0, end: 10 },
      { pattern: 1, end: 14 },
    ]);
  });

  it("after an edit, writes the changed set's file when idle, not while the session starts", () => {
    vi.useFakeTimers();
    const dir = mkdtempSync(join(tmpdir(), "ttsr-registry-deferred-"));
    dirs.push(dir);
    const plain = [testRule("p", { conditions: [{ source: "first\\(", flags: "" }] })];
    new RuleRegistry(plain, { cacheDir: dir, defer: true });
    const sets = () => cacheFiles(dir).filter((f) => f.startsWith("set-"));
    // a first start without deferred patterns writes its set at once (nothing to find it from otherwise)
    expect(sets()).toHaveLength(1);
    const edited = [testRule("p", { conditions: [{ source: "second\\(", flags: "" }] })];
    const registry = new RuleRegistry(edited, { cacheDir: dir, defer: true });
    expect(registry.compileCache).toBe("miss");
    expect(sets()).toHaveLength(1);
    registry.compileDeferredLater();
    vi.advanceTimersByTime(1000);
    expect(sets()).toHaveLength(2);
    expect(vi.getTimerCount()).toBe(0);
    expect(new RuleRegistry(edited, { cacheDir: dir, defer: true }).compileCache).toBe("hit");
  });
});
