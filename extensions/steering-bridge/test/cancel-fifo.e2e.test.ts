import { execFileSync } from "node:child_process";
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
import { PACKAGE_DIR, runSteer } from "./steer-cli.ts";

const keep = closeAfterEach(afterEach);
let server: ModelServer | undefined;
let home: CliHome | undefined;

describe("cancelled means the work stopped", () => {
  it("a cancelled read of a FIFO (no writer) releases what it blocked: pi -p finishes and exits", async () => {
    server = keep(
      await startModelServer({
        script: [{ toolCalls: [{ id: "r1", name: "read", arguments: { path: "pipe" } }] }, { text: "READ-CANCELLED" }],
      }),
    );
    home = keep(prepareCliHome({ server }));
    execFileSync("mkfifo", [join(home.cwd, "pipe")]);
    const pi = runPi(["-e", PACKAGE_DIR, "-p", "read the pipe"], { home, timeoutMs: 30_000 });
    let status: { toolCallsInFlight: unknown[] } = { toolCallsInFlight: [] };
    for (const deadline = Date.now() + 20_000; status.toolCallsInFlight.length === 0 && Date.now() < deadline; ) {
      const result = await runSteer(["status", "--json"], home);
      if (result.code === 0) status = JSON.parse(result.stdout);
      else await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(status.toolCallsInFlight).toMatchObject([{ callId: "r1", tool: "read" }]);
    const cancelled = await runSteer(["cancel", "r1", "--json"], home);
    expect(JSON.parse(cancelled.stdout)).toMatchObject({ status: "cancelled", tool: "read" });
    const result = await pi;
    expect(result.timedOut).toBe(false);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain("READ-CANCELLED");
    // Without --reason the model is told where the cancel came from, not "cancelled by the host" twice.
    const told = JSON.stringify(server!.requests[1]!.messages);
    expect(told).toContain("Tool call r1 (read) was cancelled by the host: stopped with pi-steer cancel");
    expect(told).not.toContain("cancelled by the host: cancelled by the host");
  }, 60_000);
});
