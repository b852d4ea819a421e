import { describe, expect, it } from "vitest";
import type { Rule } from "../rule.ts";
import { resolveRule } from "./resolve-rule.ts";

const rule = (name: string): Rule => ({
  name,
  path: `/r/${name}.md`,
  content: `${name} body`,
  source: { provider: "native", priority: 100, scope: "project", path: `/r/${name}.md` },
  meta: {},
});

describe("resolveRule", () => {
  const readable = [rule("a"), rule("dir/b")];
  it("exact names, with or without rule://", () => {
    expect(resolveRule("a", readable)).toMatchObject({ ok: true, rule: { name: "a" } });
    expect(resolveRule("rule://dir/b", readable)).toMatchObject({ ok: true, rule: { name: "dir/b" } });
  });
  it("no case folding, no paths; the error lists what exists", () => {
    expect(resolveRule("A", readable)).toEqual({ ok: false, error: 'Unknown rule "A". Available rules: a, dir/b' });
    expect(resolveRule("/r/a.md", readable).ok).toBe(false);
    expect(resolveRule("x", [])).toEqual({ ok: false, error: 'Unknown rule "x". Available rules: (none)' });
  });
});
