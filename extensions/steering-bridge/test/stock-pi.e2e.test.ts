import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { cancelReminderTextFor } from "@pi-rails/agent-core/kit";
import {
  type CliHome,
  installStockPi,
  type ModelServer,
  prepareCliHome,
  readSessionFile,
  runPi,
  type StockPi,
  startModelServer,
  startProviderServer,
  WIRE_FORMATS,
} from "@pi-rails/testkit";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { conversation } from "./helpers.ts";
import { alive, PACKAGE_DIR, runSteer } from "./steer-cli.ts";

// The published pi 1.6 as a user has it (installed from the npm registry by the testkit), without the pi-rails
// patch: no seams; cancel of one running call works as on the patched pi (agent-core's cancellable built-in tools).
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

  it("says once what is degraded, cancels one running bash while its sibling finishes, hands items to pi's own steer / follow-up queue, writes audit records", async () => {
    // Both calls run until the test has cancelled the first (a fixed sleep could end first on a loaded machine, and
    // pi with it): each waits for a flag file, at most 60 s; the sibling then prints its marker.
    const flag = join(mkdtempSync(join(tmpdir(), "stock-nap-")), "done");
    const nap = `echo $$ > ${flag}.pid; for i in $(seq 600); do [ -e ${flag} ] && break; sleep 0.1; done`;
    const sibling = `for i in $(seq 600); do [ -e ${flag} ] && break; sleep 0.1; done; echo SIBLING-DONE`;
    server = await startModelServer({
      script: [
        {
          toolCalls: [
            { id: "nap", name: "bash", arguments: { command: nap } },
            { id: "sibling", name: "bash", arguments: { command: sibling } },
          ],
        },
        { text: "nap over" },
        { text: "saw the steer" },
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
        if (status!.toolCallsInFlight.length === 2) break;
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(status?.features).toEqual({ seams: false, cancel: true });
    expect(status?.toolCallsInFlight).toMatchObject([
      { callId: "nap", tool: "bash" },
      { callId: "sibling", tool: "bash" },
    ]);
    const cancel = await runSteer(["cancel", "nap", "--reason", "user clicked stop", "--json"], home);
    expect(cancel.code, cancel.stderr).toBe(0);
    expect(JSON.parse(cancel.stdout)).toMatchObject({ status: "cancelled", callId: "nap", tool: "bash" });
    // The cancelled shell is gone (pi's own bash kills its process tree on the call's signal); the sibling runs on.
    const napPid = Number(readFileSync(`${flag}.pid`, "utf8").trim());
    await expect.poll(() => alive(napPid), { timeout: 5000, interval: 50 }).toBe(false);
    expect(
      (JSON.parse((await runSteer(["status", "--json"], home)).stdout) as typeof status)?.toolCallsInFlight,
    ).toMatchObject([{ callId: "sibling" }]);

    const inject = async (content: string, mode: string) => {
      const run = await runSteer(["inject", content, "--mode", mode, "--json"], home!);
      expect(run.code, run.stderr).toBe(0);
      expect(JSON.parse(run.stdout)).toMatchObject({ handedToPi: true });
    };
    await inject("STEER-ON-STOCK", "interrupt_immediate");
    await inject("FOLLOW-UP-ON-STOCK", "finish_step");
    await inject("AUDIT-ON-STOCK", "audit_only");
    writeFileSync(flag, "");

    const result = await pi;
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr.split("\n").filter((l) => l.includes("steering-bridge:") && /stock pi/.test(l))).toHaveLength(
      1,
    );
    // After the batch: the cancelled call's result and the sibling's, then pi's steer queue one at a time (pi's
    // default steeringMode): the cancel's reminder (queued first), then the steer; its follow-up queue once the run
    // would otherwise end.
    expect(server.requests).toHaveLength(4);
    const sent = server.requests.map((r) => conversation(r.messages).map((m) => m.text));
    expect(sent[1]!.slice(-3)).toEqual([
      "Tool call nap (bash) was cancelled by the host: user clicked stop",
      expect.stringContaining("SIBLING-DONE"),
      cancelReminderTextFor("nap", "bash", "user clicked stop"),
    ]);
    expect(sent[2]!.slice(-2)).toEqual(["nap over", "STEER-ON-STOCK"]);
    expect(sent[3]!.slice(-2)).toEqual(["saw the steer", "FOLLOW-UP-ON-STOCK"]);
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
    expect(entries.filter((e) => e.type === "custom" && e.customType === "steering:audit")).toMatchObject([
      { data: { content: "AUDIT-ON-STOCK", mode: "audit_only", seam: "pi_queue" } },
    ]);
  }, 120_000);

  it.each(WIRE_FORMATS)(
    "%s: an interrupt_immediate item that arrives while the model answers keeps that answer's tool calls from running, and the next request is valid",
    async (format) => {
      // The first answer (a bash call) is held until the item is in: the item arrives mid-turn, as a user's would.
      let release: () => void = () => {};
      const held = new Promise<void>((resolve) => {
        release = resolve;
      });
      const ran = join(mkdtempSync(join(tmpdir(), "stock-skip-")), "ran");
      server = await startProviderServer(format, {
        strict: true,
        script: async (_request, index) => {
          if (index > 0) return { text: "Stopped before touching anything." };
          await held;
          return { toolCalls: [{ id: "touch", name: "bash", arguments: { command: `touch ${ran}` } }] };
        },
      });
      home = prepareCliHome({ server });
      const pi = runPi(["-e", PACKAGE_DIR, "-p", "touch the file"], { home, piCli: stock.cli, timeoutMs: 90_000 });
      await server.waitForRequests(1, 60_000);
      let injected: Awaited<ReturnType<typeof runSteer>> | undefined;
      const deadline = Date.now() + 30_000;
      while (Date.now() < deadline) {
        // The socket is up once the session started; retry until it answers.
        injected = await runSteer(["inject", "STOP-BEFORE-TOOLS", "--mode", "interrupt_immediate", "--json"], home);
        if (injected.code === 0) break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(injected?.code, injected?.stderr).toBe(0);
      release();

      const result = await pi;
      expect(result.code, result.stderr).toBe(0);
      expect(existsSync(ran)).toBe(false);
      expect(server.requests).toHaveLength(2);
      expect(server.requests.map((r) => r.rejected?.message ?? "accepted")).toEqual(["accepted", "accepted"]);
      const sent = JSON.stringify(server.requests[1]!.messages);
      expect(sent).toContain("Tool call bash was not dispatched: interrupt_immediate");
      expect(sent.indexOf("STOP-BEFORE-TOOLS")).toBeGreaterThan(sent.indexOf("was not dispatched"));
      expect(result.stdout).toContain("Stopped before touching anything.");
    },
    120_000,
  );
});
