// pnpm bench: the steering bridge's costs, side by side in one run, as ratios of an empty checkpoint pass.
// - empty pass: one seam drain with nothing queued (what every seam of every run pays)
// - 10,000 items drained in one seam (budget 50 ms): take, render, acknowledge
// - inject round trip over the Unix socket (client -> JSON-RPC -> queue -> answer)
// - inject to delivery: inject over the socket, the next seam drains it, the subscriber receives the ack
// - the journal (accepted = on disk): an in-process inject with its accept line written, and the 10,000-item drain
//   with its settle lines written
// - opening a large journal: 1,000,000 lines (500,000 items accepted and settled, about 80 MB), as an older version
//   left a long session's journal; read streamed and rewritten to what it holds
// - session start of a new session: its store opened (lock, journal, its unsaved marker) while the steering dir holds
//   1,000 journals of saved sessions and 20 markers of other sessions not saved yet (the orphan scan)
import { closeSync, mkdtempSync, openSync, rmSync, statSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SteeringBridge } from "../dist/bridge/steering-bridge.js";
import { startEndpoint } from "../dist/endpoint/server.js";
import { SteeringClient } from "../dist/index.js";
import { SteeringQueue } from "../dist/queue/steering-queue.js";
import { QueueJournal } from "../dist/store/journal.js";
import { markUnsaved } from "../dist/store/orphans.js";
import { openSessionStore } from "../dist/store/session-store.js";

const json = process.argv.includes("--json");
const loadAverage = (await import("node:os")).loadavg()[0];
const BUDGET_10K_MS = 50;

function stats(samples) {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
  return {
    n: sorted.length,
    best: sorted[0],
    p50: at(0.5),
    p99: at(0.99),
    mean: samples.reduce((a, b) => a + b, 0) / samples.length,
  };
}

async function emptyPass() {
  const bridge = new SteeringBridge({ sessionId: "bench-empty", cwd: "/" });
  for (let i = 0; i < 2000; i++) await bridge.drain("iteration_start", 1);
  const samples = [];
  for (let round = 0; round < 50; round++) {
    const t = performance.now();
    for (let i = 0; i < 1000; i++) await bridge.drain(i % 2 ? "post_tool_dispatch" : "iteration_start", 1);
    samples.push((performance.now() - t) / 1000);
  }
  return stats(samples);
}

/** A bridge whose queue takes 10,000 items (the default limit is 1,000), journaled when `journal` is given. */
function bigBridge(sessionId, journal) {
  const queue = new SteeringQueue({ maxPendingItems: 10_000 });
  if (journal) {
    queue.onAccept((item) => journal.accept(item));
    queue.onAck((ack) => journal.settle(ack));
  }
  return new SteeringBridge({ sessionId, cwd: "/", queue });
}

async function drain10k(journal) {
  const bridge = bigBridge("bench-10k", journal);
  let acks = 0;
  bridge.onAck(() => acks++);
  const samples = [];
  for (let round = 0; round < 25; round++) {
    for (let i = 0; i < 10_000; i++) {
      bridge.enqueue({
        content: `item ${i}: please keep the public API stable`,
        mode: i % 3 ? "finish_step" : "interrupt_immediate",
        kind: i % 5 ? "message" : "reminder",
      });
    }
    // The enqueue phase's garbage is not the drain's cost (in a session, items arrive spread over time).
    globalThis.gc?.();
    const t = performance.now();
    const result = await bridge.drain("iteration_start", round + 1);
    samples.push(performance.now() - t);
    if (result.messages.length !== 10_000) throw new Error(`drained ${result.messages.length}, expected 10000`);
  }
  if (acks !== 25 * 10_000) throw new Error(`acknowledged ${acks}`);
  return stats(samples);
}

