import { describe, expect, it } from "vitest";
import { EXIT, formatHelp, invocationCwd, parseCliArgs, RefusedError, runCommand, UsageError } from "./cli.ts";

function buffers(json: boolean) {
  const out: string[] = [];
  const err: string[] = [];
  return {
    io: { stdout: (t: string) => out.push(t), stderr: (t: string) => err.push(t), json, usage: "USAGE" },
    out: () => out.join(""),
    err: () => err.join(""),
  };
}

describe("runCommand", () => {
  it("maps usage, refused and unexpected errors to 2, 1 and 3, with one line and no stack", async () => {
    const cases = [
      [new UsageError("bad --x"), EXIT.usage, "usage"],
      [new RefusedError("no such rule"), EXIT.refused, "refused"],
      [new TypeError("boom"), EXIT.internal, "internal"],
    ] as const;
    for (const [error, code, kind] of cases) {
      const b = buffers(true);
      expect(await runCommand("bin", b.io, async () => Promise.reject(error))).toBe(code);
      expect(b.err()).toMatch(new RegExp(`^bin: ${error.message}\\n`));
      expect(b.err()).not.toMatch(/at .*\.ts:\d+/);
      expect(b.err().includes("USAGE")).toBe(kind === "usage");
      expect(JSON.parse(b.out())).toEqual({ error: { kind, message: error.message } });
    }
  });

  it("returns the command's own code, and writes no JSON error without --json", async () => {
    const b = buffers(false);
    expect(await runCommand("bin", b.io, async () => 1)).toBe(1);
    expect(await runCommand("bin", b.io, async () => Promise.reject(new Error("x")))).toBe(3);
    expect(b.out()).toBe("");
  });
});

describe("parseCliArgs", () => {
  it("takes the common options and turns a bad option into a UsageError", () => {
    expect(parseCliArgs(["a", "--json", "-h"], {}).values).toMatchObject({ json: true, help: true });
    expect(() => parseCliArgs(["--nope"], {})).toThrow(UsageError);
  });
});

describe("invocationCwd", () => {
  it("takes INIT_CWD only when pnpm ran this bin's script", () => {
    expect(invocationCwd("ttsr", { npm_lifecycle_event: "ttsr", INIT_CWD: "/u" }, "/repo")).toBe("/u");
    expect(invocationCwd("ttsr", { npm_lifecycle_event: "test", INIT_CWD: "/u" }, "/repo")).toBe("/repo");
    expect(invocationCwd("ttsr", {}, "/repo")).toBe("/repo");
  });
});

describe("formatHelp", () => {
  it("lays out title, usage, options (with --json and --help), notes and exit codes", () => {
    const text = formatHelp({
      title: "x: does x",
      commands: [["x run", "runs"]],
      options: [["--cwd <dir>", "where"]],
      notes: "More.",
      exit1: "refused",
    });
    expect(text).toBe(
      [
        "x: does x",
        "",
        "Usage:",
        "  x run  runs",
        "",
        "Options:",
        "  --cwd <dir>  where",
        "  --json       machine-readable output (errors too, on stdout)",
        "  -h, --help   this help",
        "",
        "More.",
        "",
        "Exit codes: 0 ok, 1 refused, 2 usage, 3 internal error.",
        "",
      ].join("\n"),
    );
  });
});
