import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  type CliHome,
  LOOPBACK_PROVIDER,
  loopbackProviderConfig,
  type ModelServer,
  prepareCliHome,
  runPi,
  startProviderServer,
  type WireFormat,
} from "@pi-rails/testkit";
import { expect } from "vitest";
import { CLOCK_OFFSET_ENV } from "../src/extension.ts";
import { bigFile, conversation, isPrefix, isWarm, json, requestProblems } from "./helpers.ts";

export const PACKAGE_DIR = join(dirname(fileURLToPath(import.meta.url)), "..");
const FILE = bigFile(50);

export interface Scenario {
  server?: ModelServer;
  home?: CliHome;
  sessionFile?: string;
}

function sessionFiles(agentDir: string): string[] {
  const root = join(agentDir, "sessions");
  return readdirSync(root, { recursive: true, encoding: "utf8" })
    .filter((f) => f.endsWith(".jsonl"))
    .map((f) => join(root, f));
}

/**
 * `pi -p` reads a 50 KB file; `pi -p --continue` "ten minutes later" (the extension's clock seam) must send the notice
 * instead of the file, keep tool pairs, and leave the file in the session; a third run a minute later repeats the
 * pruned prefix byte for byte. `into` receives the server and home (the caller disposes them). `format`: the wire
 * format of the model (a strict loopback server of that API, and the provider pi's catalogue has for it).
 */
export async function expiryScenario(
  into: Scenario,
  piCli?: string,
  format: WireFormat = "openai-completions",
): Promise<void> {
  const server = await startProviderServer(format, {
    strict: true,
    script: [
      { toolCalls: [{ id: "call_read", name: "read", arguments: { path: "big.txt" } }] },
      { text: "I read big.txt." },
      { text: "Second run." },
      { text: "Third run." },
    ],
  });
  into.server = server;
  const home = prepareCliHome({
    server,
    files: { "big.txt": FILE },
    // No cache-warming requests of pi 1.6 between the runs (see test/helpers.ts); the script answers without
    // thinking (a reasoning model's API would refuse its tool loop otherwise).
    settings: { cacheWarming: "off", defaultThinkingLevel: "off" },
    projectSettings: { cacheTtl: { ttlSeconds: 300 } },
  });
  into.home = home;
  const cli = piCli ? { piCli } : {};

  const first = await runPi(["-e", PACKAGE_DIR, "-p", "read big.txt"], { home, ...cli, timeoutMs: 120_000 });
  expect(first.code, first.stderr).toBe(0);
  expect(server.requests).toHaveLength(2);
  expect(json(server.requests[1]!.messages).includes("line 300: payload")).toBe(true);

  const later = await runPi(["-e", PACKAGE_DIR, "-p", "--continue", "what next?"], {
    home,
    ...cli,
    env: { [CLOCK_OFFSET_ENV]: "600" },
    timeoutMs: 120_000,
  });
  expect(later.code, later.stderr).toBe(0);
  expect(server.requests).toHaveLength(3);
  const pruned = conversation(server.requests[2]!);
  expect(json(pruned).includes("line 300: payload")).toBe(false);
  expect(json(pruned).includes("[TRUNCATED FILE] id=")).toBe(true);
  expect(json(pruned).includes("Context was pruned because the prompt cache TTL (300s) was exceeded")).toBe(true);
  expect(requestProblems(server.requests[2]!)).toEqual([]);

  const files = sessionFiles(home.agentDir);
  expect(files).toHaveLength(1);
  const session = readFileSync(files[0]!, "utf8");
  expect(session.includes("line 300: payload")).toBe(true);
  expect(session.includes('"kind":"prune"')).toBe(true);
  into.sessionFile = files[0]!;

  const warm = await runPi(["-e", PACKAGE_DIR, "-p", "--continue", "and now?"], {
    home,
    ...cli,
    env: { [CLOCK_OFFSET_ENV]: "660" },
    timeoutMs: 120_000,
  });
  expect(warm.code, warm.stderr).toBe(0);
  expect(isPrefix(pruned, conversation(server.requests[3]!))).toBe(true);
}

