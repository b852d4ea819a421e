import { execFile, execFileSync, spawn } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

/** Wall time is not what these tests measure: a loaded machine (2 cores, many runs) may take this long. */
const E2E_TIMEOUT_MS = 180_000;

const BIN = join(dirname(fileURLToPath(import.meta.url)), "..", "bin", "ttsr.mjs");
const run = promisify(execFile);

async function ttsr(args: string[], cwd: string, env: NodeJS.ProcessEnv) {
  try {
    const { stdout, stderr } = await run(process.execPath, [BIN, ...args], { cwd, env });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

describe("bin/ttsr.mjs (built dist)", { timeout: E2E_TIMEOUT_MS }, () => {
  it("exits 0 / 1 / 2 for no match / match / usage error", async () => {
    const root = mkdtempSync(join(tmpdir(), "ttsr-bin-"));
    const cwd = join(root, "p");
    mkdirSync(join(cwd, ".pi", "rules"), { recursive: true });
    writeFileSync(join(cwd, ".pi", "rules", "no-eval.md"), '---\ncondition: "\\\\beval\\\\("\n---\nNo eval.\n');
    const env = { ...process.env, HOME: root, PI_CODING_AGENT_DIR: join(root, "agent") };
    expect((await ttsr(["test", "JSON.parse(x)"], cwd, env)).code).toBe(0);
    const hit = await ttsr(["test", "eval(x)"], cwd, env);
    expect(hit.code).toBe(1);
    expect(hit.stdout).toContain("MATCH no-eval");
    expect((await ttsr(["nonsense"], cwd, env)).code).toBe(2);
  });

  it("exits quietly when its reader closes the pipe (`ttsr list | head -1`)", async () => {
    const root = mkdtempSync(join(tmpdir(), "ttsr-bin-"));
    const cwd = join(root, "p");
    mkdirSync(join(cwd, ".pi", "rules"), { recursive: true });
    // Enough output to fill the pipe's buffer long after `head` has gone.
    for (let i = 0; i < 300; i++)
      writeFileSync(join(cwd, ".pi", "rules", `r${i}.md`), `---\ncondition: "foo${i}\\\\("\n---\nNo foo.\n`);
    const env = { ...process.env, HOME: root, PI_CODING_AGENT_DIR: join(root, "agent") };
    const child = spawn("sh", ["-c", `"${process.execPath}" "${BIN}" list | head -1`], { cwd, env });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => {
      stdout += d.toString();
    });
    child.stderr.on("data", (d: Buffer) => {
      stderr += d.toString();
    });
    const code = await new Promise<number | null>((done) => child.on("close", done));
    expect(code).toBe(0);
    expect(stdout).toMatch(/^\d+ rules\n$/);
    expect(stderr).toBe("");
  });

  it("list names where a rule came from and how it is matched in words; scan counts the files with findings", async () => {
    const root = mkdtempSync(join(tmpdir(), "ttsr-bin-"));
    const cwd = join(root, "p");
    mkdirSync(join(cwd, ".pi", "rules"), { recursive: true });
    mkdirSync(join(cwd, "src"), { recursive: true });
    writeFileSync(join(cwd, ".pi", "rules", "no-eval.md"), '---\ncondition: "\\\\beval\\\\("\n---\nNo eval.\n');
    writeFileSync(join(cwd, ".pi", "rules", "old.md"), '---\ntrigger: "legacyFetch\\\\("\n---\nNo.\n');
    writeFileSync(join(cwd, "src", "a.js"), "eval(a);\nlegacyFetch(b);\n");
    writeFileSync(join(cwd, "src", "b.js"), "JSON.parse(c);\n");
    const env = { ...process.env, HOME: root, PI_CODING_AGENT_DIR: join(root, "agent") };
    const list = await ttsr(["list"], cwd, env);
    expect(list.stdout).not.toMatch(/lifecycle|proposal|\[.*native\]/);
    expect(list.stdout).toContain(`no-eval  (pi rule)  ${join(cwd, ".pi", "rules", "no-eval.md")}`);
    expect(list.stdout).toContain("\n  condition: /\\beval\\(/  (linear-time prefilter, regex confirms)\n");
    expect(list.stdout).toContain("\n  trigger: /legacyFetch\\(/  (exact, linear time)\n");
    expect(list.stdout).toMatch(/no-ts-ignore {2}\(shipped with pi-ttsr\)/);
    const scan = await ttsr(["scan", "src"], cwd, env);
    expect(scan.code).toBe(1);
    expect(scan.stdout).toMatch(/^2 findings in 1 file \(2 files scanned, \d+ rules\)$/m);
  });

  it("the README's first screen: its rule fires on prose and tool calls, its first setting keeps prose running", async () => {
    const readme = readFileSync(join(dirname(BIN), "..", "README.md"), "utf8");
    const example = readme.slice(readme.indexOf("## A rule\n"));
    const path = /`([^`]+\.md)` in your project/.exec(example)![1]!;
    const rule = /```markdown\n([\s\S]*?)```/.exec(example)![1]!;
    const setting = readme.slice(readme.indexOf("## The setting to change first\n"));
    const settings = /```json\n([\s\S]*?)```/.exec(setting)![1]!;
    const root = mkdtempSync(join(tmpdir(), "ttsr-readme-"));
    const cwd = join(root, "p");
    mkdirSync(join(cwd, dirname(path)), { recursive: true });
    writeFileSync(join(cwd, path), rule);
    const env = { ...process.env, HOME: root, PI_CODING_AGENT_DIR: join(root, "agent") };
    const name = path.replace(/^.*\//, "").replace(/\.md$/, "");
    const prose = ["test", 'Just add console.log("here") and rerun.'];
    const tool = ["test", "console.log(1);", "--tool", "write", "--path", "src/a.ts"];
    expect(await ttsr(prose, cwd, env)).toMatchObject({
      code: 1,
      stdout: expect.stringContaining(`MATCH ${name} (interrupt)`),
    });
    expect(await ttsr(tool, cwd, env)).toMatchObject({
      code: 1,
      stdout: expect.stringContaining(`MATCH ${name} (interrupt`),
    });
    writeFileSync(join(cwd, ".pi", "settings.json"), settings);
    expect(await ttsr(prose, cwd, env)).toMatchObject({
      code: 1,
      stdout: expect.stringContaining(`MATCH ${name} (reminder)`),
    });
    expect(await ttsr(tool, cwd, env)).toMatchObject({
      code: 1,
      stdout: expect.stringContaining(`MATCH ${name} (interrupt`),
    });
  });

  it("refuses a FIFO as --file (exit 2) instead of waiting on it, and a missing --cwd", async () => {
    const root = mkdtempSync(join(tmpdir(), "ttsr-bin-"));
    const cwd = join(root, "p");
    mkdirSync(cwd, { recursive: true });
    execFileSync("mkfifo", [join(cwd, "fifo")]);
    const env = { ...process.env, HOME: root, PI_CODING_AGENT_DIR: join(root, "agent") };
    const fifo = await ttsr(["test", "--file", "fifo"], cwd, env);
    expect(fifo.code).toBe(2);
    expect(fifo.stderr).toMatch(/--file fifo: it is a FIFO/);
    const missing = await ttsr(["list", "--cwd", "no/such/dir"], cwd, env);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/--cwd no\/such\/dir: no such directory/);
  });

  it("runs every command of the README's CLI section (match: 1, no match: 0, never a usage error)", async () => {
    const readme = readFileSync(join(dirname(BIN), "..", "README.md"), "utf8");
    const section = readme.slice(readme.indexOf("## CLI\n"));
    const block = /```bash\n([\s\S]*?)```/.exec(section)![1]!;
    const commands = block
      .split("\n")
      .filter((line) => /^\S/.test(line))
      .map((line) =>
        line
          .replace(/\s{2,}#.*$/, "")
          .replace(/\bpnpm (-s )?ttsr\b/g, "ttsr")
          .replace(/ \[--json\]/, ""),
      );
    expect(commands.length).toBeGreaterThanOrEqual(5);
    const root = mkdtempSync(join(tmpdir(), "ttsr-readme-"));
    const cwd = join(root, "p");
    const bin = join(root, "bin");
    mkdirSync(join(cwd, ".pi", "rules"), { recursive: true });
    mkdirSync(join(cwd, "src"), { recursive: true });
    mkdirSync(bin);
    writeFileSync(join(cwd, ".pi", "rules", "no-eval.md"), '---\ncondition: "\\\\beval\\\\("\n---\nNo eval.\n');
    writeFileSync(join(cwd, "out.txt"), "Just eval(input).\n");
    writeFileSync(join(cwd, "src", "a.ts"), "// @ts-ignore\nexport const a = 1;\n");
    writeFileSync(join(bin, "ttsr"), `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`);
    chmodSync(join(bin, "ttsr"), 0o755);
    const env = {
      ...process.env,
      HOME: root,
      PI_CODING_AGENT_DIR: join(root, "agent"),
      PATH: `${bin}:${process.env["PATH"]}`,
    };
    const codes: Record<string, number> = {};
    for (const command of commands) {
      const result = await run("sh", ["-c", command], { cwd, env }).then(
        () => 0,
        (error: { code: number }) => error.code,
      );
      codes[command] = result;
    }
    expect(codes).toEqual({
      'ttsr test "// @ts-ignore" --path src/a.ts': 1,
      "echo 'git push -f' | ttsr test --tool bash": 1,
      "ttsr test --file src/a.ts": 1,
      "ttsr test --rule .pi/rules/no-eval.md --file out.txt --source text": 1,
      "ttsr list": 0,
      "ttsr scan src --json": 1,
    });
  });

  it("the README's way to run `ttsr test` from a checkout: a match exits 1 without pnpm's ELIFECYCLE line", async () => {
    const repoRoot = join(dirname(BIN), "..", "..", "..");
    const readme = readFileSync(join(dirname(BIN), "..", "README.md"), "utf8");
    const block = /```bash\n([\s\S]*?)```/.exec(readme.slice(readme.indexOf("## CLI\n")))![1]!;
    const documented = block.split("\n")[0]!.replace(/\s{2,}#.*$/, "");
    expect(documented).toMatch(/^pnpm (-s )?ttsr test /);
    const root = mkdtempSync(join(tmpdir(), "ttsr-pnpm-"));
    const cwd = join(root, "p");
    mkdirSync(join(cwd, "src"), { recursive: true });
    writeFileSync(join(cwd, "src", "a.ts"), "export const a = 1;\n");
    const env = { ...process.env, HOME: root, PI_CODING_AGENT_DIR: join(root, "agent") };
    // the same command, pointed at the checkout (-C) from the user's project, through the real pnpm
    const command = documented.replace(
      /^pnpm (-s )?ttsr /,
      (_m, silent = "") => `pnpm ${silent}-C "${repoRoot}" ttsr `,
    );
    const result = await run("sh", ["-c", command], { cwd, env }).then(
      ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
      (error: { code: number; stdout: string; stderr: string }) => error,
    );
    expect(result.code).toBe(1);
    expect(result.stdout).toContain("MATCH no-ts-ignore");
    expect(`${result.stdout}${result.stderr}`).not.toContain("ELIFECYCLE");
  });

  it("`pnpm ttsr` from the checkout works on the project where it was typed, not on the repository root", async () => {
    const repoRoot = join(dirname(BIN), "..", "..", "..");
    const root = mkdtempSync(join(tmpdir(), "ttsr-pnpm-"));
    const cwd = join(root, "p");
    mkdirSync(join(cwd, ".pi", "rules"), { recursive: true });
    writeFileSync(join(cwd, ".pi", "rules", "no-legacy.md"), '---\ncondition: "legacyFetch\\\\("\n---\nNo.\n');
    const env = { ...process.env, HOME: root, PI_CODING_AGENT_DIR: join(root, "agent") };
    const { stdout } = await run("pnpm", ["--silent", "-C", repoRoot, "ttsr", "list", "--json"], { cwd, env });
    const listed = JSON.parse(stdout) as { rules: { name: string; file: string }[] };
    const rule = listed.rules.find((entry) => entry.name === "no-legacy");
    expect(rule?.file).toBe(join(cwd, ".pi", "rules", "no-legacy.md"));
  });
});
