import { spawn } from "node:child_process";
import { afterEach, describe, expect, it } from "vitest";
import { type BridgeHarness, openBridgeSession } from "./helpers.ts";
import { PI_STEER, runSteer } from "./steer-cli.ts";

let harness: BridgeHarness | undefined;
afterEach(async () => {
  await harness?.dispose();
  harness = undefined;
});

/**
 * Run prompts until `done` holds, at most `max`: each delivers 10 items queued before it in one seam, so the watcher
 * gets a burst of events written at once (10 acks, then the seam passes), which it reads in one go.
 */
async function promptUntil(h: BridgeHarness, done: () => boolean, max = 40): Promise<void> {
  for (let i = 0; i < max && !done(); i++) {
    for (let k = 0; k < 10; k++) h.api().inject({ content: `burst ${i}.${k}`, kind: "message", mode: "finish_step" });
    await h.test.prompt(`turn ${i}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const where = (h: BridgeHarness) => ({
  cwd: h.test.cwd,
  env: { ...process.env, HOME: h.test.home, PI_CODING_AGENT_DIR: h.test.agentDir },
});

describe("pi-steer watch (real pi-steer processes, live session)", () => {
  it("`pi-steer watch | head -c 0`: exits 0 once it writes to the closed pipe, quietly, like the other commands", async () => {
    harness = await openBridgeSession({ script: Array.from({ length: 40 }, () => ({ text: "ok" })) });
    const { cwd, env } = where(harness);
    const watch = spawn(process.execPath, [PI_STEER, "watch"], { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
    let stderr = "";
    watch.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
    });
    let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
    const exited = new Promise<void>((resolve) =>
      watch.once("close", (code, signal) => {
        exit = { code, signal };
        resolve();
      }),
    );
    watch.stdout.destroy(); // the reader is gone before anything is written: `| head -c 0`
    try {
      await promptUntil(harness, () => exit !== undefined);
      expect(exit, "pi-steer watch still runs after its reader is gone").toEqual({ code: 0, signal: null });
      await exited;
      expect(stderr).toBe("");
    } finally {
      watch.kill("SIGKILL");
    }
  }, 120_000);

  it("`watch --json --count 3` prints exactly 3 lines, also when more events arrive in the same read", async () => {
    harness = await openBridgeSession({ script: Array.from({ length: 40 }, () => ({ text: "ok" })) });
    const h = harness;
    const { cwd, env } = where(h);
    const watch = spawn(process.execPath, [PI_STEER, "watch", "--json", "--count", "3"], { cwd, env });
    let stdout = "";
    let stderr = "";
    watch.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
    });
    watch.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
    });
    let code: number | null | undefined;
    const exited = new Promise<void>((resolve) =>
      watch.once("close", (c) => {
        code = c;
        resolve();
      }),
    );
    try {
      // Each burst is written while pi-steer is stopped, so it reads all of it at once when it goes on.
      for (let i = 0; i < 40 && code === undefined; i++) {
        watch.kill("SIGSTOP");
        await promptUntil(h, () => false, 1);
        watch.kill("SIGCONT");
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      await exited;
    } finally {
      watch.kill("SIGKILL");
    }
    expect(code, stderr).toBe(0);
    const lines = stdout.trimEnd().split("\n");
    expect(lines).toHaveLength(3);
    for (const line of lines) expect(JSON.parse(line)).toHaveProperty("type");
  }, 120_000);

  it("`pi-steer send` (a natural guess) is `inject`; an unknown command lists the commands", async () => {
    harness = await openBridgeSession({ script: [{ text: "ok" }] });
    const sent = await runSteer(["send", "SENT-BY-ALIAS", "--mode", "finish_step", "--json"], where(harness));
    expect(sent.code, sent.stderr).toBe(0);
    expect(JSON.parse(sent.stdout)).toEqual({ id: expect.stringMatching(/^st_/) });
    await harness.test.prompt("go");
    expect(JSON.stringify(harness.server.requests[0]!.messages)).toContain("SENT-BY-ALIAS");

    const unknown = await runSteer(["post", "hello"], where(harness));
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain(
      'pi-steer: unknown command "post" (commands: sessions, inject, remind, note, status, cancel, pending, revoke, watch)',
    );
  }, 60_000);
});
