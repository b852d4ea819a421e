import { mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type CliHome,
  installStockPi,
  type ModelServer,
  prepareCliHome,
  readSessionFile,
  runPi,
  type StockPi,
  startModelServer,
} from "@pi-rails/testkit";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { conversation } from "./helpers.ts";
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

  it("says once what is degraded, hands items to pi's own steer / follow-up queue, writes audit records, refuses cancel", async () => {
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

    const inject = async (content: string, mode: string) => {
      const run = await runSteer(["inject", content, "--mode", mode, "--json"], home!);
      expect(run.code, run.stderr).toBe(0);
      expect(JSON.parse(run.stdout)).toMatchObject({ handedToPi: true });
    };
    await inject("STEER-ON-STOCK", "interrupt_immediate");
    await inject("FOLLOW-UP-ON-STOCK", "finish_step");
    await inject("AUDIT-ON-STOCK", "audit_only");
    const cancel = await runSteer(["cancel", "nap"], home);
    expect(cancel.code).toBe(1);
    expect(cancel.stderr).toMatch(/cancel_tool_call/);
    writeFileSync(flag, "");

    const result = await pi;
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr.split("\n").filter((l) => l.includes("steering-bridge:") && /stock pi/.test(l))).toHaveLength(
      1,
    );
    // pi's steer queue: after the running tool batch, before the next request; its follow-up queue: once the run
    // would otherwise end, so the model answers it with one more request.
    expect(server.requests).toHaveLength(3);
    const sent = server.requests.map((r) => conversation(r.messages).map((m) => m.text));
    expect(sent[1]!.at(-1)).toBe("STEER-ON-STOCK");
    expect(sent[1]).not.toContain("FOLLOW-UP-ON-STOCK");
    expect(sent[2]!.slice(-2)).toEqual(["nap over", "FOLLOW-UP-ON-STOCK"]);
    // audit_only: a custom entry in the session file, in no request.
    expect(JSON.stringify(server.requests.map((r) => r.messages))).not.toContain("AUDIT-ON-STOCK");
    const sessions = join(home.agentDir, "sessions");
    const files = readdirSync(sessions, { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".jsonl"));
    expect(files).toHaveLength(1);
    const entries = readSessionFile(join(sessions, files[0]!)) as {
      type: string;
      customType?: string;
      data?: unknown;
    }[];
    expect(entries.filter((e) => e.type === "custom" && e.customType === "steering-audit")).toMatchObject([
      { data: { content: "AUDIT-ON-STOCK", mode: "audit_only", seam: "pi_queue" } },
    ]);
  }, 120_000);
});
