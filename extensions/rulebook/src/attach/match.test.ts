import { describe, expect, it } from "vitest";
import type { Rule } from "../rule.ts";
import { compileGlobMatchers, matchRules, toCwdRelative } from "./match.ts";

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
