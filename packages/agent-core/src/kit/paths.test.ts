import { posix, win32 } from "node:path";
import { describe, expect, it } from "vitest";
import { isInside, relativeInside } from "./paths.ts";

describe("isInside / relativeInside", () => {
  it("counts the folder itself and anything below it as inside, with the relative path", () => {
    expect(relativeInside("/p", "/p", posix)).toBe("");
    expect(relativeInside("/p", "/p/a/b.md", posix)).toBe("a/b.md");
    expect(isInside("/p", "/p/a", posix)).toBe(true);
    expect(isInside("/p/", "/p/a/../b", posix)).toBe(true);
  });

  it("counts a parent, a sibling and a sibling with the same prefix as outside", () => {
    expect(relativeInside("/p/a", "/p", posix)).toBeUndefined();
    expect(isInside("/p/a", "/p/b", posix)).toBe(false);
    expect(isInside("/p", "/pq/x", posix)).toBe(false);
    expect(isInside("/p", "/p/../q", posix)).toBe(false);
  });

  it("counts folders whose names start with .. as inside", () => {
    expect(relativeInside("/p", "/p/..foo/x", posix)).toBe("..foo/x");
    expect(isInside("/p", "/p/...", posix)).toBe(true);
    expect(relativeInside("C:\\p", "C:\\p\\..foo\\x", win32)).toBe("..foo\\x");
  });

  it("on Windows, counts another drive as outside and the same drive's subfolders as inside", () => {
    expect(win32.relative("C:\\p", "D:\\p\\x")).toBe("D:\\p\\x");
    expect(isInside("C:\\p", "D:\\p\\x", win32)).toBe(false);
    expect(isInside("C:\\p", "C:\\q", win32)).toBe(false);
    expect(isInside("C:\\p", "C:\\p\\q", win32)).toBe(true);
    expect(isInside("C:\\p", "c:\\P\\q", win32)).toBe(true);
  });

  it("uses the running platform's path rules by default", () => {
    expect(isInside(process.cwd(), `${process.cwd()}/x`)).toBe(true);
    expect(isInside(`${process.cwd()}/x`, process.cwd())).toBe(false);
  });
});
