import { spawn } from "node:child_process";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import {
  type CliHome,
  closeAfterEach,
  installStockPi,
  prepareCliHome,
  readSessionFile,
  runPi,
  type StockPi,
  startModelServer,
} from "@pi-rails/testkit";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";

// pi-ttsr and steering-bridge loaded together (both `-e`) in the published pi 1.6.0, each on its own copy of
// agent-core's stock hosts: the stream hook (message_update, ctx.abort(), message_end, context, agent_settled) and
// the checkpoints (turn_end / agent_before_settle boundaries, tool_call, agent_settled). What one does to the run (an
// aborted, emptied response; a boundary continuation) must not break what the other does in the same turn.

const ROOT = join(import.meta.dirname, "..", "..", "..");
const TTSR = join(ROOT, "extensions", "pi-ttsr");
const STEERING = join(ROOT, "extensions", "steering-bridge");
const PI_STEER = join(STEERING, "bin", "pi-steer.mjs");
const TIMEOUT_MS = 180_000;

const RULE = '---\ncondition: "\\\\beval\\\\("\n---\nNever call eval().\n';

/** `pi-steer` against the session of `home`, retried until its socket answers (pi's session has started). */
async function steer(home: CliHome, args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const once = () =>
    new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      const child = spawn(process.execPath, [PI_STEER, ...args], { cwd: home.cwd, env: home.env });
      let stdout = "";
      let stderr = "";
      child.stdout.on("data", (d) => {
        stdout += d;
      });
      child.stderr.on("data", (d) => {
        stderr += d;
      });
      child.on("close", (code) => resolve({ code, stdout, stderr }));
    });
  let run = await once();
  for (const deadline = Date.now() + 30_000; run.code !== 0 && Date.now() < deadline; ) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    run = await once();
  }
  return run;
}

/** The texts of a chat-completions request's conversation (system prompt left out). */
function texts(messages: readonly unknown[]): string[] {
  return messages.flatMap((m) => {
    const { role, content } = m as { role: string; content?: unknown };
    if (role === "system" || role === "developer") return [];
    if (typeof content === "string") return [content];
    if (!Array.isArray(content)) return [""];
    return [content.map((part) => (part as { text?: string }).text ?? "").join("")];
  });
}

/** The run's one session file. */
function sessionEntries(home: CliHome): { type: string; customType?: string; message?: { role: string } }[] {
  const sessions = join(home.agentDir, "sessions");
  const files = readdirSync(sessions, { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".jsonl"));
  expect(files).toHaveLength(1);
  return readSessionFile(join(sessions, files[0]!)) as never;
}

describe("pi-ttsr and steering-bridge together in stock pi 1.6", { timeout: TIMEOUT_MS }, () => {
  let stock: StockPi;
  const keep = closeAfterEach(afterEach);

  beforeAll(() => {
    stock = installStockPi({ shared: true });
  }, 300_000);
  afterAll(() => stock?.dispose(), TIMEOUT_MS);

  it("a TTSR interrupt and a finish_step item in the same turn: the retry carries the rule and the item once, no partial, no request pi sends for nothing", async () => {
    let open: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      open = resolve;
    });
    const server = await startModelServer({
      script: async (_request, index) => {
        if (index > 0) return { text: "Use JSON.parse(input), and I saw the steer." };
        await held;
        return { text: "Sure. Just call eval(input) and return the result; that is the quickest way.", chunkSize: 4 };
      },
    }).then(keep);
    const home = keep(prepareCliHome({ server, files: { ".pi/rules/no-eval.md": RULE } }));
    const pi = runPi(["-e", TTSR, "-e", STEERING, "-p", "parse it"], { home, piCli: stock.cli, timeoutMs: 120_000 });
    await server.waitForRequests(1, 60_000);
    const injected = await steer(home, ["inject", "STEER-ITEM", "--mode", "finish_step", "--json"]);
    expect(injected.code, injected.stderr).toBe(0);
    expect(JSON.parse(injected.stdout)).not.toHaveProperty("handedToPi");
    open();

    const run = await pi;
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).not.toMatch(/error|invalid/i);
    expect(run.stdout).toContain("I saw the steer");
    expect(run.stdout).not.toContain("Just call eval");
    const sent = server.requests.map((r) => texts(r.messages));
    // Two requests: the interrupted one, and the retry with the rule and the steering item (once each).
    expect(sent).toHaveLength(2);
    const retry = sent[1]!;
    expect(retry.filter((t) => t.includes("STEER-ITEM"))).toHaveLength(1);
    expect(retry.filter((t) => t.includes("Never call eval()"))).toHaveLength(1);
    expect(retry.join("\n")).not.toContain("Just call eval");
    expect(retry.filter((t) => t === "")).toEqual([]);
    // The session: the emptied response once (no turn pi started only to abort it), the item and the rule, the answer.
    const entries = sessionEntries(home).flatMap((e) => {
      if (e.type === "custom_message") return [e.customType];
      const m = e.message as { role?: string; stopReason?: string; content?: unknown[] } | undefined;
      return m?.role === "assistant" ? [`${m.stopReason}${m.content?.length === 0 ? " (emptied)" : ""}`] : [];
    });
    expect(entries).toEqual(["stop (emptied)", "steering:message", "ttsr:injection", "stop"]);
  });
});
