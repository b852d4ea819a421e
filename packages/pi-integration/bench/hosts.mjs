// pnpm bench (pi-integration): the two hosts side by side, in the real pi CLI on loopback: the patched pi (the
// workspace's `pi`, in-loop stream hook and seams) and the published pi 1.6.0 (the extensions on pi's public events).
// - TTSR interrupt: from the moment the server wrote the delta that completes a rule's match to the moment the
//   retry's request reached the server (abort, inject, the new request leaving pi);
// - steering drain: an `interrupt_immediate` item is in while the model streams a bash call; from the server's last
//   delta of that answer to the next request reaching it (the pre-dispatch seam on the patched pi, `tool_call`
//   blocking on stock pi).
// Both clocks are the server's (performance.now() in this process), so no cross-process clock skew. The figure is a
// latency, not CPU: it includes pi's own work between the two (persisting the aborted turn, building the request).
// Run: `pnpm -C packages/pi-integration bench` (turbo's `pnpm bench` runs it with the others); `--json` for JSON.
import { spawn } from "node:child_process";
import { loadavg } from "node:os";
import { join } from "node:path";
import {
  installStockPi,
  prepareCliHome,
  resolvePiCli,
  runPi,
  startModelServer,
  startProviderServer,
} from "@pi-rails/testkit";

const ROOT = join(import.meta.dirname, "..", "..", "..");
const TTSR = join(ROOT, "extensions", "pi-ttsr");
const STEERING = join(ROOT, "extensions", "steering-bridge");
const PI_STEER = join(STEERING, "bin", "pi-steer.mjs");
const RUNS = Number(process.env.HOSTS_BENCH_RUNS ?? 5);
const json = process.argv.includes("--json");

const PREFIX = "To load the user you can call the helper directly: const user = await ";
const VIOLATING = `${PREFIX}legacyFetch("/api/user"); ${"It also caches the response. ".repeat(40)}`;
const RULE = `---\ndescription: legacyFetch() was removed\ncondition: "legacyFetch\\\\("\nscope: text\n---\nUse fetchV2(url).\n`;
const CHUNK = 4;
/** The delta that completes /legacyFetch\(/: the match ends after "legacyFetch(". */
const MATCH_DELTA = Math.ceil((PREFIX.length + "legacyFetch(".length) / CHUNK) - 1;

const median = (xs) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
};

async function ttsrInterrupt(piCli) {
  const server = await startModelServer({
    script: (request) =>
      JSON.stringify(request.messages).includes("rule_violation")
        ? { text: "Use fetchV2." }
        : { text: VIOLATING, chunkSize: CHUNK, delayMs: 5 },
  });
  const home = prepareCliHome({ server, files: { ".pi/rules/no-legacy-fetch.md": RULE } });
  try {
    const run = await runPi(["-e", TTSR, "-p", "load the user"], { home, piCli, timeoutMs: 120_000 });
    if (run.code !== 0 || server.requests.length < 2) throw new Error(`pi exited ${run.code}: ${run.stderr}`);
    const [first, retry] = server.requests;
    const matched = first.deltaTimes[MATCH_DELTA];
    if (matched === undefined) throw new Error(`the stream was cut before delta ${MATCH_DELTA}`);
    return retry.receivedAt - matched;
  } finally {
    await server.close();
    home.dispose();
  }
}

function steer(home, args) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [PI_STEER, ...args], { cwd: home.cwd, env: home.env, stdio: "ignore" });
    child.on("close", (code) => resolve(code));
  });
}

async function steeringDrain(piCli) {
  let release = () => {};
  const held = new Promise((resolve) => {
    release = resolve;
  });
  const server = await startProviderServer("openai-completions", {
    script: async (_request, index) => {
      if (index > 0) return { text: "Stopped." };
      await held;
      return { toolCalls: [{ id: "touch", name: "bash", arguments: { command: "true" } }], chunkSize: 8 };
    },
  });
  const home = prepareCliHome({ server });
  try {
    const pi = runPi(["-e", STEERING, "-p", "touch"], { home, piCli, timeoutMs: 120_000 });
    await server.waitForRequests(1, 60_000);
    for (let tries = 0; (await steer(home, ["inject", "STOP", "--mode", "interrupt_immediate"])) !== 0; tries++) {
      if (tries > 300) throw new Error("pi-steer never reached the session");
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    release();
    const run = await pi;
    if (run.code !== 0 || server.requests.length < 2) throw new Error(`pi exited ${run.code}: ${run.stderr}`);
    const [first, next] = server.requests;
    return next.receivedAt - first.deltaTimes.at(-1);
  } finally {
    release();
    await server.close();
    home.dispose();
  }
}

const hosts = [
  { name: "patched pi", cli: resolvePiCli() },
  { name: "stock pi 1.6.0", cli: installStockPi({ shared: true }).cli },
];
const rows = [];
for (const [what, measure] of [
  ["TTSR: violating delta → retry's request", ttsrInterrupt],
  ["steering: last delta → next request (interrupt_immediate)", steeringDrain],
]) {
  const row = { what };
  for (const host of hosts) {
    await measure(host.cli); // warm-up: the first run of a process pays disk and compile caches
    const samples = [];
    for (let i = 0; i < RUNS; i++) samples.push(await measure(host.cli));
    row[host.name] = { median: median(samples), best: Math.min(...samples), runs: samples.length };
  }
  rows.push(row);
}
if (json) {
  console.log(JSON.stringify({ load: loadavg()[0], rows }, null, 2));
} else {
  console.log(`pi-integration hosts bench (load ${loadavg()[0].toFixed(1)}, ${RUNS} runs each, median / best)`);
  const [a, b] = hosts.map((host) => host.name);
  console.log(`| | ${a} | ${b} | ${b} / ${a} |\n|---|---:|---:|---:|`);
  for (const row of rows) {
    const cell = (r) => `${r.median.toFixed(1)} / ${r.best.toFixed(1)} ms`;
    console.log(`| ${row.what} | ${cell(row[a])} | ${cell(row[b])} | ${(row[b].median / row[a].median).toFixed(2)}x |`);
  }
}
