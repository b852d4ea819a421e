import { spawn } from "node:child_process";
import { appendFileSync, existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import {
  type CliHome,
  closeAfterEach,
  type ModelServer,
  prepareCliHome,
  type RecordedRequest,
  resolvePiCli,
  runPi,
  startModelServer,
} from "@pi-rails/testkit";
import { afterEach, describe, expect, it } from "vitest";
import { conversation } from "./helpers.ts";
import { PACKAGE_DIR, runSteer, waitFor } from "./steer-cli.ts";

const keep = closeAfterEach(afterEach);
let server: ModelServer | undefined;
let home: CliHome | undefined;

/** The live pi's pid, from its steering registry file. */
function piPid(h: CliHome): number {
  const dir = join(h.agentDir, "steering");
  const name = readdirSync(dir).find((n) => n.endsWith(".json"))!;
  return (JSON.parse(readFileSync(join(dir, name), "utf8")) as { pid: number }).pid;
}

/** The session files under `dir` (pi keeps one folder per cwd). */
function sessionFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: "utf8" }).filter((name) => name.endsWith(".jsonl"));
}

/** How often `text` was delivered in a request: occurrences after the run's own prompt (not the replayed history). */
function deliveredAfterPrompt(request: RecordedRequest, prompt: string, text: string): number {
  const turns = conversation(request.messages);
  const at = turns.findLastIndex((m) => m.role === "user" && m.text === prompt);
  return at === -1 ? 0 : turns.slice(at + 1).filter((m) => m.text.includes(text)).length;
}

// About 60 s unless the run is stopped (it is, within seconds): the item must still be pending when pi is stopped,
// also when a loaded machine takes long to start pi-steer.
const slow = { text: "s".repeat(1200), chunkSize: 1, delayMs: 50 };

