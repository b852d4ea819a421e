// cache-ttl-view with pi 1.6's own cache warming, on a target's real pi CLI (an installed stock pi with the
// extensions from `pi install`, in `pnpm demo --installed`): with warming off, the request after the TTL prunes;
// while pi keeps the cache warm, the view counts pi's refreshes and prunes nothing. Returns the facts it saw; the
// caller prints and checks them (`cacheWarmingHeld`).
//
// The seams are pi's and the view's own: the model declares an 11 s cache (`promptCache` in models.json), so pi
// refreshes it 1 s after each request, by its own timer, during a run as well (a tool call longer than the TTL);
// the view's clock can be moved with CACHE_TTL_VIEW_CLOCK_OFFSET_SECONDS. Nothing waits for luck: a run that should
// stay warm sleeps past the TTL in a tool call, and the view must have counted pi's refreshes to keep the prefix.
//
//   pnpm exec node scripts/demo/cache-warming.mjs      the checkout's extension on the published pi 1.6
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { piOptions, stockTarget } from "./target.mjs";

const testkit = (root) => import(join(root, "packages/testkit/dist/index.js"));

/** The view's clock seam (`CLOCK_OFFSET_ENV` of cache-ttl-view). */
const CLOCK_OFFSET = "CACHE_TTL_VIEW_CLOCK_OFFSET_SECONDS";
/** pi refreshes at 1 s (`getCacheWarmingDelayMs(11_000)`); the view's TTL is the same 11 s, 5 s usable. */
const MODEL = {
  promptCache: { short: 11 },
  // A cache write 10^6 times a read: a refresh pays even against pruning, so the view lets pi warm.
  cost: { input: 100, output: 0, cacheRead: 0.01, cacheWrite: 10_000 },
};
const PROJECT = { cacheTtl: { keepRecentTurns: 1, bufferSeconds: 6 } };
/** Longer than the 5 s the view treats the cache as live: only pi's refreshes keep it warm. */
const SLEEP_SECONDS = 7;

/** A refresh of pi's cache warming: the last request again, capped at one output token. */
const isWarm = (request) => request.body.max_tokens === 1 || request.body.max_completion_tokens === 1;

/** About 50 KB of numbered lines: a read the view would prune. */
function bigFile() {
  const lines = [];
  for (let i = 1; lines.length * 80 < 50 * 1024; i++) lines.push(`line ${i}: payload ${"x".repeat(60)}`);
  return `${lines.join("\n")}\n`;
}

/** Whether a request carries the pruned read instead of the file. */
function pruned(request) {
  const text = JSON.stringify(request?.messages ?? []);
  return text.includes("[TRUNCATED FILE] id=") && !text.includes("line 300: payload");
}

/**
 * `pi -p "read big.txt"`, then `pi -p --continue` whose model first calls `second` (a bash command) and then
 * answers. The facts: exit codes, pi's refreshes between the last two requests, whether the request after the
 * command was pruned, and the view's persisted choices with pi's warming.
 */
async function scenario({ root, target, cacheWarming, second, secondEnv }) {
  const { LOOPBACK_PROVIDER, loopbackProviderConfig, prepareCliHome, runPi, startProviderServer } = await testkit(root);
  const answers = [
    { toolCalls: [{ id: "call_read", name: "read", arguments: { path: "big.txt" } }] },
    { text: "I read big.txt." },
    { toolCalls: [{ id: "call_wait", name: "bash", arguments: { command: second } }] },
    { text: "Done." },
  ];
  let real = 0;
  const server = await startProviderServer("openai-completions", {
    strict: true,
    script: (request) => (isWarm(request) ? { text: "ok" } : (answers[real++] ?? { text: "done" })),
  });
  const provider = loopbackProviderConfig(server);
  const models = { providers: { [LOOPBACK_PROVIDER]: { ...provider, models: [{ ...provider.models[0], ...MODEL }] } } };
  const home = target.prepareHome(prepareCliHome, {
    server,
    files: { "big.txt": bigFile() },
    settings: { cacheWarming, defaultThinkingLevel: "off" },
    projectSettings: PROJECT,
    agentFiles: { "models.json": JSON.stringify(models) },
  });
  try {
    const options = (env) => piOptions(target, { home: home.home, cwd: home.cwd, env, timeoutMs: 90_000 });
    const ext = target.args(["cache-ttl-view"]);
    const first = await runPi([...ext, "-p", "read big.txt"], options({}));
    const later = await runPi([...ext, "-p", "--continue", "go on"], options(secondEnv));
    const requests = server.requests.filter((request) => !isWarm(request));
    const [before, after] = [requests[2], requests[3]];
    const between = server.requests.slice(server.requests.indexOf(before), server.requests.indexOf(after));
    const sessions = join(home.agentDir, "sessions");
    const file = readdirSync(sessions, { recursive: true, encoding: "utf8" }).find((f) => f.endsWith(".jsonl"));
    const entries = file
      ? readFileSync(join(sessions, file), "utf8")
          .split("\n")
          .filter(Boolean)
          .map((line) => JSON.parse(line))
      : [];
    return {
      codes: [first.code, later.code],
      requests: requests.length,
      accepted: server.requests.every((request) => !request.rejected),
      refreshes: between.filter(isWarm).length,
      pruned: pruned(after),
      choices: entries
        .filter((e) => e.type === "custom" && e.customType === "cache-ttl:state" && e.data?.kind === "warming")
        .map((e) => e.data.chosen),
      ...(first.code !== 0 || later.code !== 0 ? { stderr: `${first.stderr}${later.stderr}`.slice(-2000) } : {}),
    };
  } finally {
    await server.close();
    home.dispose();
  }
}

/**
 * `warmingOff`: `cacheWarming: "off"`, the second run ten minutes on (the view's clock): the request after the TTL
 * is pruned, and pi sent no refresh. `warm`: pi's default warming, the second run's clock set back a minute (however
 * long pi takes to start, its first request is warm) and a `sleep 7` past the TTL: pi refreshes meanwhile, the view
 * counts it and lets it (`choices`: "warm"), and the request after the sleep still carries the file.
 */
export async function runCacheWarmingCheck({ root, target }) {
  const warmingOff = await scenario({
    root,
    target,
    cacheWarming: "off",
    second: "true",
    secondEnv: { [CLOCK_OFFSET]: "600" },
  });
  const warm = await scenario({
    root,
    target,
    cacheWarming: "idle",
    second: `sleep ${SLEEP_SECONDS}`,
    secondEnv: { [CLOCK_OFFSET]: "-60" },
  });
  return { warmingOff, warm };
}

/** Whether the check showed both: a prune after the TTL without warming, none while pi kept the cache warm. */
export const cacheWarmingHeld = ({ warmingOff, warm }) =>
  [warmingOff, warm].every((r) => r.codes.every((code) => code === 0) && r.requests === 4 && r.accepted) &&
  warmingOff.pruned &&
  warmingOff.refreshes === 0 &&
  !warm.pruned &&
  warm.refreshes > 0 &&
  warm.choices.length > 0 &&
  warm.choices.every((chosen) => chosen === "warm");

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
  const started = Date.now();
  const facts = await runCacheWarmingCheck({ root, target: await stockTarget(root) });
  console.log(JSON.stringify(facts, null, 2));
  console.log(`${cacheWarmingHeld(facts) ? "held" : "NOT held"} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  process.exitCode = cacheWarmingHeld(facts) ? 0 : 1;
}
