import { spawn } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import {
  type CliHome,
  closeAfterEach,
  installStockPi,
  prepareCliHome,
  readSessionFile,
  runPi,
  type ScriptedResponse,
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
const TOOL_RULE = '---\ncondition: ":\\\\s*any\\\\b"\nscope: "tool:write(*.ts)"\n---\nNever use any.\n';
/** A file whose first line breaks the no-any rule, and which goes on after it. */
const FILE = `let x: any = 1;\n${Array.from({ length: 30 }, (_, i) => `export const v${i} = ${i};\n`).join("")}`;

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

  /**
   * One `pi -p` run with both extensions (in `order`): the first answer is held until `mode`'s item is queued through
   * `pi-steer`, then streams `first` (which breaks a rule); the retry answers. What the model and the session got.
   */
  async function together(options: {
    order: "ttsr-first" | "steering-first";
    rules: Record<string, string>;
    first: ScriptedResponse;
    mode: string;
  }) {
    let open: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      open = resolve;
    });
    const server = await startModelServer({
      script: async (_request, index) => {
        if (index > 0) return { text: "Done right, and I saw the steer." };
        await held;
        return options.first;
      },
    }).then(keep);
    const home = keep(prepareCliHome({ server, files: options.rules }));
    const extensions = options.order === "ttsr-first" ? ["-e", TTSR, "-e", STEERING] : ["-e", STEERING, "-e", TTSR];
    const pi = runPi([...extensions, "-p", "go"], { home, piCli: stock.cli, timeoutMs: 120_000 });
    await server.waitForRequests(1, 60_000);
    const injected = await steer(home, ["inject", "STEER-ITEM", "--mode", options.mode, "--json"]);
    expect(injected.code, injected.stderr).toBe(0);
    expect(JSON.parse(injected.stdout)).not.toHaveProperty("handedToPi");
    open();
    const run = await pi;
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).not.toMatch(/error|invalid/i);
    expect(run.stdout).toContain("I saw the steer");
    // The session: the emptied response once (no turn pi started only to abort it), the item and the rule, the answer.
    const entries = sessionEntries(home).flatMap((e) => {
      if (e.type === "custom_message") return [e.customType];
      const m = e.message as { role?: string; stopReason?: string; content?: unknown[] } | undefined;
      return m?.role === "assistant" ? [`${m.stopReason}${m.content?.length === 0 ? " (emptied)" : ""}`] : [];
    });
    return { home, sent: server.requests.map((r) => texts(r.messages)), raw: server.requests, entries };
  }

  it.each(["ttsr-first", "steering-first"] as const)(
    "a prose rule's interrupt and a finish_step item in the same turn (%s): the retry carries the rule and the item once, no partial, no turn pi starts only to abort it",
    async (order) => {
      const { sent, entries } = await together({
        order,
        rules: { ".pi/rules/no-eval.md": RULE },
        first: { text: "Sure. Just call eval(input) and return the result; that is the quickest way.", chunkSize: 4 },
        mode: "finish_step",
      });
      // Two requests: the interrupted one, and the retry with the rule and the steering item (once each).
      expect(sent).toHaveLength(2);
      const retry = sent[1]!;
      expect(retry.filter((t) => t.includes("STEER-ITEM"))).toHaveLength(1);
      expect(retry.filter((t) => t.includes("Never call eval()"))).toHaveLength(1);
      expect(retry.join("\n")).not.toContain("Just call eval");
      expect(retry.filter((t) => t === "")).toEqual([]);
      expect(entries).toEqual(["stop (emptied)", "steering:message", "ttsr:injection", "stop"]);
    },
  );

  it.each(["ttsr-first", "steering-first"] as const)(
    "a tool rule's interrupt while an interrupt_immediate item waits (%s): the call never runs, the retry carries the item and the rule once, and no tool result",
    async (order) => {
      const { home, sent, raw, entries } = await together({
        order,
        rules: { ".pi/rules/no-any.md": TOOL_RULE },
        first: {
          toolCalls: [{ id: "w1", name: "write", arguments: { path: "src/a.ts", content: FILE } }],
          chunkSize: 4,
          delayMs: 2,
        },
        mode: "interrupt_immediate",
      });
      expect(existsSync(join(home.cwd, "src", "a.ts"))).toBe(false);
      expect(sent).toHaveLength(2);
      const retry = sent[1]!;
      expect(retry.filter((t) => t.includes("STEER-ITEM"))).toHaveLength(1);
      expect(retry.filter((t) => t.includes("Never use any."))).toHaveLength(1);
      expect(JSON.stringify(raw[1]!.messages)).not.toMatch(/"role":"tool"|let x: any/);
      expect(entries).toEqual(["stop (emptied)", "steering:message", "ttsr:injection", "stop"]);
    },
  );
});