describe("accepted means on disk; exactly once across processes (real pi CLI)", () => {
  for (const signal of ["SIGKILL", "SIGINT"] as const) {
    it(`an item accepted during the first answer, just before ${signal} on pi -p, is delivered by --continue; a retry of its id is a duplicate`, async () => {
      // pi 1.6 writes a new session's file when the first prompt is sent: the session is on disk while the first
      // answer streams; the item is accepted then, and pi is stopped.
      server = keep(await startModelServer({ script: [slow, { text: "second run" }, slow] }));
      home = keep(prepareCliHome({ server }));
      const first = runPi(["-e", PACKAGE_DIR, "-p", "first"], { home, timeoutMs: 60_000 });
      await server.waitForRequests(1, 30_000);
      const accepted = await runSteer(
        ["inject", `DURABLE-${signal}`, "--mode", "finish_step", "--id", `job-${signal}`, "--json"],
        home,
      );
      expect(accepted.code, accepted.stderr).toBe(0);
      expect(JSON.parse(accepted.stdout)).toEqual({ id: `job-${signal}` });
      process.kill(piPid(home), signal);
      const killed = await first;
      expect(killed.code === 0 && killed.signal === null).toBe(false);

      expect(sessionFiles(join(home.agentDir, "sessions"))).toHaveLength(1);

      const second = await runPi(["-e", PACKAGE_DIR, "-p", "--continue", "second"], { home, timeoutMs: 60_000 });
      expect(second.code, second.stderr).toBe(0);
      expect(server.requests).toHaveLength(2);
      expect(deliveredAfterPrompt(server.requests[1]!, "second", `DURABLE-${signal}`)).toBe(1);
      // The session was saved, so no other session took the item as an orphan.
      expect(second.stderr).not.toMatch(/accepted by a pi that ended before its session was saved/);

      if (signal !== "SIGKILL") return;
      // The same id, retried against the next process of the session: recognised, not delivered again.
      const third = runPi(["-e", PACKAGE_DIR, "-p", "--continue", "third"], { home, timeoutMs: 60_000 });
      await server.waitForRequests(3, 30_000);
      const retried = await runSteer(
        ["inject", `DURABLE-${signal}`, "--mode", "finish_step", "--id", `job-${signal}`, "--json"],
        home,
      );
      expect(retried.code, retried.stderr).toBe(0);
      expect(JSON.parse(retried.stdout)).toEqual({ id: `job-${signal}`, duplicate: true });
      process.kill(piPid(home), "SIGKILL");
      await third;
      expect(server.requests).toHaveLength(3);
      expect(deliveredAfterPrompt(server.requests[2]!, "third", `DURABLE-${signal}`)).toBe(0);
    }, 120_000);
  }

  it("a journal whose last line a crash cut short: the next pi cuts it off (said once, naming the file) and its settle is not glued onto it", async () => {
    server = keep(await startModelServer({ script: [slow, { text: "second run" }, { text: "third run" }] }));
    home = keep(prepareCliHome({ server }));
    const first = runPi(["-e", PACKAGE_DIR, "-p", "first"], { home, timeoutMs: 60_000 });
    await server.waitForRequests(1, 30_000);
    const accepted = await runSteer(["inject", "TORN-TAIL-ITEM", "--mode", "finish_step", "--id", "torn-job"], home);
    expect(accepted.code, accepted.stderr).toBe(0);
    process.kill(piPid(home), "SIGKILL");
    await first;
    // What a crash in the middle of a write leaves: a record without its line end.
    const steering = join(home.agentDir, "steering");
    const journal = join(steering, readdirSync(steering).find((n) => n.endsWith(".journal"))!);
    appendFileSync(journal, '{"t":"settle","id":"another-job","sta');

    const second = await runPi(["-e", PACKAGE_DIR, "-p", "--continue", "second"], { home, timeoutMs: 60_000 });
    expect(second.code, second.stderr).toBe(0);
    expect(deliveredAfterPrompt(server.requests[1]!, "second", "TORN-TAIL-ITEM")).toBe(1);
    const said = second.stderr.split(`steering journal ${journal}: its last record was cut short by a crash`);
    expect(said).toHaveLength(2);
    expect(readFileSync(journal, "utf8").endsWith("\n")).toBe(true);

    // Its settle was written whole, so the next process of the session does not deliver it again.
    const third = await runPi(["-e", PACKAGE_DIR, "-p", "--continue", "third"], { home, timeoutMs: 60_000 });
    expect(third.code, third.stderr).toBe(0);
    expect(deliveredAfterPrompt(server.requests[2]!, "third", "TORN-TAIL-ITEM")).toBe(0);
    expect(third.stderr).not.toContain("cut short");
  }, 120_000);

  for (const signal of ["SIGKILL", "SIGINT"] as const) {
    it(`an item accepted before a new session's first prompt survives ${signal}: the next pi in the cwd delivers it once`, async () => {
      // pi 1.6 writes a new session's file with its first prompt: a pi that was started (here in RPC mode) and is
      // stopped before anyone prompted it leaves no session to --continue.
      server = keep(await startModelServer({ script: [{ text: "next session" }, { text: "one more" }] }));
      home = keep(prepareCliHome({ server }));
      const idle = spawn(process.execPath, [resolvePiCli(), "--mode", "rpc", "-e", PACKAGE_DIR], {
        cwd: home.cwd,
        env: home.env,
        stdio: ["pipe", "ignore", "ignore"],
      });
      const exited = new Promise((resolve) => idle.once("exit", resolve));
      try {
        const steering = join(home.agentDir, "steering");
        await waitFor(
          () => existsSync(steering) && readdirSync(steering).some((n) => n.endsWith(".json")),
          "the idle pi's steering socket",
        );
        const args = ["inject", "ORPHANED-ITEM", "--mode", "finish_step", "--id", "orphan-job", "--json"];
        const accepted = await runSteer(args, home);
        expect(accepted.code, accepted.stderr).toBe(0);
        process.kill(piPid(home), signal);
        await exited;
      } finally {
        idle.kill("SIGKILL");
      }
      expect(existsSync(join(home.agentDir, "sessions")) ? sessionFiles(join(home.agentDir, "sessions")) : []).toEqual(
        [],
      );

      // A new session in the same cwd adopts the orphaned item and delivers it with its first request.
      const second = await runPi(["-e", PACKAGE_DIR, "-p", "second"], { home, timeoutMs: 60_000 });
      expect(second.code, second.stderr).toBe(0);
      expect(deliveredAfterPrompt(server.requests[0]!, "second", "ORPHANED-ITEM")).toBe(1);
      expect(second.stderr).toMatch(/1 steering item\(s\) accepted by a pi that ended before its session was saved/);
      // Exactly once: the next new session finds nothing left to adopt.
      const third = await runPi(["-e", PACKAGE_DIR, "-p", "third"], { home, timeoutMs: 60_000 });
      expect(third.code, third.stderr).toBe(0);
      expect(JSON.stringify(server.requests[1]!.messages)).not.toContain("ORPHANED-ITEM");
    }, 120_000);
  }

  it("two concurrent --continue runs of one session: the carried item is delivered by one of them only", async () => {
    // Still streaming when run b has started and finished, with room for a slow start of b on a loaded machine.
    const runA = { text: "a".repeat(150), chunkSize: 1, delayMs: 100 };
    server = keep(await startModelServer({ script: [{ text: "first run" }, runA, { text: "run b" }] }));
    home = keep(prepareCliHome({ server }));
    const fixture = join(PACKAGE_DIR, "test", "fixtures", "late-inject.ts");
    const first = await runPi(["-e", PACKAGE_DIR, "-e", fixture, "-p", "first"], { home });
    expect(first.code, first.stderr).toBe(0);
    const runningA = runPi(["-e", PACKAGE_DIR, "-p", "--continue", "run-a"], { home, timeoutMs: 60_000 });
    await server.waitForRequests(2, 30_000);
    const b = await runPi(["-e", PACKAGE_DIR, "-p", "--continue", "run-b"], { home, timeoutMs: 60_000 });
    const a = await runningA;
    expect(a.code, a.stderr).toBe(0);
    expect(b.code, b.stderr).toBe(0);
    expect(server.requests).toHaveLength(3);
    // Each request counts only what came after its own run's prompt (the other run's may be in its history).
    const deliveries = server.requests.slice(1).map((r) => {
      const own = conversation(r.messages).findLast((m) => m.text === "run-a" || m.text === "run-b")!.text;
      return deliveredAfterPrompt(r, own, "CARRIED-ACROSS-RESTART");
    });
    expect(deliveries.reduce((x, y) => x + y, 0)).toBe(1);
    // The second process says why it does not steer.
    expect(b.stderr).toMatch(/steering is off in this process: session \S+ is steered by pi process \d+/);
  }, 120_000);
});
