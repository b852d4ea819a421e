// Loaded by `pi -e` in the real-CLI bench: cache-ttl-view as users load it (its bundled pi entry, one module; pi
// 1.6's bundled CLI transforms it with jiti), with marks around its handlers and the collector's pauses inside its context pass. Writes one JSON line per measurement to $CACHE_TTL_BENCH_PROBE_OUT.
// $CACHE_TTL_BENCH_IDLE_MS: pi waits that long before the prompt goes out, as it waits for a user's typing (print
// mode sends it at once): the extension's idle preparation then runs first. $CACHE_TTL_BENCH_ADVANCE_S: after each turn
// the extension's clock moves on that many seconds, so the next request of the same process finds the cache expired
// again (a running session's prune pass).

import { appendFileSync } from "node:fs";
import { PerformanceObserver } from "node:perf_hooks";
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";
import { sessionBranch } from "@pi-rails/agent-core/kit";
// @ts-expect-error: the bundle has no declarations of its own; its API is src/extension.ts's (typed below)
import * as bundle from "../dist/pi/extension.js";
import type * as Source from "../src/extension.ts";

const { CLOCK_OFFSET_ENV, createCacheTtlView } = bundle as typeof Source;

export default function realCliProbe(pi: ExtensionAPI): void {
  const out = process.env["CACHE_TTL_BENCH_PROBE_OUT"];
  const record = (line: Record<string, unknown>) => {
    if (out) appendFileSync(out, `${JSON.stringify(line)}\n`);
  };
  let begin = 0;
  let pruned: number | undefined;
  let prepared = false;
  const idleMs = Number(process.env["CACHE_TTL_BENCH_IDLE_MS"] ?? 0);
  const advanceSeconds = Number(process.env["CACHE_TTL_BENCH_ADVANCE_S"] ?? 0);
  // Registered first: runs just before the extension's own handler of the same event.
  pi.on("session_start", () => {
    begin = performance.now();
  });
  // The view is drawn in `context_with_system`: the mark is set there, just before the extension's own handler.
  pi.on("context_with_system", () => {
    begin = performance.now();
  });
  // The fold of a prune into the view's state, done once the answer begins (after the request went out).
  let settleBegin = 0;
  pi.on("message_start", () => {
    settleBegin = performance.now();
  });
  createCacheTtlView({
    onRender: (result) => {
      pruned = result.plan?.ids.length;
      prepared = result.prepared;
    },
  })(pi);
  if (idleMs > 0)
    pi.on("before_agent_start", async () => {
      await new Promise((done) => setTimeout(done, idleMs));
    });
  if (advanceSeconds > 0)
    pi.on("turn_end", () => {
      process.env[CLOCK_OFFSET_ENV] = String(Number(process.env[CLOCK_OFFSET_ENV] ?? 0) + advanceSeconds);
    });
  pi.on("session_start", (_event, ctx) => {
    const handlerMs = performance.now() - begin;
    // Side by side: the branch read the handler does now, and pi's getBranch() it did before (quadratic in pi 0.73.1;
    // pi 1.6's is linear).
    let t = performance.now();
    const entries = sessionBranch(ctx.sessionManager).length;
    const walkMs = performance.now() - t;
    t = performance.now();
    ctx.sessionManager.getBranch();
    const getBranchMs = performance.now() - t;
    record({ event: "session_start", handlerMs, entries, walkMs, getBranchMs, at: performance.now() });
  });
  // The collector's pauses (start, duration), to tell how much of a pass was spent in them. The observer hears of a
  // pause some turns of the event loop after it: each pass is recorded once the agent's run has ended.
  const pauses: [number, number][] = [];
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) pauses.push([e.startTime, e.duration]);
  }).observe({ entryTypes: ["gc"] });
  const passes: { from: number; passMs: number; line: Record<string, unknown> }[] = [];
  pi.on("context_with_system", (event) => {
    const passMs = performance.now() - begin;
    passes.push({ from: begin, passMs, line: { passMs, messages: event.messages.length, pruned, prepared } });
  });
  pi.on("agent_end", () => {
    for (const { from, passMs, line } of passes.splice(0)) {
      const within = pauses.filter(([start]) => start >= from && start < from + passMs);
      record({ event: "context", ...line, gcMs: within.reduce((sum, [, ms]) => sum + ms, 0) });
    }
  });
  pi.on("message_start", (event) => {
    if (event.message.role === "assistant") record({ event: "settle", settleMs: performance.now() - settleBegin });
  });
}
