import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const run = promisify(execFile);
const repoRoot = join(import.meta.dirname, "..", "..", "..");

let project: string;
let env: NodeJS.ProcessEnv;
beforeAll(() => {
  const root = mkdtempSync(join(tmpdir(), "pi-rails-root-cli-"));
  project = join(root, "project");
  mkdirSync(join(project, ".pi", "rules"), { recursive: true });
  writeFileSync(join(project, ".pi", "rules", "no-legacy.md"), '---\ncondition: "legacyFetch\\\\("\n---\nNo.\n');
  writeFileSync(
    join(project, "session.jsonl"),
    [
      { type: "session", version: 3, id: "root-cli", timestamp: "2026-11-23T10:00:00.000Z", cwd: project },
      {
        type: "message",
        id: "u1",
        parentId: null,
        timestamp: "2026-11-23T10:00:01.000Z",
        message: { role: "user", content: [{ type: "text", text: "hello" }], timestamp: 1795428001000 },
      },
    ]
      .map((entry) => JSON.stringify(entry))
      .join("\n"),
  );
  env = { ...process.env, HOME: root, PI_CODING_AGENT_DIR: join(root, "agent") };
});
afterAll(() => rmSync(join(project, ".."), { recursive: true, force: true }));

/** `pnpm <script> ...` of the checkout's root package.json, typed in the user's project (as the READMEs show). */
async function rootScript(args: string[]) {
  return run("pnpm", ["--silent", "-C", repoRoot, ...args], { cwd: project, env });
}

// In a checkout the CLIs are root scripts; pnpm runs them in the repository root, so each bin must work in the
// directory the user typed the command in.
describe("the checkout's CLI scripts work where they are typed", () => {
  it("pnpm ttsr lists the project's rules", async () => {
    const { stdout } = await rootScript(["ttsr", "list", "--json"]);
    const rules = (JSON.parse(stdout) as { rules: { name: string; file: string }[] }).rules;
    expect(rules.find((rule) => rule.name === "no-legacy")?.file).toBe(join(project, ".pi", "rules", "no-legacy.md"));
  });

  it("pnpm rulebook lists the project's rules", async () => {
    const { stdout } = await rootScript(["rulebook", "list", "--json"]);
    expect(stdout).toContain(join(project, ".pi", "rules", "no-legacy.md"));
  });

  it("pnpm cache-ttl report reads a session file named relative to the project", async () => {
    const { stdout } = await rootScript(["cache-ttl", "report", "session.jsonl", "--json"]);
    expect(JSON.parse(stdout)).toHaveProperty("requests");
  });

  it("pnpm pi-steer looks for live sessions (none here) without a usage error", async () => {
    const { stdout } = await rootScript(["pi-steer", "sessions", "--json"]);
    expect(JSON.parse(stdout)).toEqual([]);
  });
});
