import { describe, expect, it } from "vitest";
import {
  type CliContext,
  type CliFailure,
  type CliSpec,
  defineCli,
  EXIT,
  formatHelp,
  invocationCwd,
  parseCliArgs,
  RefusedError,
  runCli,
  stripControl,
  UsageError,
} from "./cli.ts";

function buffers() {
  const out: string[] = [];
  const err: string[] = [];
  return {
    io: { stdout: (t: string) => out.push(t), stderr: (t: string) => err.push(t) },
    out: () => out.join(""),
    err: () => err.join(""),
  };
}

const HELP = { title: "bin: does things", commands: [["bin go", "goes"]], exit1: "refused" } as const;

/** A bin whose one command is `run`, with `--name <x>`. */
function spec(
  run: (io: CliContext, name?: string) => Promise<number>,
  failure?: (error: unknown) => CliFailure | undefined,
) {
  return {
    bin: "bin",
    help: HELP,
    options: { name: { type: "string" } },
    run: ({ values }, io) => run(io, values.name),
    ...(failure ? { failure } : {}),
  } satisfies CliSpec<{ name: { type: "string" } }>;
}

describe("runCli", () => {
  it("maps usage, refused and unexpected errors to 2, 1 and 3: one line, no stack, usage only after a usage error", async () => {
    const cases = [
      [new UsageError("bad --x"), EXIT.usage, "usage"],
      [new RefusedError("no such rule"), EXIT.refused, "refused"],
      [new TypeError("boom"), EXIT.internal, "internal"],
    ] as const;
    for (const [error, code, kind] of cases) {
      const b = buffers();
      expect(
        await runCli(
          spec(() => Promise.reject(error)),
          ["--json"],
          b.io,
        ),
      ).toBe(code);
      expect(b.err()).toMatch(new RegExp(`^bin: ${error.message}\\n`));
      expect(b.err()).not.toMatch(/\n\s+at /);
      expect(b.err().includes("Usage:")).toBe(kind === "usage");
      expect(b.out()).toBe(`${JSON.stringify({ error: { kind, message: error.message } })}\n`);
    }
  });

  it("a bad option is a usage error, in JSON with --json (seen before parsing, and not after `--`)", async () => {
    const b = buffers();
    expect(
      await runCli(
        spec(async () => 0),
        ["--nope", "--json"],
        b.io,
      ),
    ).toBe(EXIT.usage);
    expect(JSON.parse(b.out())).toMatchObject({ error: { kind: "usage", message: expect.stringContaining("--nope") } });
    const c = buffers();
    expect(
      await runCli(
        spec(async () => 0),
        ["--nope", "--", "--json"],
        c.io,
      ),
    ).toBe(EXIT.usage);
    expect(c.out()).toBe("");
  });

  it("a bin's own errors: its exit code, kind and extra fields", async () => {
    const b = buffers();
    const failure = (e: unknown) =>
      e instanceof RangeError ? { exit: EXIT.refused, kind: "rpc", details: { code: 7 } } : undefined;
    expect(
      await runCli(
        spec(() => Promise.reject(new RangeError("declined")), failure),
        ["--json"],
        b.io,
      ),
    ).toBe(1);
    expect(JSON.parse(b.out())).toEqual({ error: { kind: "rpc", message: "declined", code: 7 } });
  });

  it("--help prints the help on stdout, exit 0, without running the command", async () => {
    const b = buffers();
    let ran = false;
    const code = await runCli(
      spec(async () => {
        ran = true;
        return 0;
      }),
      ["-h"],
      b.io,
    );
    expect([code, ran, b.out()]).toEqual([0, false, formatHelp(HELP)]);
  });

  it("prints a result as one compact JSON line with --json, else as its text", async () => {
    const show = spec(async (io) => {
      io.result({ a: [1, 2] }, "a: 1, 2");
      io.result({ b: 3 }, "b: 3");
      return 0;
    });
    const json = buffers();
    await runCli(show, ["--json"], json.io);
    expect(json.out()).toBe('{"a":[1,2]}\n{"b":3}\n');
    const text = buffers();
    await runCli(show, [], text.io);
    expect(text.out()).toBe("a: 1, 2\nb: 3\n");
  });

  it("no control character reaches the output raw: stripped from text, escaped in JSON (same value)", async () => {
    const hostile = "x\u001b[2J\u001b]0;title\u0007\u009b31m\u007fy\tz";
    const show = spec(async (io, name) => {
      io.stderr(`warning: ${name}\n`);
      io.result({ name }, `name ${name}`);
      throw new RefusedError(`no rule ${name}`);
    });
    const text = buffers();
    await runCli(show, ["--name", hostile], text.io);
    expect(text.out()).toBe("name x[2J]0;title31my\tz\n");
    expect(text.err()).toBe("warning: x[2J]0;title31my\tz\nbin: no rule x[2J]0;title31my\tz\n");
    const json = buffers();
    await runCli(show, ["--name", hostile, "--json"], json.io);
    expect(stripControl(json.out())).toBe(json.out());
    const [result, error] = json
      .out()
      .trimEnd()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(result).toEqual({ name: hostile });
    expect(error.error.message).toBe(`no rule ${hostile}`);
  });

  it("gives the command the io's cwd, env and stdin, with defaults for what a caller leaves out", async () => {
    let seen: CliContext | undefined;
    const capture = spec(async (io) => {
      seen = io;
      return 0;
    });
    await runCli(capture, [], { ...buffers().io, cwd: "/w", env: { A: "1" }, readStdin: async () => "in" });
    expect([seen?.cwd, seen?.env, await seen?.readStdin()]).toEqual(["/w", { A: "1" }, "in"]);
    await runCli(capture, [], buffers().io);
    expect([seen?.cwd, seen?.env, await seen?.readStdin()]).toEqual([process.cwd(), process.env, undefined]);
  });

  it("defineCli: the usage and run of a bin", async () => {
    const cli = defineCli(spec(async () => 1));
    expect(cli.usage).toBe(formatHelp(HELP));
    expect(await cli.run([], buffers().io)).toBe(1);
  });
});

describe("stripControl", () => {
  it("keeps tab, newline and carriage return", () => {
    expect(stripControl("a\tb\r\nc\u0000\u001b\u009bd")).toBe("a\tb\r\ncd");
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
        "  --json       machine-readable output, one JSON document a line (errors too, on stdout)",
        "  -h, --help   this help, as plain text (--json does not change it)",
        "",
        "More.",
        "",
        "Exit codes: 0 ok, 1 refused, 2 usage, 3 internal error.",
        "",
      ].join("\n"),
    );
  });
});
