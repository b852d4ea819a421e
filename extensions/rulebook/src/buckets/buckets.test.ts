import { describe, expect, it } from "vitest";
import type { Rule } from "../rule.ts";
import { bucketRules } from "./buckets.ts";

const rule = (name: string, extra: Partial<Rule> = {}): Rule => ({
  name,
  path: `/r/${name}.md`,
  content: name,
  source: { provider: "native", priority: 100, scope: "project", path: `/r/${name}.md` },
  meta: {},
  ...extra,
});

describe("bucketRules", () => {
  const rules = [
    rule("ttsr-and-always", { condition: ["x"], alwaysApply: true }),
    rule("always-and-described", { alwaysApply: true, description: "d" }),
    rule("described", { description: "d", globs: ["a/**"] }),
    rule("glob-only", { globs: ["*.ts"] }),
    rule("manual", { manual: true, description: "d" }),
    rule("bare"),
    rule("false", { alwaysApply: false }),
  ];

  it("alwaysApply first (whatever else the rule has), then condition, description, globs", () => {
    const b = bucketRules([...rules, rule("streamed", { condition: ["y"] })], { ttsrActive: true });
    const names = (xs: Rule[]) => xs.map((r) => r.name);
    expect(names(b.ttsr)).toEqual(["streamed"]);
    expect(names(b.alwaysApply)).toEqual(["ttsr-and-always", "always-and-described"]);
    expect(names(b.rulebook)).toEqual(["described"]);
    expect(names(b.glob)).toEqual(["glob-only"]);
    expect(b.neither.map((n) => n.rule.name)).toEqual(["manual", "bare", "false"]);
    expect(names(b.readable)).toEqual(["ttsr-and-always", "always-and-described", "described", "glob-only"]);
    // a rulebook rule with globs is both listed and attached
    expect(names(b.attach)).toEqual(["described", "glob-only"]);
    expect(b.warnings).toEqual([]);
  });

  it("alwaysApply with globs is always in the prompt, not on demand", () => {
    const b = bucketRules([rule("scala", { alwaysApply: true, globs: ["**/*.scala"] })], { ttsrActive: true });
    expect(b.alwaysApply.map((r) => r.name)).toEqual(["scala"]);
    expect(b.attach).toEqual([]);
  });

  it("without pi-ttsr, stream rules stay in the ttsr bucket but become readable, with a warning", () => {
    const b = bucketRules([...rules, rule("streamed", { condition: ["y"] })], { ttsrActive: false });
    expect(b.readable.map((r) => r.name)).toContain("streamed");
    expect(b.warnings).toEqual([
      expect.stringMatching(/"ttsr-and-always" has a stream condition but pi-ttsr is not loaded/),
      expect.stringMatching(/"streamed" has a stream condition but pi-ttsr is not loaded/),
    ]);
  });

  it("with glob attach off, glob-only rules are reported as not delivered", () => {
    const b = bucketRules(rules, { ttsrActive: true, globAttach: false });
    expect(b.glob).toEqual([]);
    expect(b.neither.find((n) => n.rule.name === "glob-only")?.reason).toMatch(/globAttach is off/);
  });
});
