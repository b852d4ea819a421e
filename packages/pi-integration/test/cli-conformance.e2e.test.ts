import { execFile, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";

/**
 * The four pi-rails bins, run as users run them (node on each package's bin/, over its built dist/), behave alike
 * where a script relies on them (@pi-rails/agent-core/kit's runCli): the --help layout, exit codes (0 ok, 1 refused
 * or found, 2 usage), --json output one document a line on success and on error, a closed pipe, and no terminal
 * control character from user-controlled input reaching the output raw.
 */
const EXTENSIONS = join(import.meta.dirname, "..", "..", "..", "extensions");
const run = promisify(execFile);

const root = mkdtempSync(join(tmpdir(), "cli-conformance-"));
const home = join(root, "home");
const cwd = join(root, "project");
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** User-controlled text with an OSC title change, BEL, a screen clear and a C1 CSI; `pwned` is what stays visible. */
const HOSTILE = "evil\u001b]0;pwned\u0007\u001b[2J\u009b31m";
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
const RAW_CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/;

mkdirSync(join(home, "agent"), { recursive: true });
mkdirSync(join(cwd, "rules"), { recursive: true });
mkdirSync(join(cwd, ".pi", "rules"), { recursive: true });
const RULE = join(cwd, "rules", "no-console.md");
writeFileSync(RULE, '---\ncondition: "console\\\\.log\\\\("\n---\nUse the logger.\n');
// A rule file whose name carries the escapes: every bin that lists rules prints its path.
const HOSTILE_RULE = join(cwd, ".pi", "rules", `${HOSTILE}.md`);
writeFileSync(HOSTILE_RULE, '---\ncondition: "eval\\\\("\nalwaysApply: true\n---\nNo eval.\n');

/** A pi session file with one request of `model`. */
function sessionFile(name: string, model: string): string {
  const at = "2026-01-01T00:00:00.000Z";
  const entries = [
    { type: "session", version: 3, id: "s", timestamp: at, cwd },
    { type: "message", id: "u", parentId: null, timestamp: at, message: { role: "user", content: "hi", timestamp: 0 } },
    {
      type: "message",
      id: "a",
      parentId: "u",
      timestamp: at,
      message: {
        role: "assistant",
        content: [{ type: "text", text: "ok" }],
        provider: "local",
        model,
        api: "openai-completions",
        usage: { input: 10, output: 1, cacheRead: 0, cacheWrite: 0 },
        timestamp: 1,
      },
    },
  ];
  const file = join(cwd, name);
  writeFileSync(file, entries.map((e) => JSON.stringify(e)).join("\n"));
  return file;
}
const SESSION = sessionFile("session.jsonl", "m1");
const HOSTILE_SESSION = sessionFile("hostile.jsonl", HOSTILE);

const env = { ...process.env, HOME: home, PI_CODING_AGENT_DIR: "~/agent", INIT_CWD: "", npm_lifecycle_event: "" };

interface Bin {
  name: string;
  path: string;
  /** Succeeds (exit 0). */
  ok: string[];
  /** Well-formed options the command refuses as a usage error (exit 2). */
  usage: string[];
  /** Refused or found (exit 1); `error`: the --json output is an error document (else the command's result). */
  refused: { args: string[]; error: boolean };
  /** Prints text from user-controlled input (a file name, a session's content, an argument) carrying HOSTILE. */
  hostile: string[];
}

const BINS: Bin[] = [
  {
    name: "ttsr",
    path: "pi-ttsr/bin/ttsr.mjs",
    ok: ["test", "log.info(1)", "--rule", RULE],
    usage: ["test", "x", "--source", "nope"],
    refused: { args: ["test", "console.log(1)", "--rule", RULE], error: false },
    hostile: ["list", "--rule", HOSTILE_RULE],
  },
  {
    name: "rulebook",
    path: "rulebook/bin/rulebook.mjs",
    ok: ["list"],
    usage: ["show"],
    refused: { args: ["show", "no-such-rule"], error: true },
    hostile: ["list"],
  },
  {
    name: "pi-steer",
    path: "steering-bridge/bin/pi-steer.mjs",
    ok: ["sessions"],
    usage: ["inject", "hello"],
    refused: { args: ["status"], error: true },
    hostile: ["status", "--session", HOSTILE],
  },
  {
    name: "cache-ttl",
    path: "cache-ttl-view/bin/cache-ttl.mjs",
    ok: ["report", SESSION],
    usage: ["report", SESSION, "--ttl", "5s"],
    refused: { args: ["report", "no-such-session.jsonl"], error: true },
    hostile: ["report", HOSTILE_SESSION],
  },
];

async function bin(b: Bin, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [join(EXTENSIONS, b.path), ...args], { cwd, env });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

/** --json output: one JSON document a line, each line parsed. */
function jsonLines(stdout: string): unknown[] {
  expect(stdout).toMatch(/\n$/);
  return stdout
    .trimEnd()
    .split("\n")
    .map((line) => JSON.parse(line));
}

/** The error line every bin writes: `<bin>: <message>`, no stack. */
function expectErrorLine(b: Bin, stderr: string): void {
  expect(stderr).toMatch(new RegExp(`^${b.name}: \\S`));
  expect(stderr).not.toMatch(/\n\s+at /);
}

/** The JSON error document every bin prints on stdout with --json. */
function expectJsonError(stdout: string, kind?: string): void {
  const docs = jsonLines(stdout);
  expect(docs).toHaveLength(1);
  const { error } = docs[0] as { error: { kind: unknown; message: unknown } };
  expect(error).toMatchObject({ kind: kind ?? expect.any(String), message: expect.any(String) });
}

describe.each(BINS)("$name", (b) => {
  it("--help: the shared layout on stdout, exit 0", async () => {
    const help = await bin(b, ["--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout.startsWith(`${b.name}: `)).toBe(true);
    expect(help.stdout).toMatch(/\n\nUsage:\n {2}\S/);
    expect(help.stdout).toMatch(
      /\n\nOptions:\n(.*\n)* {2}--json +.*\n {2}-h, --help +this help, as plain text \(--json does not change it\)\n/,
    );
    // --help ignores --json, the same in all four: the same text.
    expect((await bin(b, ["--help", "--json"])).stdout).toBe(help.stdout);
    expect(help.stdout).toMatch(/\nExit codes: 0 ok, 1 [^\n]+, 2 usage, 3 internal error\.\n$/);
    expect(help.stderr).toBe("");
  });

  it("success: exit 0; with --json one JSON document a line", async () => {
    const text = await bin(b, b.ok);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).not.toBe("");
    const json = await bin(b, [...b.ok, "--json"]);
    expect(json.code, json.stderr).toBe(0);
    expect(jsonLines(json.stdout).length).toBeGreaterThan(0);
  });

  it("usage errors (a bad option, a bad value): exit 2, one line naming it, and a JSON error with --json", async () => {
    const bad = await bin(b, ["--no-such-option", "--json"]);
    expect(bad.code).toBe(2);
    expectErrorLine(b, bad.stderr);
    expect(bad.stderr).toMatch(/^.*--no-such-option/);
    expectJsonError(bad.stdout, "usage");
    const usage = await bin(b, [...b.usage, "--json"]);
    expect(usage.code).toBe(2);
    expectErrorLine(b, usage.stderr);
    expectJsonError(usage.stdout, "usage");
  });

  it("refused or found: exit 1; with --json the result, or the error in the same shape as a usage error", async () => {
    const refused = await bin(b, [...b.refused.args, "--json"]);
    expect(refused.code).toBe(1);
    if (b.refused.error) {
      expectErrorLine(b, refused.stderr);
      expectJsonError(refused.stdout);
    } else {
      expect(jsonLines(refused.stdout)).toHaveLength(1);
      expect(refused.stderr).not.toMatch(/\n\s+at /);
    }
  });

  it("a closed stdout (EPIPE): exits at once, 0, nothing on stderr", async () => {
    for (const args of [["--help"], b.ok, [...b.ok, "--json"]]) {
      const child = spawn(process.execPath, [join(EXTENSIONS, b.path), ...args], { cwd, env });
      child.stdout.destroy(); // the reader is gone before anything is written: `| head -c 0`
      let stderr = "";
      child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
        stderr += chunk;
      });
      const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
      const code = await new Promise<number | null>((resolve) => child.once("close", resolve));
      clearTimeout(timer);
      expect({ args, code, stderr }).toEqual({ args, code: 0, stderr: "" });
    }
  });

  it("control characters in user-controlled input never reach the output raw (stripped; escaped in JSON)", async () => {
    const text = await bin(b, b.hostile);
    expect(`${text.stdout}${text.stderr}`).toContain("pwned");
    expect(text.stdout).not.toMatch(RAW_CONTROL);
    expect(text.stderr).not.toMatch(RAW_CONTROL);
    const json = await bin(b, [...b.hostile, "--json"]);
    expect(json.stdout).not.toMatch(RAW_CONTROL);
    expect(json.stderr).not.toMatch(RAW_CONTROL);
    // JSON keeps the value: a reader gets the escapes back as data.
    expect(JSON.stringify(jsonLines(json.stdout))).toContain("\\u001b]0;pwned\\u0007");
  });
});
