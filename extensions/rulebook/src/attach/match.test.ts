import { describe, expect, it } from "vitest";
import type { Rule } from "../rule.ts";
import { attachmentFor, compileGlobMatchers, matchRules, toCwdRelative } from "./match.ts";

const rule = (name: string, globs: string[]): Rule => ({
  name,
  path: `/r/${name}.md`,
  content: name,
  globs,
  source: { provider: "cursor", priority: 50, scope: "project", path: `/r/${name}.md` },
  meta: {},
});

describe("glob matching", () => {
  const matchers = compileGlobMatchers([
    rule("ts", ["*.ts"]),
    rule("api", ["src/api/**", "!src/api/generated/**"]),
    rule("dot", ["**/.env*"]),
    rule("nested", ["packages/web/**/*.tsx"]),
  ]);
  const names = (p: string) => matchRules(matchers, p).map((r) => r.name);

  it("a glob without / matches the file name in any folder", () => {
    expect(names("deep/dir/x.ts")).toEqual(["ts"]);
  });
  it("negations exclude", () => {
    expect(names("src/api/users.js")).toEqual(["api"]);
    expect(names("src/api/generated/x.js")).toEqual([]);
  });
  it("dot files match", () => {
    expect(names("config/.env.local")).toEqual(["dot"]);
  });
  it("rebased nested globs", () => {
    expect(names("packages/web/src/App.tsx")).toEqual(["nested"]);
    expect(names("packages/api/src/App.tsx")).toEqual([]);
  });
  it("paths are taken relative to cwd; outside cwd never matches", () => {
    expect(toCwdRelative("/p", "/p/src/a.ts")).toBe("src/a.ts");
    expect(toCwdRelative("/p", "@src/a.ts")).toBe("src/a.ts");
    expect(toCwdRelative("/p", "../q/a.ts")).toBeUndefined();
    expect(toCwdRelative("/p", "/p")).toBeUndefined();
  });
});

describe("what a tool result brings along", () => {
  const matchers = compileGlobMatchers([
    rule("any", ["**/*.ts"]),
    rule("exact", ["src/a.ts"]),
    rule("other", ["*.md"]),
  ]);

  it("the matching rules not yet seen, most specific first; nothing when none is left", () => {
    const both = attachmentFor(matchers, "src/a.ts", new Set(), 10_000, "read_rule");
    expect(both?.attached.map((r) => r.name)).toEqual(["exact", "any"]);
    expect(both?.text).toMatch(/^\n\n<rule name="exact" reason="auto-attached: src\/a\.ts matches its globs">/);
    expect(attachmentFor(matchers, "src/a.ts", new Set(["exact"]), 10_000, "read_rule")?.attached).toHaveLength(1);
    expect(attachmentFor(matchers, "src/a.ts", new Set(["exact", "any"]), 10_000, "read_rule")).toBeUndefined();
  });

  it("what does not fit the budget is named for the tool instead", () => {
    const tight = attachmentFor(matchers, "src/a.ts", new Set(), 84, "read_rule");
    expect(tight?.attached.map((r) => r.name)).toEqual(["exact"]);
    expect(tight?.text).toContain('<rules-not-attached path="src/a.ts" count="1">');
    expect(tight?.text).toContain("any. Read the ones that concern your task with read_rule.");
  });
});
