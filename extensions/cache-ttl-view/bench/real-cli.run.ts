// pnpm bench, real-CLI part: `pi -p --session <file>` (the workspace's real pi, a loopback model) into a resumed
// session (4k, 10k and 100k messages) whose cache expired an hour ago: the extension's start-up cost, and the context pass of the
// first request: cold (pi -p asks before any idle preparation could run), and prepared (pi waits 2 s for the prompt,
// as for a user typing). Then the cold run's file again a minute later:
// the prune is read back from the session and re-applied. Side by side, in the same processes: pi's own getBranch().

import { copyFileSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { prepareCliHome, runPi, startModelServer } from "@pi-rails/testkit";
import { expect, it } from "vitest";
import { CLOCK_OFFSET_ENV } from "../src/extension.ts";
// @ts-expect-error: plain JS workload shared with bench/run.mjs
import { benchSession } from "./workload.mjs";

/**
 * Session sizes: 4,000 messages of the workload are about a million tokens (the largest context window a model takes),
 * 10,000 are beyond every model, and 100,000 (about 24 million tokens) only exist with pi's compaction off: the scale
 * goal of issue 22.
 */
const SIZES = (process.env["CACHE_TTL_BENCH_CLI_MESSAGES"] ?? "4000,10000,100000").split(",").map(Number);
const SAMPLES = Number(process.env["CACHE_TTL_BENCH_CLI_SAMPLES"] ?? 3);
const PROBE = join(import.meta.dirname, "real-cli-probe.ts");

/** A pi session file (header, then one message entry per message, each the child of the one before). */
function sessionFile(messages: Record<string, unknown>[], cwd: string): string {
  const lines = [
    JSON.stringify({
      type: "session",
      version: 3,
      id: "0b3c1a52-5d0e-4f7a-9a51-3c1f00000100",
      timestamp: "2026-01-01T00:00:00.000Z",
      cwd,
    }),
  ];
  let parentId: string | null = null;
  messages.forEach((message, i) => {
    if (message["role"] === "assistant") {
      const calls = (message["content"] as { type: string }[]).some((part) => part.type === "toolCall");
      Object.assign(message, {
        api: "openai-completions",
        provider: "loopback",
        model: "loopback-model",
        stopReason: calls ? "toolUse" : "stop",
        usage: {
          input: 10,
          output: 10,
          cacheRead: 0,
          cacheWrite: 0,
          totalTokens: 20,
          cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
        },
      });
    }
    const id = i.toString(16).padStart(8, "0");
    const timestamp = new Date(message["timestamp"] as number).toISOString();
    lines.push(JSON.stringify({ type: "message", id, parentId, timestamp, message }));
    parentId = id;
  });
  return `${lines.join("\n")}\n`;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
const range = (xs: number[]) =>
  `${Math.min(...xs).toFixed(0)}-${Math.max(...xs).toFixed(0)} (median ${median(xs).toFixed(0)})`;

it.each(SIZES)("real pi CLI: a resumed %i-message session, expired", async (SIZE) => {
  // Per sample: the cold run's answer, the next run's, then the paused run's tool call (one turn more) and answer.
  const turns = [
    { text: "ok" },
    { text: "ok" },
    { toolCalls: [{ id: "call_ls", name: "ls", arguments: {} }] },
    { text: "ok" },
  ];
  const server = await startModelServer({ script: Array.from({ length: SAMPLES }, () => turns).flat() });
  // pi would compact a 100k-message session after its first answer: every run here starts from the whole session.
  const home = prepareCliHome({
    server,
    settings: { compaction: { enabled: false } },
    projectSettings: { cacheTtl: { ttlSeconds: 300 } },
  });
  try {
    // The session's last message an hour before now (the workload's clock runs about 0.7 s per message).
    const lastAt = benchSession(SIZE, 0).lastAt as number;
    const { messages } = benchSession(SIZE, Date.now() - 3_600_000 - lastAt);
    const pristine = join(home.root, "pristine.jsonl");
    writeFileSync(pristine, sessionFile(messages.slice(0, -1), home.cwd));
    const rows: Record<string, number>[] = [];
    for (let k = 0; k < SAMPLES; k++) {
      /** One `pi -p` on `file`: what the probe recorded at session_start and at the request. */
      const run = async (file: string, offsetSeconds: number, idleMs = 0, advanceSeconds = 0) => {
        const probeOut = join(home.root, `probe-${k}-${offsetSeconds}-${idleMs}.jsonl`);
        const result = await runPi(["-e", PROBE, "-p", "--session", file, "what next?"], {
          home,
          timeoutMs: 300_000,
          env: {
            CACHE_TTL_BENCH_PROBE_OUT: probeOut,
            CACHE_TTL_BENCH_IDLE_MS: String(idleMs),
            CACHE_TTL_BENCH_ADVANCE_S: String(advanceSeconds),
            [CLOCK_OFFSET_ENV]: String(offsetSeconds),
          },
        });
        expect(result.code, result.stderr).toBe(0);
        const lines = readFileSync(probeOut, "utf8")
          .trim()
          .split("\n")
          .map((line) => JSON.parse(line));
        const start = lines.find((line) => line.event === "session_start");
        const [pass, next] = lines.filter((line) => line.event === "context");
        const [settle] = lines.filter((line) => line.event === "settle");
        return { start, pass, next, settle };
      };
      const file = join(home.root, `session-${k}.jsonl`);
      copyFileSync(pristine, file);
      const cold = await run(file, 0);
      expect(cold.start.entries).toBeGreaterThanOrEqual(SIZE - 1);
      expect(cold.pass).toMatchObject({ prepared: false });
      expect(cold.pass.pruned).toBeGreaterThan(0);
      const again = await run(file, 60);
      expect(again.pass).toMatchObject({ messages: cold.pass.messages + 2 });
      expect(again.pass.pruned).toBeUndefined();
      // The same resume, but pi waits 2 s before the prompt goes out (a user typing): the preparation runs first. The
      // model calls a tool, and the clock moves on 10 minutes: the request after it is a running session's expiry.
      copyFileSync(pristine, file);
      const paused = await run(file, 0, 2000, 600);
      expect(paused.pass).toMatchObject({ prepared: true, pruned: cold.pass.pruned });
      expect(paused.next).toMatchObject({ prepared: false });
      rows.push({
        handlerMs: cold.start.handlerMs,
        walkMs: cold.start.walkMs,
        getBranchMs: cold.start.getBranchMs,
        coldMs: cold.pass.passMs,
        coldGcMs: cold.pass.gcMs,
        settleMs: cold.settle.settleMs,
        pruned: cold.pass.pruned,
        preparedMs: paused.pass.passMs,
        runningMs: paused.next.passMs,
        handler2Ms: again.start.handlerMs,
        reuseMs: again.pass.passMs,
        reuseGcMs: again.pass.gcMs,
      });
      rmSync(file);
    }
    const col = (key: string) => range(rows.map((r) => r[key] as number));
    console.log(
      [
        `real pi CLI, ${SIZE} messages (ms over ${SAMPLES} processes each):`,
        `  start-up: the extension's session_start handler ${col("handlerMs")}; its branch read ${col("walkMs")}, pi's getBranch() ${col("getBranchMs")}`,
        `  first request after the expiry (${rows[0]?.["pruned"]} blocks pruned): context pass ${col("coldMs")} (collector ${col("coldGcMs")}) when the prompt comes at once (pi -p) (its prune folded into the state once the answer began: ${col("settleMs")}), ${col("preparedMs")} when pi waited 2 s for it (prepared while idle)`,
        `  the same process, the next request 10 minutes later (a running session's expiry, nothing new to prune): context pass ${col("runningMs")}`,
        `  next process, a minute later: session_start handler ${col("handler2Ms")}, context pass ${col("reuseMs")} (collector ${col("reuseGcMs")}) (the prune read back and re-applied)`,
      ].join("\n"),
    );
  } finally {
    await server.close();
    home.dispose();
  }
});