/**
 * pi's cache warming keeps the cache warm through a tool call longer than the TTL, and the view does not prune. The
 * model declares an 11 s cache (`promptCache`, the seam pi offers: pi refreshes 1 s after each request, by its own
 * timer) and prices at which a refresh pays even against pruning. `pi -p` reads a 50 KB file; `pi -p --continue`
 * runs `sleep 12`: the request after it comes 12 s after the last one, past the view's TTL (10 s usable), and must
 * still carry the file, because pi refreshed the cache meanwhile and the view's clock counted it. The second run's
 * clock is set back a minute (the extension's clock seam), so however long pi takes to start, the first request of
 * that run is judged warm: only the refreshes decide the second.
 */
export async function warmingScenario(into: Scenario, piCli?: string): Promise<void> {
  const answers = [
    { toolCalls: [{ id: "call_read", name: "read", arguments: { path: "big.txt" } }] },
    { text: "I read big.txt." },
    { toolCalls: [{ id: "call_sleep", name: "bash", arguments: { command: "sleep 12" } }] },
    { text: "Slept." },
  ];
  let real = 0;
  const server = await startProviderServer("openai-completions", {
    strict: true,
    script: (request) => (isWarm(request) ? { text: "ok" } : (answers[real++] ?? { text: "done" })),
  });
  into.server = server;
  const provider = loopbackProviderConfig(server);
  const [model] = provider.models;
  const warming = { promptCache: { short: 11 }, cost: { input: 100, output: 0, cacheRead: 0.01, cacheWrite: 10_000 } };
  const home = prepareCliHome({
    server,
    files: { "big.txt": FILE },
    settings: { cacheWarming: "idle", defaultThinkingLevel: "off" },
    projectSettings: { cacheTtl: { keepRecentTurns: 1, bufferSeconds: 1 } },
    agentFiles: {
      "models.json": JSON.stringify({
        providers: { [LOOPBACK_PROVIDER]: { ...provider, models: [{ ...model, ...warming }] } },
      }),
    },
  });
  into.home = home;
  const cli = piCli ? { piCli } : {};
  const first = await runPi(["-e", PACKAGE_DIR, "-p", "read big.txt"], { home, ...cli, timeoutMs: 120_000 });
  expect(first.code, first.stderr).toBe(0);
  const second = await runPi(["-e", PACKAGE_DIR, "-p", "--continue", "sleep"], {
    home,
    ...cli,
    env: { [CLOCK_OFFSET_ENV]: "-60" },
    timeoutMs: 120_000,
  });
  expect(second.code, second.stderr).toBe(0);
  const requests = server.requests.filter((r) => !isWarm(r));
  expect(requests).toHaveLength(4);
  const afterSleep = conversation(requests[3]!);
  expect(json(afterSleep)).toContain("line 300: payload");
  expect(json(afterSleep)).not.toContain("[TRUNCATED");
  expect(requestProblems(requests[3]!)).toEqual([]);
  // pi refreshed the cache during the sleep, and the view chose to let it.
  const slept = server.requests.slice(server.requests.indexOf(requests[2]!), server.requests.indexOf(requests[3]!));
  expect(slept.filter(isWarm).length).toBeGreaterThan(0);
  const session = readFileSync(sessionFiles(home.agentDir)[0]!, "utf8");
  expect(session).toContain('"kind":"cache_warm"');
  expect(session).toMatch(/"kind":"warming","at":\d+,"chosen":"warm"/);
  expect(session).not.toContain('"kind":"prune"');
}

export async function disposeScenario(s: Scenario): Promise<void> {
  await s.server?.close();
  s.home?.dispose();
  s.server = undefined;
  s.home = undefined;
}
