import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type CliHome,
  installStockPi,
  type ModelServer,
  prepareCliHome,
  runPi,
  type StockPi,
  startModelServer,
} from "@pi-rails/testkit";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { PACKAGE_DIR, runSteer } from "./steer-cli.ts";

// The published pi 1.6 as a user has it (installed from the npm registry by the testkit), without the pi-rails
// patch: no seams, no tool-call cancel.
describe("stock pi (published 1.6, no patch)", () => {
  let stock: StockPi;
  let server: ModelServer | undefined;
  let home: CliHome | undefined;

  beforeAll(() => {
    stock = installStockPi();
  }, 300_000);
  afterAll(() => stock?.dispose());
  afterEach(async () => {
    await server?.close();
    home?.dispose();
  });

  it("says once what is degraded, hands items to pi's own follow-up queue, and refuses cancel", async () => {
    // The tool runs until the test has tried to cancel it (a fixed sleep could end first on a loaded machine, and pi
    // with it): it waits for a flag file, at most 60 s.
    const flag = join(mkdtempSync(join(tmpdir(), "stock-nap-")), "done");
    const nap = `for i in $(seq 600); do [ -e ${flag} ] && break; sleep 0.1; done`;
    server = await startModelServer({
      script: [
        { toolCalls: [{ id: "nap", name: "bash", arguments: { command: nap } }] },
        { text: "nap over" },
        { text: "saw the follow-up" },
      ],
    });
    home = prepareCliHome({ server });
    const pi = runPi(["-e", PACKAGE_DIR, "-p", "take a nap"], { home, piCli: stock.cli, timeoutMs: 90_000 });

    let status: { toolCallsInFlight: { callId: string }[]; features: { seams: boolean; cancel: boolean } } | undefined;
    const deadline = Date.now() + 30_000;
    while (Date.now() < deadline) {
      const run = await runSteer(["status", "--json"], home);
      if (run.code === 0) {
        status = JSON.parse(run.stdout);
        if (status!.toolCallsInFlight.length > 0) break;
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(status?.features).toEqual({ seams: false, cancel: false });
    expect(status?.toolCallsInFlight).toMatchObject([{ callId: "nap", tool: "bash" }]);

    const injected = await runSteer(["inject", "FOLLOW-UP-ON-STOCK", "--mode", "finish_step", "--json"], home);
    expect(injected.code, injected.stderr).toBe(0);
    expect(JSON.parse(injected.stdout)).toMatchObject({ handedToPi: true });
    const cancel = await runSteer(["cancel", "nap"], home);
    expect(cancel.code).toBe(1);
    expect(cancel.stderr).toMatch(/cancel_tool_call/);
    writeFileSync(flag, "");

    const result = await pi;
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr.split("\n").filter((l) => l.includes("steering-bridge:") && /stock pi/.test(l))).toHaveLength(
      1,
    );
    const body = JSON.stringify(server.requests.map((r) => r.messages));
    expect(body).toContain("FOLLOW-UP-ON-STOCK");
  }, 120_000);
});
