import { describe, expect, it } from "vitest";
import { checkGlob } from "./check.ts";

describe("checkGlob: globs the glob library would read literally are reported, once, and kept", () => {
  it.each([
    ["src\\", /glob "src\\\\" ends in a lone backslash, so it only matches that literal text/],
    ["src\\**\\", /ends in a lone backslash/],
    ["+(a|b", /glob "\+\(a\|b" has an unclosed "\+\(", so it only matches that literal text/],
    ["src/*.@(ts|js", /has an unclosed "@\("/],
    ["!", /glob "!" is a bare "!": it excludes nothing and matches nothing/],
    ["src/[a.ts", /has an unclosed "\["/],
    ["src/{a,b", /has an unclosed "\{"/],
  ])("%s", (glob, message) => {
    const checked = checkGlob(glob);
    expect(checked.glob).toBe(glob);
    expect(checked.issue?.kind).toBe("glob-unmatchable");
    expect(checked.issue?.message).toMatch(message);
  });

  it.each(["src/**/*.ts", "*.+(ts|js)", "src/+(a|b)/x", "!(a|b)", "!src/**", "a\\*b", "src/(legacy)/*.ts"])(
    "%s is a working glob: no issue",
    (glob) => {
      expect(checkGlob(glob)).toEqual({ glob });
    },
  );

  it("backslash paths are still read as folders (a backslash inside, not at the end)", () => {
    expect(checkGlob("src\\api\\users.ts")).toEqual(expect.objectContaining({ glob: "src/api/users.ts" }));
    // the README's example: a backslash next to ** is a separator, not an escape
    expect(checkGlob("src\\**\\*.ts")).toEqual({
      glob: "src/**/*.ts",
      issue: { kind: "glob-normalized", message: 'glob "src\\\\**\\\\*.ts" uses backslashes; read as "src/**/*.ts"' },
    });
  });
});