async function journaled() {
  const dir = mkdtempSync(join(tmpdir(), "steer-bench-journal-"));
  const { journal } = QueueJournal.open(join(dir, "bench.journal"));
  try {
    const bridge = bigBridge("bench-journal", journal);
    const accept = [];
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < 5000; i++) {
        const t = performance.now();
        bridge.inject({ content: `accepted ${i}: keep the public API stable`, mode: "finish_step", kind: "message" });
        accept.push((performance.now() - t) * 1000);
      }
      await bridge.drain("iteration_start", round + 1);
    }
    const drain = await drain10k(journal);
    return { accept: stats(accept), drain };
  } finally {
    journal.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

function largeJournalOpen() {
  const dir = mkdtempSync(join(tmpdir(), "steer-bench-large-"));
  const path = join(dir, "large.journal");
  try {
    const samples = [];
    let bytes = 0;
    for (let round = 0; round < 3; round++) {
      const fd = openSync(path, "w");
      let batch = "";
      for (let i = 0; i < 500_000; i++) {
        const item = {
          id: `st_${round}_${i}`,
          content: `item ${i}: please keep the public API stable`,
          kind: "message",
          channel: "bridge",
          mode: "finish_step",
          leftover: "carry",
          source: "pi-steer",
          enqueuedAt: 1_700_000_000_000 + i,
        };
        batch += `${JSON.stringify({ t: "accept", item })}\n${JSON.stringify({ t: "settle", id: item.id, state: "delivered" })}\n`;
        if (batch.length > 1 << 20) {
          writeSync(fd, batch);
          batch = "";
        }
      }
      writeSync(fd, batch);
      closeSync(fd);
      bytes = statSync(path).size;
      globalThis.gc?.();
      const t = performance.now();
      const { journal, state } = QueueJournal.open(path);
      samples.push((performance.now() - t) * 1000);
      journal.close();
      if (state.settled.size !== 10_000 || state.pending.length !== 0)
        throw new Error("the large journal replayed wrong");
    }
    return { ...stats(samples), bytes };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function storeOpen() {
  const dir = mkdtempSync(join(tmpdir(), "steer-bench-store-"));
  try {
    for (let i = 0; i < 1000; i++) QueueJournal.open(join(dir, `saved-${i}.journal`)).journal.close();
    const sessionFile = join(dir, "not-yet.jsonl");
    for (let i = 0; i < 20; i++) markUnsaved(dir, `running-${i}`, { cwd: "/p", sessionFile, pid: process.pid });
    const samples = [];
    for (let round = 0; round < 200; round++) {
      const sessionId = `bench-${round}`;
      const t = performance.now();
      const store = openSessionStore(dir, { sessionId, cwd: "/p", sessionFile });
      samples.push((performance.now() - t) * 1000);
      if (!store.owned || store.adopted !== 0) throw new Error("the bench store adopted something");
      store.close();
      rmSync(join(dir, `${sessionId}.journal`));
      rmSync(join(dir, "unsaved", `${sessionId}.json`));
    }
    return stats(samples);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function socketBench() {
  const agentDir = mkdtempSync(join(tmpdir(), "steer-bench-"));
  const bridge = new SteeringBridge({ sessionId: "bench-socket", cwd: "/" });
  const endpoint = await startEndpoint({ bridge, agentDir });
  const client = await SteeringClient.connect(endpoint.socketPath);
  try {
    for (let i = 0; i < 500; i++) await client.inject({ content: "warm", mode: "finish_step" });
    await bridge.drain("iteration_start", 1);
    const roundTrip = [];
    for (let i = 0; i < 3000; i++) {
      const t = performance.now();
      await client.inject({ content: `round trip ${i}`, mode: "finish_step" });
      roundTrip.push((performance.now() - t) * 1000);
      if (i % 500 === 499) await bridge.drain("iteration_start", 2); // stay under the 1,000-item limit
    }
    await bridge.drain("iteration_start", 2);

    await client.subscribe({ checkpoints: false, acks: true });
    const toDelivery = [];
    for (let i = 0; i < 1000; i++) {
      const t = performance.now();
      const acked = new Promise((resolve) => {
        const off = client.on("steer/ack", (ack) => {
          off();
          resolve(ack);
        });
      });
      await client.inject({ content: `delivery ${i}`, mode: "interrupt_immediate" });
      await bridge.drain("pre_tool_dispatch", 3, [{ id: "c1", name: "bash" }]);
      await acked;
      toDelivery.push((performance.now() - t) * 1000);
    }
    return { roundTrip: stats(roundTrip), toDelivery: stats(toDelivery) };
  } finally {
    await client.close();
    await endpoint.close();
    rmSync(agentDir, { recursive: true, force: true });
  }
}

const empty = await emptyPass();
const tenK = await drain10k();
const socket = await socketBench();
const journal = await journaled();
const store = storeOpen();
const large = largeJournalOpen();
const emptyUs = empty.p50 * 1000;
const rows = [
  { case: "empty checkpoint pass (1 seam, nothing queued)", p50_us: emptyUs, p99_us: empty.p99 * 1000, ratio: 1 },
  {
    case: "10,000 items drained in one seam",
    p50_us: tenK.p50 * 1000,
    p99_us: tenK.p99 * 1000,
    ratio: (tenK.p50 * 1000) / emptyUs,
  },
  {
    case: "inject round trip over the socket",
    p50_us: socket.roundTrip.p50,
    p99_us: socket.roundTrip.p99,
    ratio: socket.roundTrip.p50 / emptyUs,
  },
  {
    case: "inject -> next seam -> ack at the client",
    p50_us: socket.toDelivery.p50,
    p99_us: socket.toDelivery.p99,
    ratio: socket.toDelivery.p50 / emptyUs,
  },
  {
    case: "inject in-process, accept line on disk (journal)",
    p50_us: journal.accept.p50,
    p99_us: journal.accept.p99,
    ratio: journal.accept.p50 / emptyUs,
  },
  {
    case: "10,000 items drained, settle lines on disk",
    p50_us: journal.drain.p50 * 1000,
    p99_us: journal.drain.p99 * 1000,
    ratio: (journal.drain.p50 * 1000) / emptyUs,
  },
  {
    case: `large journal open (1 M lines, ${(large.bytes / 1e6).toFixed(0)} MB)`,
    p50_us: large.p50,
    p99_us: large.p99,
    ratio: large.p50 / emptyUs,
  },
  {
    case: "new session's store open (orphan scan)",
    p50_us: store.p50,
    p99_us: store.p99,
    ratio: store.p50 / emptyUs,
  },
];
const withinBudget = tenK.p50 <= BUDGET_10K_MS;
if (json) {
  process.stdout.write(`${JSON.stringify({ rows, budget10kMs: BUDGET_10K_MS, withinBudget, loadAverage })}\n`);
} else {
  const fmt = (us) => (us >= 1000 ? `${(us / 1000).toFixed(2)} ms` : `${us.toFixed(1)} µs`);
  console.log("steering-bridge bench (p50 / p99; ratio = p50 / empty checkpoint pass)");
  for (const row of rows)
    console.log(
      `  ${row.case.padEnd(48)} ${fmt(row.p50_us).padStart(10)} ${fmt(row.p99_us).padStart(10)}  x${row.ratio.toFixed(0)}`,
    );
  console.log(`  machine load average ${loadAverage.toFixed(1)} (numbers scale with it)`);
  console.log(
    `  10,000-item drain p50 ${tenK.p50.toFixed(2)} ms: ${withinBudget ? "within" : "OVER"} the ${BUDGET_10K_MS} ms budget`,
  );
}
