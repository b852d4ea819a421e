import { existsSync } from "node:fs";
import { join } from "node:path";
import {
  closeAfterEach,
  installStockPi,
  prepareCliHome,
  runPi,
  type ScriptedResponse,
  type StockPi,
  startModelServer,
} from "@pi-rails/testkit";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  ANY_FILE,
  assistantStop,
  EVAL_ANSWER,
  gate,
  inject,
  NO_ANY_RULE,
  NO_EVAL_RULE,
  STEERING,
  sessionEntries,
  E2E_TIMEOUT_MS as TIMEOUT_MS,
  TTSR,
  texts,
} from "./scenario-kit.ts";

// pi-ttsr and steering-bridge loaded together (both `-e`) in the published pi 1.6.0, each on its own copy of
// agent-core's stock hosts: the stream hook (message_update, ctx.abort(), message_end, context, agent_settled) and
// the checkpoints (turn_end / agent_before_settle boundaries, tool_call, agent_settled). What one does to the run (an
// aborted, emptied response; a boundary continuation) must not break what the other does in the same turn.

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
    const { held, open } = gate();
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
    expect(await inject(home, ["STEER-ITEM", "--mode", options.mode])).not.toHaveProperty("handedToPi");
    open();
    const run = await pi;
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).not.toMatch(/error|invalid/i);
    expect(run.stdout).toContain("I saw the steer");
    // The session: the emptied response once (no turn pi started only to abort it), the item and the rule, the answer.
    const entries = sessionEntries(home).flatMap((e) =>
      e.type === "custom_message" ? [e.customType] : (assistantStop(e) ?? []),
    );
    return { home, sent: server.requests.map((r) => texts(r.messages)), raw: server.requests, entries };
  }

  it.each(["ttsr-first", "steering-first"] as const)(
    "a prose rule's interrupt and a finish_step item in the same turn (%s): the retry carries the rule and the item once, no partial, no turn pi starts only to abort it",
    async (order) => {
      const { sent, entries } = await together({
        order,
        rules: NO_EVAL_RULE,
        first: { text: EVAL_ANSWER, chunkSize: 4 },
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
        rules: NO_ANY_RULE,
        first: {
          toolCalls: [{ id: "w1", name: "write", arguments: { path: "src/a.ts", content: ANY_FILE } }],
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
