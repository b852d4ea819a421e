import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
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
} from "@pi-rails/testkit";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { readJournal } from "../src/store/journal.ts";
import { conversation } from "./helpers.ts";
import { alive, gate, injectWhenUp, PACKAGE_DIR, runSteer, waitFor } from "./steer-cli.ts";

const INVALID_BOUNDARY = join(PACKAGE_DIR, "test", "fixtures", "invalid-boundary.ts");

/** The journal that knows item `id`: what is pending, and how each settled item ended. */
function journalOf(home: CliHome, id: string) {
  const steering = join(home.agentDir, "steering");
  const journals = readdirSync(steering)
    .filter((f) => f.endsWith(".journal"))
    .map((f) => readJournal(join(steering, f)));
  const known = journals.filter((j) => j.settled.has(id) || j.pending.some((item) => item.id === id));
  expect(known).toHaveLength(1);
  return known[0]!;
}

/** The custom_message entries of the home's only session file whose content is `content`. */
function sessionMessages(home: CliHome, content: string): unknown[] {
  const sessions = join(home.agentDir, "sessions");
  const files = readdirSync(sessions, { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".jsonl"));
  expect(files).toHaveLength(1);
  const entries = readSessionFile(join(sessions, files[0]!)) as { type: string; content?: unknown }[];
  return entries.filter((e) => e.type === "custom_message" && e.content === content);
}

