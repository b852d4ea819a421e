import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createSandboxDirs, removeDir, type SandboxDirs, writeFiles } from "./temp-dirs.ts";

let dirs: SandboxDirs | undefined;
afterEach(() => {
  if (dirs) removeDir(dirs.root);
  dirs = undefined;
});

describe("writeFiles", () => {
  it("writes below the base dir, a folder named ..foo included (it is inside)", () => {
    dirs = createSandboxDirs();
    writeFiles(dirs.cwd, { "a/b.txt": "b", "..foo/c.txt": "c" });
    expect(readFileSync(join(dirs.cwd, "a/b.txt"), "utf8")).toBe("b");
    expect(readFileSync(join(dirs.cwd, "..foo/c.txt"), "utf8")).toBe("c");
  });

  it.each(["../escape.txt", "a/../../escape.txt", ".", "/tmp/absolute.txt"])(
    "refuses %s, naming the path and the folder, and writes nothing",
    (name) => {
      dirs = createSandboxDirs();
      const cwd = dirs.cwd;
      expect(() => writeFiles(cwd, { [name]: "x" })).toThrow(`"${name}" must be a relative path inside ${cwd}`);
      expect(existsSync(join(dirs.root, "escape.txt"))).toBe(false);
    },
  );
});
