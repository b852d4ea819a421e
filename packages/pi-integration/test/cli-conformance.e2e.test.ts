import { execFile, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";

/**
 * The four pi-rails bins behave alike where a script relies on them (@pi-rails/agent-core/kit's CLI module): the
 * --help layout, exit codes (0 ok, 1 refused or found, 2 usage), --json errors on stdout, and a closed pipe.
 */
const EXTENSIONS = join(import.meta.dirname, "..", "..", "..", "extensions");
const run = promisify(execFile);

interface Bin {
  name: string;
  path: string;
  /** Arguments that make this bin refuse (or find), with --json. */
  refused: string[];
}
const BINS: Bin[] = [
  { name: "ttsr", path: "pi-ttsr/bin/ttsr.mjs", refused: ["test", "console.log(1)", "--rule", "RULE", "--json"] },
  { name: "rulebook", path: "rulebook/bin/rulebook.mjs", refused: ["show", "no-such-rule", "--json"] },
  { name: "pi-steer", path: "steering-bridge/bin/pi-steer.mjs", refused: ["status", "--json"] },
  {
    name: "cache-ttl",
    path: "cache-ttl-view/bin/cache-ttl.mjs",
    refused: ["report", "no-such-session.jsonl", "--json"],
  },
];

const root = mkdtempSync(join(tmpdir(), "cli-conformance-"));
const home = join(root, "home");
const cwd = join(root, "project");
mkdirSync(join(home, "agent"), { recursive: true });
mkdirSync(join(cwd, "rules"), { recursive: true });
const rule = join(cwd, "rules", "no-console.md");
writeFileSync(rule, '---\ncondition: "console\\\\.log\\\\("\n---\nUse the logger.\n');
const env = { ...process.env, HOME: home, PI_CODING_AGENT_DIR: "~/agent", INIT_CWD: "", npm_lifecycle_event: "" };
afterAll(() => rmSync(root, { recursive: true, force: true }));

async function bin(b: Bin, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [join(EXTENSIONS, b.path), ...args], { cwd, env });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

describe.each(BINS)("$name", (b) => {
  it("--help: the shared layout on stdout, exit 0", async () => {
    const help = await bin(b, ["--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout.startsWith(`${b.name}: `)).toBe(true);
    expect(help.stdout).toMatch(/\n\nUsage:\n {2}\S/);
    expect(help.stdout).toMatch(/\n\nOptions:\n(.*\n)* {2}--json +.*\n {2}-h, --help +this help\n/);
    expect(help.stdout).toMatch(/\nExit codes: 0 ok, 1 [^\n]+, 2 usage, 3 internal error\.\n$/);
  });

  it("a bad option: exit 2, one line naming it on stderr, and a JSON error on stdout with --json", async () => {
    const bad = await bin(b, ["--no-such-option", "--json"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(new RegExp(`^${b.name}: .*--no-such-option`));
    expect(bad.stderr).not.toMatch(/\n\s+at /);
    expect(JSON.parse(bad.stdout)).toMatchObject({ error: { kind: "usage", message: expect.any(String) } });
  });

  it("refused or found: exit 1, and --json output is JSON", async () => {
    const refused = await bin(
      b,
      b.refused.map((a) => (a === "RULE" ? rule : a)),
    );
    expect(refused.code).toBe(1);
    expect(() => JSON.parse(refused.stdout)).not.toThrow();
    expect(refused.stderr).not.toMatch(/\n\s+at /);
  });

  it("a closed pipe (EPIPE) ends the output quietly with the command's own exit code", () => {
    const errFile = join(root, `${b.name}.err`);
    // The reader (`true`) is gone before the bin writes: every write meets EPIPE.
    const shell = spawnSync(
      "bash",
      [
        "-c",
        `{ sleep 0.2; exec "$0" "$1" --help 2>"$2"; } | true; echo "\${PIPESTATUS[0]}"`,
        process.execPath,
        join(EXTENSIONS, b.path),
        errFile,
      ],
      { cwd, env, encoding: "utf8" },
    );
    expect(shell.stdout.trim()).toBe("0");
    expect(readFileSync(errFile, "utf8")).toBe("");
  });
});
