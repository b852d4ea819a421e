// pnpm bench: over 1k / 10k / 100k messages, the prune pass of a running session (the next expiry: the view pruned
// STEP messages ago and reuses that analysis and view), the cold prune pass (a view with nothing cached prunes the
// whole session at once: the first request after loading a never-pruned session), the warm path (cache warm:
// re-apply the sticky view to the next request), and the memory the view keeps between requests against one deep
// copy of the context (what pi's context event hands over), side by side in one run.
// Run with --expose-gc (the package's `pnpm bench` does) for the memory column.

import { execFileSync } from "node:child_process";
import { loadavg } from "node:os";
import { fileURLToPath } from "node:url";
import { runModuleLoadBench } from "../../../scripts/bench-module-load.mjs";
import { defaultSettings, SessionView } from "../dist/index.js";
import { benchSession } from "./workload.mjs";

// `--max <messages>`: only the sizes up to it (a quick run: `--max 10000` skips the 100k session).
const maxAt = process.argv.indexOf("--max");
const MAX = maxAt > 0 ? Number(process.argv[maxAt + 1]) : Number.POSITIVE_INFINITY;
if (!(MAX > 0)) throw new Error(`--max needs a number of messages above 0 (got ${process.argv[maxAt + 1]})`);
const SIZES = [1_000, 10_000, 100_000].filter((size) => size <= MAX);
const settings = defaultSettings({ ttlSeconds: 300 });
const json = process.argv.includes("--json");

