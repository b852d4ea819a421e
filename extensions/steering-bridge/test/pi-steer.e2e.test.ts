import { existsSync } from "node:fs";
import { join } from "node:path";
import {
  type CliHome,
  closeAfterEach,
  type ModelServer,
  prepareCliHome,
  runPi,
  startModelServer,
} from "@pi-rails/testkit";
import { afterEach, describe, expect, it } from "vitest";
import { conversation } from "./helpers.ts";
import { alive, callsInFlight, PACKAGE_DIR, runSteer, SLEEPING_BASH, sleepingBashPid, waitFor } from "./steer-cli.ts";

const keep = closeAfterEach(afterEach);
let server: ModelServer | undefined;
let home: CliHome | undefined;

describe("pi-steer against a running pi -p (real CLI, loopback model)", () => {
  it("inject --mode interrupt_immediate while the model streams a write: the file is never created, the next request carries the item", async () => {
    server = keep(
      await startModelServer({
        script: [
          {
            toolCalls: [{ id: "w1", name: "write", arguments: { path: "danger.txt", content: "x".repeat(2400) } }],
            chunkSize: 4,
            delayMs: 20,
          },
          { text: "Understood: I did not write danger.txt." },
        ],
      }),
    );
    home = keep(prepareCliHome({ server }));
    const pi = runPi(["-e", PACKAGE_DIR, "-p", "write danger.txt"], { home, timeoutMs: 90_000 });
    await server.waitForRequests(1, 30_000);
    await waitFor(() => server!.requests[0]!.deltasSent > 0, "the write call to stream");
    // About 600 deltas 20 ms apart: a long tail after the point where the item must land.

    // A second client watches seam passes and acks until the session ends (the socket closes); a third injects.
    const watch = runSteer(["watch", "--json"], home, { timeoutMs: 90_000 });
    const injected = await runSteer(
      ["inject", "STOP: do not write danger.txt", "--mode", "interrupt_immediate", "--json"],
      home,
    );
    const streamingWhenInjected = !server.requests[0]!.completed;
    expect(injected.code, injected.stderr).toBe(0);
    const { id } = JSON.parse(injected.stdout) as { id: string };
    expect(id).toMatch(/^st_/);

    const listed = await runSteer(["sessions", "--json"], home);
    expect(listed.code, listed.stderr).toBe(0);
    expect(JSON.parse(listed.stdout)).toMatchObject([{ cwd: home.cwd, pid: expect.any(Number) }]);
    const pending = await runSteer(["pending", "--json"], home);
    expect(JSON.parse(pending.stdout).map((item: { id: string }) => item.id)).toContain(id);

    const result = await pi;
    expect(result.code, result.stderr).toBe(0);
    expect(streamingWhenInjected).toBe(true);
    expect(existsSync(join(home.cwd, "danger.txt"))).toBe(false);
    expect(server.requests).toHaveLength(2);
    const next = conversation(server.requests[1]!.messages);
    expect(next.map((m) => m.role)).toEqual(["user", "assistant", "tool", "user"]);
    expect(next[2]!.text).toContain("was not dispatched: interrupt_immediate");
    expect(next[3]!.text).toBe("STOP: do not write danger.txt");
    expect(result.stdout).toContain("I did not write danger.txt");
    const watched = await watch;
    expect(watched.code, watched.stderr).toBe(0);
    const events = watched.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(events).toContainEqual(
      expect.objectContaining({ type: "ack", id, state: "delivered", seam: "pre_tool_dispatch", iteration: 1 }),
    );
    expect(events).toContainEqual(
      expect.objectContaining({
        type: "checkpoint",
        kind: "pre_tool_dispatch",
        iteration: 1,
        delivered: 1,
        dispatchSkipped: true,
      }),
    );
    expect(events.at(-1)).toMatchObject({ type: "checkpoint", kind: "loop_exit" });
    // The session is gone: its registry file was removed, and pi-steer says so (exit 1, refused).
    const after = await runSteer(["status"], home);
    expect(after.code).toBe(1);
    expect(after.stderr).toMatch(/no live pi session/);
  }, 120_000);

  it("cancel of a running bash sleep 30: the process is gone within a second, the model sees the cancellation, pi finishes", async () => {
    server = keep(
      await startModelServer({
        script: [
          { toolCalls: [{ id: "sleepy", name: "bash", arguments: { command: SLEEPING_BASH } }] },
          { text: "The host cancelled my sleep; finishing normally." },
        ],
      }),
    );
    home = keep(prepareCliHome({ server }));
    const pi = runPi(["-e", PACKAGE_DIR, "-p", "sleep for a while"], { home, timeoutMs: 90_000 });
    const pid = await sleepingBashPid(home.cwd);
    expect(alive(pid)).toBe(true);
    expect(await callsInFlight(home)).toMatchObject([{ callId: "sleepy", tool: "bash" }]);

    const unknown = await runSteer(["cancel", "no-such-call"], home);
    expect(unknown.code).toBe(1);
    expect(unknown.stdout).toContain("not_found");

    const cancelled = await runSteer(["cancel", "sleepy", "--reason", "user clicked stop", "--json"], home);
    const cancelledAt = Date.now();
    expect(cancelled.code, cancelled.stderr).toBe(0);
    expect(JSON.parse(cancelled.stdout)).toMatchObject({ status: "cancelled", callId: "sleepy", tool: "bash" });
    await waitFor(() => !alive(pid), "the sleep to be killed", 1000);
    expect(Date.now() - cancelledAt).toBeLessThan(1000);

    const result = await pi;
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain("finishing normally");
    const toolResult = conversation(server.requests[1]!.messages).find((m) => m.role === "tool");
    expect(toolResult?.text).toContain("Tool call sleepy (bash) was cancelled by the host: user clicked stop");
  }, 120_000);

  it("leftovers survive a real restart: carried into the next pi process, discarded and audited ones settled", async () => {
    server = keep(await startModelServer({ script: [{ text: "first run" }, { text: "second run" }] }));
    home = keep(prepareCliHome({ server }));
    const fixture = join(PACKAGE_DIR, "test", "fixtures", "late-inject.ts");
    const first = await runPi(["-e", PACKAGE_DIR, "-e", fixture, "-p", "first"], { home });
    expect(first.code, first.stderr).toBe(0);
    const second = await runPi(["-e", PACKAGE_DIR, "-p", "--continue", "second"], { home });
    expect(second.code, second.stderr).toBe(0);
    expect(server.requests).toHaveLength(2);
    const body = JSON.stringify(server.requests[1]!.messages);
    expect(body).toContain("CARRIED-ACROSS-RESTART");
    expect(body).not.toContain("DISCARDED-AT-EXIT");
    expect(body).not.toContain("AUDITED-AT-EXIT");
    expect(JSON.stringify(server.requests[0]!.messages)).not.toContain("CARRIED-ACROSS-RESTART");
  }, 120_000);

  it("exit codes: usage errors and refusals", async () => {
    home = keep(prepareCliHome());
    const none = await runSteer(["pending"], home);
    expect(none.code).toBe(1);
    expect(none.stderr).toMatch(/no live pi session with the steering bridge/);
    const noMode = await runSteer(["inject", "hello"], home);
    expect(noMode.code).toBe(2);
    expect(noMode.stderr).toMatch(/inject needs --mode/);
    const unknownFlag = await runSteer(["inject", "hello", "--colour", "red"], home);
    expect(unknownFlag.code).toBe(2);
    const help = await runSteer(["--help"], home);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("pi-steer inject <text> --mode M");
    const sessions = await runSteer(["sessions", "--json"], home);
    expect(sessions.code).toBe(0);
    expect(JSON.parse(sessions.stdout)).toEqual([]);
  });
});
