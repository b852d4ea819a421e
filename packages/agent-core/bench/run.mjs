#!/usr/bin/env node
// Side-by-side cost of the patched loop against the unpatched one on a long faux stream (one process, interleaved
// runs, medians). Goal: with no hook registered, at most 2% overhead. Also shown: the cost of a no-op stream hook, and
// of running every tool call through the cancel registry (a batch of quick tool calls).
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { fauxAssistantMessage, fauxToolCall } from "@earendil-works/pi-ai";
import { registerFauxProvider, streamSimple } from "@earendil-works/pi-ai/compat";
import { ensureUpstreamCore } from "../scripts/core-files.mjs";

const patched = await import("../dist/index.js");
const upstream = await import(pathToFileURL(join(ensureUpstreamCore(), "dist", "index.js")).href);

const RESPONSE_CHARS = Number(process.env.BENCH_CHARS ?? 256 * 1024);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 9);
const TOOL_CALLS = Number(process.env.BENCH_TOOL_CALLS ?? 500);
const text = "The quick brown fox jumps over the lazy dog; "
  .repeat(Math.ceil(RESPONSE_CHARS / 45))
  .slice(0, RESPONSE_CHARS);
const faux = registerFauxProvider({ tokenSize: { min: 1, max: 1 }, models: [{ id: "bench" }] });

async function once(AgentImpl, options = {}) {
  faux.setResponses([fauxAssistantMessage(text)]);
  const agent = new AgentImpl({
    streamFn: streamSimple,
    initialState: { model: faux.getModel(), systemPrompt: "bench" },
    ...options,
  });
  let updates = 0;
  agent.subscribe((event) => {
    if (event.type === "message_update") updates++;
  });
  const start = process.hrtime.bigint();
  await agent.prompt("go");
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  if (updates < RESPONSE_CHARS / 4) throw new Error(`expected ~${RESPONSE_CHARS / 4} deltas, saw ${updates}`);
  return ms;
}

const noop = {
  name: "noop",
  label: "noop",
  description: "does nothing",
  parameters: { type: "object", properties: {} },
  execute: async () => ({ content: [{ type: "text", text: "ok" }], details: {} }),
};
const batch = Array.from({ length: TOOL_CALLS }, (_, i) => fauxToolCall("noop", {}, { id: `call_${i}` }));

/** One run with a batch of TOOL_CALLS quick tool calls: measures the per-call cost of the cancel registry. */
async function toolBatch(AgentImpl) {
  faux.setResponses([fauxAssistantMessage(batch, { stopReason: "toolUse" }), fauxAssistantMessage("done")]);
  const agent = new AgentImpl({
    streamFn: streamSimple,
    initialState: { model: faux.getModel(), systemPrompt: "bench", tools: [noop] },
  });
  let results = 0;
  agent.subscribe((event) => {
    if (event.type === "tool_execution_end") results++;
  });
  const start = process.hrtime.bigint();
  await agent.prompt("go");
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  if (results !== TOOL_CALLS) throw new Error(`expected ${TOOL_CALLS} tool results, saw ${results}`);
  return ms;
}

const variants = {
  "upstream loop": () => once(upstream.Agent),
  "patched loop, no hook": () => once(patched.Agent),
  "patched loop, no-op hook": () => once(patched.Agent, { hooks: { onStreamText: () => undefined } }),
};
// Tool batches are short: measured in their own rounds (after the long streams, whose garbage would otherwise
// land on them), in alternating order, with more rounds.
const toolVariants = {
  [`upstream, ${TOOL_CALLS} tool calls`]: () => toolBatch(upstream.Agent),
  [`patched, ${TOOL_CALLS} tool calls`]: () => toolBatch(patched.Agent),
};
const samples = Object.fromEntries([...Object.keys(variants), ...Object.keys(toolVariants)].map((name) => [name, []]));
for (const run of Object.values(variants)) await run(); // warm-up
for (let round = 0; round < ROUNDS; round++) {
  for (const [name, run] of Object.entries(variants)) samples[name].push(await run());
}
for (const run of Object.values(toolVariants)) await run(); // warm-up
for (let round = 0; round < ROUNDS * 4; round++) {
  const order = Object.entries(toolVariants);
  if (round % 2 === 1) order.reverse();
  for (const [name, run] of order) samples[name].push(await run());
}
faux.unregister();

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
};
const base = median(samples["upstream loop"]);
const toolBase = median(samples[`upstream, ${TOOL_CALLS} tool calls`]);
console.log(
  `agent-core bench: ${(RESPONSE_CHARS / 1024).toFixed(0)} KB faux response in 4-char deltas, ${ROUNDS} interleaved rounds, median`,
);
console.log("variant                        median ms   vs upstream");
for (const [name, values] of Object.entries(samples)) {
  const m = median(values);
  const reference = name.includes("tool calls") ? toolBase : base;
  const ratio = ((m / reference - 1) * 100).toFixed(1);
  console.log(
    `${name.padEnd(30)} ${m.toFixed(1).padStart(9)}   ${name.startsWith("upstream") ? "      —" : `${ratio.padStart(6)}%`}`,
  );
}
const overhead = (median(samples["patched loop, no hook"]) / base - 1) * 100;
console.log(`no-hook overhead: ${overhead.toFixed(1)}% (goal: at most 2%) ${overhead <= 2 ? "OK" : "OVER"}`);
const perCall = (median(samples[`patched, ${TOOL_CALLS} tool calls`]) - toolBase) / TOOL_CALLS;
console.log(`cancel registry: ${(perCall * 1000).toFixed(1)} µs per tool call against upstream`);