/** Best and median ms of `fn` (after `setup`, untimed), at least 3 runs, more while under `minMs`. */
function timed(fn, setup = () => undefined, minMs = 1500, maxRuns = 40) {
  const times = [];
  const t0 = performance.now();
  while (times.length < 3 || (performance.now() - t0 < minMs && times.length < maxRuns)) {
    const input = setup();
    const t = performance.now();
    fn(input);
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  return { best: times[0], median: times[Math.floor(times.length / 2)] };
}

/** Messages between the previous expiry and this one in the running-session pass (about ten turns). */
const STEP = 100;

// Warm up the JIT on a different session.
{
  const { messages, lastAt } = benchSession(5_000, 5);
  for (let k = 0; k < 5; k++)
    new SessionView(settings).render(structuredClone(messages), { now: lastAt + 3_600_000, ttlSeconds: 300 });
}

/** Heap bytes after full collections (needs --expose-gc). */
function heap() {
  globalThis.gc?.();
  globalThis.gc?.();
  return process.memoryUsage().heapUsed;
}

/** Views measured at once: each one's share of the heap they keep together (a single view is within the noise). */
const KEPT_VIEWS = 4;

/**
 * One deep copy of the context, and what a view keeps after a prune pass once the request's copy is gone (the
 * extension settles the prune when the answer begins): `KEPT_VIEWS` views, each pruned on its own copy, are kept
 * alive while the heap is measured, and the heap before them is subtracted (measuring a view against the heap after
 * dropping it inside the same function can miss it: the frame may still hold it).
 */
function memory(messages, lastAt) {
  if (!globalThis.gc) return { deepMb: Number.NaN, keptMb: Number.NaN };
  const h0 = heap();
  const hold = [structuredClone(messages)];
  const deep = heap() - h0;
  hold.length = 0;
  const before = heap();
  const views = [];
  for (let k = 0; k < KEPT_VIEWS; k++) {
    const view = new SessionView(settings);
    view.load([{ kind: "touch", at: lastAt, ttlSeconds: 300 }]);
    view.render(structuredClone(messages), { now: lastAt + 10 * 60_000, ttlSeconds: 300 });
    view.settle();
    views.push(view);
  }
  const kept = (heap() - before) / views.length;
  return { deepMb: deep / 1e6, keptMb: kept / 1e6 };
}

const rows = [];
for (const size of SIZES) {
  const { messages, lastAt } = benchSession(size);
  // What a context handler is given: pi's runner hands it a structuredClone of the context (fresh objects and
  // strings, which the passes read measurably slower than the workload's own literals). Each request is a copy of
  // this array; the session's own messages (what `prepare` reads) stay the workload's.
  const context = structuredClone(messages);
  const contextMb = JSON.stringify(messages).length / 1e6;
  const { deepMb, keptMb } = memory(messages, lastAt);
  // For scale: what pi itself spends on every request of this session before any context handler runs (its
  // runner hands extensions a structuredClone of the context).
  const piClone = timed(
    () => structuredClone(messages),
    () => undefined,
    0,
    3,
  );
  const expiredAt = lastAt + 10 * 60_000;
  const fresh = () => {
    const view = new SessionView(settings);
    view.load([{ kind: "touch", at: lastAt, ttlSeconds: 300 }]);
    return view;
  };
  let pruned = 0;
  // More runs at 100k: a young collection more or less moves a single run by 10-20 ms.
  const cold = timed(
    () => {
      const r = fresh().render(context.slice(), { now: expiredAt, ttlSeconds: 300 });
      pruned = r.plan?.ids.length ?? 0;
    },
    () => undefined,
    size >= 100_000 ? 4000 : 1500,
  );
  // The prune's ids folded into the view's state: after the request went out (the extension settles when the answer
  // begins), timed on its own.
  const settling = timed(
    (view) => view.settle(),
    () => {
      const view = fresh();
      view.render(context.slice(), { now: expiredAt, ttlSeconds: 300 });
      return view;
    },
    1500,
    size >= 100_000 ? 5 : 40,
  );
  // The same pass as the first request of a fresh process (nothing compiled yet, pi's structuredClone as input).
  const first = Array.from({ length: 3 }, () =>
    JSON.parse(
      execFileSync(process.execPath, [new URL("./first-request.mjs", import.meta.url).pathname, String(size)], {
        encoding: "utf8",
      }),
    ),
  );
  if (first.some((f) => f.pruned !== pruned)) throw new Error("bench: the fresh-process pass pruned differently");
  const firstMs = first.map((f) => f.ms).sort((a, b) => a - b);
  // Resumed: the same first request after `prepare` ran while pi waited for the prompt (the extension does it after
  // session_start); the request's list is the session plus the new prompt. The preparation is timed on its own.
  const resumed = messages.slice(0, -1);
  let preparedPruned = 0;
  const prepared = timed(
    (view) => {
      const r = view.render(context.slice(), { now: expiredAt, ttlSeconds: 300 });
      preparedPruned = r.plan?.ids.length ?? 0;
    },
    () => {
      const view = fresh();
      view.prepare(resumed);
      return view;
    },
    1500,
    size >= 100_000 ? 8 : 40,
  );
  const preparing = timed(
    () => fresh().prepare(resumed),
    () => undefined,
    1500,
    size >= 100_000 ? 5 : 40,
  );
  if (preparedPruned !== pruned) throw new Error(`bench: prepared pruned ${preparedPruned}, cold ${pruned}`);
  // Running session: pruned at the expiry before (STEP messages ago, the request then ended on a user message),
  // then this expiry prunes what became eligible since.
  let cut = size - STEP;
  while (messages[cut - 1].role !== "user") cut--;
  let steadyPruned = 0;
  const steady = timed(
    (view) => {
      const r = view.render(context.slice(), { now: expiredAt + 20 * 60_000, ttlSeconds: 300 });
      steadyPruned = r.plan?.ids.length ?? 0;
    },
    () => {
      const view = fresh();
      view.render(context.slice(0, cut), { now: expiredAt, ttlSeconds: 300 });
      // As the extension does once the answer begins.
      view.settle();
      return view;
    },
    1500,
    size >= 100_000 ? 5 : 40,
  );
  // Reloaded: the first request of the next process (pi -p --continue) while the cache is warm, in a session pruned
  // before: a new view loads the persisted entries and draws every pruned block of the request's messages again.
  const before = fresh();
  const persisted = [
    { kind: "touch", at: lastAt, ttlSeconds: 300 },
    ...before.render(context.slice(), { now: expiredAt, ttlSeconds: 300 }).entries,
    before.touchEntry(),
  ];
  // The context pass only: the extension reads the entries back at session_start (pi's start-up), timed on its own
  // as the real CLI's figures separate them.
  let reloadedPruned = -1;
  const reloaded = timed(
    (view) => {
      const r = view.render(context.slice(), { now: expiredAt + 60_000, ttlSeconds: 300 });
      reloadedPruned = r.plan ? -1 : view.state.pruned.size;
    },
    () => {
      const view = new SessionView(settings);
      view.load(persisted);
      return view;
    },
    1500,
    size >= 100_000 ? 8 : 40,
  );
  const loading = timed(
    () => new SessionView(settings).load(persisted),
    () => undefined,
    1500,
    size >= 100_000 ? 8 : 40,
  );
  if (reloadedPruned !== pruned)
    throw new Error(`bench: the reloaded view holds ${reloadedPruned} pruned, not ${pruned}`);
  // Warm: the view after that prune, next request = same messages + the model's answer + a new prompt.
  const view = fresh();
  view.render(context.slice(), { now: expiredAt, ttlSeconds: 300 });
  view.settle();
  const next = [
    ...context,
    { role: "assistant", content: [{ type: "text", text: "ok" }], timestamp: lastAt + 1 },
    { role: "user", content: "more", timestamp: lastAt + 2 },
  ];
  // pi hands every request a fresh array: copies are made before timing, the render patches them in place.
  const copies = Array.from({ length: 40 }, () => next.slice());
  let reused = false;
  let at = expiredAt;
  let k = 0;
  const warm = timed(() => {
    at += 1000;
    reused = view.render(copies[k++ % copies.length], { now: at, ttlSeconds: 300 }).reused;
  });
  if (!reused) throw new Error("bench: the warm path did not reuse the cached view");
  rows.push({
    messages: size,
    contextMb,
    deepMb,
    keptMb,
    keptShare: keptMb / deepMb,
    pruned,
    steadyPruned,
    steadyMs: steady.best,
    steadyMedianMs: steady.median,
    passMs: cold.best,
    passMedianMs: cold.median,
    settleMs: settling.best,
    firstMs: firstMs[0],
    firstMedianMs: firstMs[1],
    usPerMessage: (cold.best * 1000) / size,
    reloadedMs: reloaded.best,
    reloadedMedianMs: reloaded.median,
    loadMs: loading.best,
    preparedMs: prepared.best,
    preparedMedianMs: prepared.median,
    prepareMs: preparing.best,
    warmMs: warm.best,
    piCloneMs: piClone.best,
    warmShare: warm.best / cold.best,
  });
}

// Start-up: the extension's modules as pi loads them (jiti), the unbundled source against the bundled pi entry.
const moduleLoad = runModuleLoadBench(fileURLToPath(new URL("..", import.meta.url)));

if (json) {
  process.stdout.write(`${JSON.stringify({ rows, moduleLoad }, null, 2)}\n`);
} else {
  const fmt = (x, d = 2) => x.toFixed(d);
  console.log(
    "cache-ttl-view bench (ms: best / median of runs; node",
    process.version,
    "; load",
    loadavg()[0].toFixed(1),
    ")",
  );
  console.log(
    "messages  context MB  pi's own clone ms  running-session pass ms (pruned)  cold pass ms (pruned)  (settled after ms)  µs/message  first request of a process ms  resumed, prepared ms  (idle prepare ms)  reloaded, pruned before ms  (session_start load ms)  warm path ms  warm/cold  kept MB  kept/deep copy",
  );
  for (const r of rows) {
    console.log(
      [
        String(r.messages).padStart(8),
        fmt(r.contextMb, 1).padStart(11),
        fmt(r.piCloneMs, 1).padStart(18),
        `${fmt(r.steadyMs)} / ${fmt(r.steadyMedianMs)} (${r.steadyPruned})`.padStart(33),
        `${fmt(r.passMs)} / ${fmt(r.passMedianMs)} (${r.pruned})`.padStart(22),
        `(${fmt(r.settleMs)})`.padStart(19),
        fmt(r.usPerMessage, 3).padStart(11),
        `${fmt(r.firstMs)} / ${fmt(r.firstMedianMs)}`.padStart(30),
        `${fmt(r.preparedMs)} / ${fmt(r.preparedMedianMs)}`.padStart(21),
        `(${fmt(r.prepareMs)})`.padStart(18),
        `${fmt(r.reloadedMs)} / ${fmt(r.reloadedMedianMs)}`.padStart(27),
        `(${fmt(r.loadMs)})`.padStart(24),
        fmt(r.warmMs, 4).padStart(13),
        `${fmt(r.warmShare * 100, 3)}%`.padStart(10),
        fmt(r.keptMb, 1).padStart(8),
        `${fmt(r.keptShare, 3)} of ${fmt(r.deepMb, 0)} MB`.padStart(16),
      ].join(" "),
    );
  }
  const big = rows.find((r) => r.messages === 100_000);
  const okPass = big !== undefined && big.steadyMs < 150 && big.preparedMs < 150;
  const okWarm = rows.every((r) => r.warmShare < 0.01);
  const okMem = rows.every((r) => !(r.keptShare > 0.5));
  if (!big) console.log("goal (issue 22) not judged: it needs the 100k session (a run without --max)");
  else
    console.log(
      `goal: a 100k pass under 150 ms (in this process; the real CLI's first request of a process follows): running session ${okPass ? "yes" : "NO"} (${fmt(big.steadyMs)} ms), resumed ${big.preparedMs < 150 ? "yes" : "NO"} (${fmt(big.preparedMs)} ms, prepared while idle), cold ${big.passMs < 150 ? "yes" : "no"} (${fmt(big.passMs)} ms: a request that comes before the preparation, its prune folded into the state after it in ${fmt(big.settleMs)} ms; ${fmt(big.firstMs)} ms as the first request of a fresh process), reloaded ${big.reloadedMs < 150 ? "yes" : "no"} (${fmt(big.reloadedMs)} ms); ` +
        `warm path under 1% of a pass: ${okWarm ? "yes" : "NO"}; kept between requests at most half a deep copy: ${okMem ? "yes" : "NO"} (${fmt(big.keptShare, 3)})`,
    );
  console.log(`\nmodule load through pi's loader (jiti), fresh processes, ${moduleLoad.rounds} rounds:`);
  console.table(moduleLoad.rows);
}