/** The stock pi in RPC mode on the home's last session, idle until prompted; `stop` closes stdin (pi's orderly exit). */
function rpcPi(home: CliHome, cli: string) {
  const child = spawn(process.execPath, [cli, "--mode", "rpc", "--continue", "-e", PACKAGE_DIR], {
    cwd: home.cwd,
    env: home.env,
    stdio: ["pipe", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk;
  });
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return {
    send: (command: object) => child.stdin.write(`${JSON.stringify(command)}\n`),
    stop: async () => {
      child.stdin.end();
      const timer = setTimeout(() => child.kill("SIGKILL"), 30_000);
      const code = await exited;
      clearTimeout(timer);
      return { code, stderr };
    },
    kill: () => child.kill("SIGKILL"),
  };
}

/** The bridge of the home's session is up and idle (pi settled its last run). */
async function idle(home: CliHome): Promise<void> {
  await waitFor(async () => {
    const run = await runSteer(["status", "--json"], home);
    return run.code === 0 && (JSON.parse(run.stdout) as { running: boolean }).running === false;
  }, "an idle steering bridge");
}

// The published pi 1.6 as a user has it (installed from the npm registry by the testkit), without the pi-rails
// patch: the seams its public events stand in for (agent-core's checkpoints: iteration_start of a run's first
// iteration at before_agent_start, pre_tool_dispatch at tool_call,
// post_tool_dispatch / iteration_end at turn_end and agent_before_settle, loop_exit at agent_settled); cancel of one
// running call works as on the patched pi (agent-core's cancellable built-in tools).
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

  it("says once what is degraded, cancels one running bash while its sibling finishes, delivers interrupt_immediate and finish_step at the end of the turn, writes audit records once pi settled the run", async () => {
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
        { text: "nap over, saw the steer" },
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
      return JSON.parse(run.stdout) as { handedToPi?: boolean };
    };
    // Each waits in the bridge's queue for its seam: the end of the turn (pi's turn_end boundary), the run's end.
    expect(await inject("STEER-ON-STOCK", "interrupt_immediate")).not.toHaveProperty("handedToPi");
    expect(await inject("FOLLOW-UP-ON-STOCK", "finish_step")).not.toHaveProperty("handedToPi");
    expect(await inject("AUDIT-ON-STOCK", "audit_only")).not.toHaveProperty("handedToPi");
    writeFileSync(flag, "");

    const result = await pi;
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr.split("\n").filter((l) => l.includes("steering-bridge:") && /stock pi/.test(l))).toHaveLength(
      1,
    );
    // After the batch: the cancelled call's result and the sibling's, the interrupt_immediate then the finish_step
    // item (delivered at pi's turn_end boundary, as the patched pi's post_tool_dispatch seam would), then pi's steer
    // queue: the cancel's reminder.
    expect(server.requests).toHaveLength(2);
    const sent = server.requests.map((r) => conversation(r.messages).map((m) => m.text));
    expect(sent[1]!.slice(-5)).toEqual([
      "Tool call nap (bash) was cancelled by the host: user clicked stop",
      expect.stringContaining("SIBLING-DONE"),
      "STEER-ON-STOCK",
      "FOLLOW-UP-ON-STOCK",
      cancelReminderTextFor("nap", "bash", "user clicked stop"),
    ]);
    // audit_only: a custom entry in the session file, in no request.
    expect(JSON.stringify(server.requests.map((r) => r.messages))).not.toContain("AUDIT-ON-STOCK");
    const sessions = join(home.agentDir, "sessions");
    const files = readdirSync(sessions, { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".jsonl"));
    expect(files).toHaveLength(1);
    const entries = readSessionFile(join(sessions, files[0]!)) as {
      type: string;
      customType?: string;
      data?: unknown;
      message?: { role: string };
    }[];
    expect(entries.filter((e) => e.type === "custom" && e.customType === "steering:audit")).toMatchObject([
      { data: { content: "AUDIT-ON-STOCK", mode: "audit_only", seam: "loop_exit" } },
    ]);
    // Recorded once pi settled the run (agent_settled, as at the patched pi's loop_exit): after its last answer.
    const audit = entries.findIndex((e) => e.customType === "steering:audit");
    expect(audit).toBeGreaterThan(entries.findLastIndex((e) => e.message?.role === "assistant"));
  }, 120_000);

  it.each(["exit", "/new"] as const)(
    "an item injected into an idle session that pi leaves without a prompt (%s) stays pending; the next pi --continue -p delivers it once, with its prompt",
    async (leave) => {
      server = await startModelServer({ script: [{ text: "first answer" }, { text: "saw the idle item" }] });
      home = prepareCliHome({ server });
      const first = await runPi(["-e", PACKAGE_DIR, "-p", "first"], { home, piCli: stock.cli, timeoutMs: 90_000 });
      expect(first.code, first.stderr).toBe(0);

      const rpc = rpcPi(home, stock.cli);
      try {
        const injected = await injectWhenUp(home, ["IDLE-ITEM", "--mode", "finish_step", "--id", "idle-job", "--json"]);
        expect(injected.code, injected.stderr).toBe(0);
        // Not handed to pi's in-memory next-turn queue (which its exit drops): pending in the bridge and its journal.
        expect(JSON.parse(injected.stdout)).toEqual({ id: "idle-job" });
        if (leave === "/new") {
          rpc.send({ type: "new_session" });
          // The new session's bridge is the one pi-steer reaches once pi has switched.
          await waitFor(async () => {
            const run = await runSteer(["pending", "--json"], home!);
            return run.code === 0 && !run.stdout.includes("idle-job");
          }, "the new session's bridge");
        }
        const stopped = await rpc.stop();
        expect(stopped.code, stopped.stderr).toBe(0);
      } finally {
        rpc.kill();
      }
      expect(server.requests).toHaveLength(1);
      expect(journalOf(home, "idle-job").pending.map((item) => item.id)).toEqual(["idle-job"]);

      const second = await runPi(["-e", PACKAGE_DIR, "--continue", "-p", "second"], {
        home,
        piCli: stock.cli,
        timeoutMs: 90_000,
      });
      expect(second.code, second.stderr).toBe(0);
      // One request: the item went in with the run's prompt (iteration_start at before_agent_start), right after it.
      expect(server.requests).toHaveLength(2);
      const sent = conversation(server.requests[1]!.messages).map((m) => m.text);
      expect(sent.slice(-2)).toEqual(["second", "IDLE-ITEM"]);
      expect(sessionMessages(home, "IDLE-ITEM")).toHaveLength(1);
      const journal = journalOf(home, "idle-job");
      expect({ pending: journal.pending, state: journal.settled.get("idle-job") }).toEqual({
        pending: [],
        state: "delivered",
      });
    },
    180_000,
  );

  it("items that arrive between two prompts of one RPC session go in with the next prompt, once", async () => {
    server = await startModelServer({
      script: [{ text: "setup" }, { text: "first answer" }, { text: "saw both items" }],
    });
    home = prepareCliHome({ server });
    const setup = await runPi(["-e", PACKAGE_DIR, "-p", "setup"], { home, piCli: stock.cli, timeoutMs: 90_000 });
    expect(setup.code, setup.stderr).toBe(0);

    const rpc = rpcPi(home, stock.cli);
    try {
      rpc.send({ type: "prompt", message: "one" });
      await server.waitForRequests(2, 60_000);
      await idle(home);
      for (const [content, mode, id] of [
        ["BETWEEN-INTERRUPT", "interrupt_immediate", "between-1"],
        ["BETWEEN-FINISH", "finish_step", "between-2"],
      ]) {
        const run = await runSteer(["inject", content!, "--mode", mode!, "--id", id!, "--json"], home);
        expect(run.code, run.stderr).toBe(0);
        expect(JSON.parse(run.stdout)).not.toHaveProperty("handedToPi");
      }
      expect(journalOf(home, "between-1").pending).toHaveLength(2);
      rpc.send({ type: "prompt", message: "two" });
      await server.waitForRequests(3, 60_000);
      await idle(home);
      const stopped = await rpc.stop();
      expect(stopped.code, stopped.stderr).toBe(0);
    } finally {
      rpc.kill();
    }
    expect(server.requests).toHaveLength(3);
    expect(JSON.stringify(server.requests[1]!.messages)).not.toContain("BETWEEN-");
    const sent = conversation(server.requests[2]!.messages).map((m) => m.text);
    expect(sent.slice(-3)).toEqual(["two", "BETWEEN-INTERRUPT", "BETWEEN-FINISH"]);
    expect(sessionMessages(home, "BETWEEN-FINISH")).toHaveLength(1);
    expect(journalOf(home, "between-1").pending).toEqual([]);
  }, 180_000);

  it("a finish_step item held through a failed turn goes in after pi's own retry, in the same run", async () => {
    // The first answer fails mid-stream (an overloaded provider); pi retries after agent_end. The item, injected while
    // that answer was held, must still be the bridge's then, not handed to pi's next prompt.
    const { held, open: release } = gate();
    server = await startModelServer({
      script: async (_request, index) => {
        if (index === 0) {
          await held;
          return { text: "Let me think about", streamError: { afterDeltas: 1, message: "Overloaded" } };
        }
        return index === 1 ? { text: "Retried answer." } : { text: "saw the held item" };
      },
    });
    home = prepareCliHome({ server, settings: { retry: { baseDelayMs: 10 } } });
    const pi = runPi(["-e", PACKAGE_DIR, "-p", "answer"], { home, piCli: stock.cli, timeoutMs: 90_000 });
    await server.waitForRequests(1, 60_000);
    const injected = await injectWhenUp(home, ["HELD-ITEM", "--mode", "finish_step", "--json"]);
    expect(injected.code, injected.stderr).toBe(0);
    release();

    const result = await pi;
    expect(result.code, result.stderr).toBe(0);
    expect(server.requests).toHaveLength(3);
    expect(JSON.stringify(server.requests[1]!.messages)).not.toContain("HELD-ITEM");
    expect(
      conversation(server.requests[2]!.messages)
        .map((m) => m.text)
        .slice(-2),
    ).toEqual(["Retried answer.", "HELD-ITEM"]);
    expect(result.stdout).toContain("saw the held item");
  }, 120_000);

  it("a finish_step item whose boundary entries pi dropped (another extension's proposal was invalid) stays queued and goes in at the next boundary, once; the journal says delivered only then", async () => {
    const { held, open: release } = gate();
    server = await startModelServer({
      script: async (_request, index) => {
        if (index > 0) return { text: "saw the kept item" };
        await held;
        return { text: "Here is my answer." };
      },
    });
    home = prepareCliHome({ server });
    const args = ["-e", PACKAGE_DIR, "-e", INVALID_BOUNDARY, "-p", "answer"];
    const pi = runPi(args, { home, piCli: stock.cli, timeoutMs: 90_000 });
    await server.waitForRequests(1, 60_000);
    const injected = await injectWhenUp(home, ["KEEP-ME", "--mode", "finish_step", "--json"]);
    expect(injected.code, injected.stderr).toBe(0);
    const { id } = JSON.parse(injected.stdout) as { id: string };
    release();

    const result = await pi;
    expect(result.code, result.stderr).toBe(0);
    // pi refused the turn_end proposal (ours and the other extension's) ...
    expect(result.stderr).toContain("Invalid boundary entries");
    // ... and the item went in at agent_before_settle, once.
    expect(server.requests).toHaveLength(2);
    expect(
      conversation(server.requests[1]!.messages)
        .map((m) => m.text)
        .slice(-2),
    ).toEqual(["Here is my answer.", "KEEP-ME"]);
    expect(result.stdout).toContain("saw the kept item");
    const sessions = join(home.agentDir, "sessions");
    const file = readdirSync(sessions, { recursive: true, encoding: "utf8" }).find((f) => f.endsWith(".jsonl"))!;
    const entries = readSessionFile(join(sessions, file)) as { type: string; content?: unknown }[];
    expect(entries.filter((e) => e.type === "custom_message" && e.content === "KEEP-ME")).toHaveLength(1);
    const steering = join(home.agentDir, "steering");
    const journal = readJournal(join(steering, readdirSync(steering).find((f) => f.endsWith(".journal"))!));
    expect({ pending: journal.pending, state: journal.settled.get(id) }).toEqual({ pending: [], state: "delivered" });
  }, 120_000);

  // interrupt_immediate keeping a pending tool batch from running, on every wire format, and finish_step with dedupe
  // and revoke: packages/pi-integration/test/host-matrix.e2e.test.ts runs them on this pi and on the patched one.
});
