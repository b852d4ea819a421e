import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type BridgeHarness, openBridgeSession } from "./helpers.ts";
import { PACKAGE_DIR, PI_STEER, runSteer } from "./steer-cli.ts";

let harness: BridgeHarness | undefined;
afterEach(async () => {
  await harness?.dispose();
  harness = undefined;
});

/** The commands of the README's "Example" section: its first shell block, one command a line. */
function firstScreenExample(readme: string): string[] {
  const section = readme.slice(readme.indexOf("\n## Example\n"));
  const block = /```bash\n([\s\S]*?)```/.exec(section)?.[1] ?? "";
  return block.split("\n").filter((line) => line.trim() !== "");
}

/** A command line split the way a shell splits these (words, and double-quoted strings). */
function words(line: string): string[] {
  return [...line.matchAll(/"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2]!);
}

describe("the README's first screen", () => {
  const readme = readFileSync(join(PACKAGE_DIR, "README.md"), "utf8");

  it("holds what it does, install into the user's own pi, an example and the one choice, before any table", () => {
    const firstScreen = readme.slice(0, readme.indexOf("\n## What it does\n"));
    expect(firstScreen).toContain("pi install npm:@pi-rails/steering-bridge");
    expect(firstScreen).toContain("--mode");
    expect(firstScreen).not.toMatch(/^\|/m);
    expect(firstScreen.split("\n").length).toBeLessThan(45);
    expect(readme.indexOf("## Modes and seams")).toBeGreaterThan(readme.indexOf("## pi-steer"));
  });

  it("its pi-steer example works as shown against a live session (real pi-steer processes)", async () => {
    const example = firstScreenExample(readme);
    expect(example.map((line) => words(line).slice(0, 2).join(" "))).toEqual([
      "pi-steer sessions",
      "pi-steer inject",
      "pi-steer watch",
    ]);
    harness = await openBridgeSession({ script: Array.from({ length: 20 }, () => ({ text: "ok" })) });
    const h = harness;
    const where = { cwd: h.test.cwd, env: { ...process.env, HOME: h.test.home, PI_CODING_AGENT_DIR: h.test.agentDir } };
    const [sessions, inject, watch] = example.map((line) => words(line).slice(1));

    const listed = await runSteer(sessions!, where);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toContain(h.api().sessionId);
    const queued = await runSteer(inject!, where);
    expect(queued.code, queued.stderr).toBe(0);
    expect(queued.stdout).toMatch(/^queued st_\w+\n$/);

    const watching = spawn(process.execPath, [PI_STEER, ...watch!], where);
    let stdout = "";
    watching.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
    });
    let code: number | null | undefined;
    const exited = new Promise<void>((resolve) =>
      watching.once("close", (c) => {
        code = c;
        resolve();
      }),
    );
    try {
      for (let i = 0; i < 20 && code === undefined; i++) {
        await h.test.prompt(`task ${i}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      await exited;
    } finally {
      watching.kill("SIGKILL");
    }
    expect(code).toBe(0);
    expect(stdout.trimEnd().split("\n")).toHaveLength(3);
    expect(JSON.stringify(h.server.requests[0]!.messages)).toContain("don't touch the migrations");
  }, 120_000);
});
