import { readFileSync } from "node:fs";
import {
  closeAfterEach,
  createTestSession,
  type ScriptedResponse,
  startProviderServer,
  type TestSession,
} from "@pi-rails/testkit";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createCacheTtlView } from "../src/extension.ts";
import { main } from "../src/report/cli.ts";
import { replaySession, warmingNote } from "../src/report/replay.ts";
import { parseSessionFile } from "../src/report/session-file.ts";
import { defaultSettings } from "../src/settings/settings.ts";
import { bigFile, captureStdout, conversation, isWarm, json, requestProblems } from "./helpers.ts";

/**
 * cache-ttl-view with pi 1.6's own cache warming, in a real AgentSession against a strict loopback server. The seam
 * pi offers is the model's `promptCache` lifetime: pi refreshes at 90% of it, keeping 10 s of margin, so a model
 * whose cache lives 11 s is refreshed 1 s after each request, by pi's real timer and warmer. The tests wait for
 * what pi did (its `cache_warm` usage entries, the view's persisted choice), never for a stretch of wall-clock
 * time; the view's own clock is injected and moved by the test.
 */

/** pi refreshes 1 s after a request (`getCacheWarmingDelayMs(11_000)`); the view's TTL is the same 11 s. */
const PROMPT_CACHE = { short: 11 };
/** The view treats the cache as expired 1 s early: usable 10 s after the cache was last touched. */
const SETTINGS = { cacheTtl: { keepRecentTurns: 1, bufferSeconds: 1 } };
const FILE = bigFile(50);
/** A cache write 10^6 times a read: a refresh pays even against pruning, so the view lets pi warm. */
const WRITE_DEAR = { input: 100, output: 0, cacheRead: 0.01, cacheWrite: 10_000 };

const keep = closeAfterEach(afterEach);
afterEach(() => vi.restoreAllMocks());

/**
 * A session on the chat-completions loopback with pi's cache warming as given, the model's cache lifetime and
 * prices laid over it, and cache-ttl-view on `clock`. Real requests get the scripted answers in order; pi's
 * refreshes get a one-word answer of their own.
 */
async function start(options: {
  cacheWarming: "off" | "idle";
  cost: { input: number; output: number; cacheRead: number; cacheWrite: number };
  clock: { now: number };
  projectSettings?: Record<string, unknown>;
}) {
  const answers: ScriptedResponse[] = [
    { toolCalls: [{ id: "call_read", name: "read", arguments: { path: "big.txt" } }] },
    { text: "Read it." },
    { text: "Second answer." },
  ];
  let real = 0;
  const server = keep(
    await startProviderServer("openai-completions", {
      strict: true,
      script: (request) => (isWarm(request) ? { text: "ok" } : (answers[real++] ?? { text: "done" })),
    }),
  );
  const t = keep(
    await createTestSession({
      model: { kind: "loopback", server, overrides: { promptCache: PROMPT_CACHE, cost: options.cost } },
      thinkingLevel: "off",
      files: { "big.txt": FILE },
      settings: { cacheWarming: options.cacheWarming },
      projectSettings: options.projectSettings ?? SETTINGS,
      extensions: [createCacheTtlView({ now: () => options.clock.now })],
      persist: true,
    }),
  );
  const realRequests = () => server.requests.filter((r) => !isWarm(r));
  return { server, t, realRequests };
}

/** pi's refreshes the session recorded (`usage` entries of kind `cache_warm`). */
const warms = (t: TestSession) =>
  t.session.sessionManager.getEntries().filter((e) => e.type === "usage" && e.kind === "cache_warm").length;

/** The view's persisted choices with pi's cache warming. */
const choices = (t: TestSession) =>
  t.session.sessionManager
    .getEntries()
    .flatMap((e) =>
      e.type === "custom" && e.customType === "cache-ttl:state" ? [e.data as Record<string, unknown>] : [],
    )
    .filter((d) => d["kind"] === "warming");

/** The last request of `cache-ttl report` over the session file pi wrote. */
function reportedLast(t: TestSession) {
  const session = parseSessionFile(readFileSync(t.sessionFile as string, "utf8"));
  const prices = { input: 0, cacheRead: 0, cacheWrite: 0 };
  return replaySession(session, { settings: defaultSettings(), prices }).requests.at(-1);
}

/** Wait for what pi does on its own timer (polled; fails with `what` after 15 s). */
async function until(what: string, done: () => boolean): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe("cache-ttl-view and pi 1.6's cache warming (a real AgentSession, pi's own warmer)", () => {
  it("with warming off, prunes once the TTL has passed since the last request", async () => {
    const clock = { now: 1_000_000 };
    const { server, t, realRequests } = await start({
      cacheWarming: "off",
      cost: WRITE_DEAR,
      clock,
    });
    await t.prompt("read big.txt");
    clock.now += 60_000;
    await t.prompt("second");
    const [, , second] = realRequests();
    expect(json(conversation(second!))).not.toContain("line 300: payload");
    expect(json(conversation(second!))).toContain("[TRUNCATED FILE] id=");
    expect(requestProblems(second!)).toEqual([]);
    expect(server.requests.filter(isWarm)).toEqual([]);
    expect(warms(t)).toBe(0);
  });

  it("while pi keeps the cache warm, counts its refreshes and does not prune, however long since the last request", async () => {
    const clock = { now: 1_000_000 };
    const { server, t, realRequests } = await start({
      cacheWarming: "idle",
      cost: WRITE_DEAR,
      clock,
    });
    await t.prompt("read big.txt");
    // 8 s on the view's clock: warm still. Then two more refreshes, so at least one was decided at this time.
    clock.now += 8_000;
    const before = warms(t);
    await until("two refreshes of pi's", () => warms(t) >= before + 2);
    // 16 s after the last request: past the TTL (10 s usable) unless the refreshes count.
    clock.now += 8_000;
    await t.prompt("second");
    const [, , second] = realRequests();
    expect(json(conversation(second!))).toContain("line 300: payload");
    expect(json(conversation(second!))).not.toContain("[TRUNCATED");
    expect(server.requests.filter(isWarm).length).toBeGreaterThanOrEqual(2);
    expect(choices(t).at(-1)).toMatchObject({ chosen: "warm" });
    expect(String(choices(t).at(-1)?.["reason"])).toMatch(/^a refresh saves \$\d+\.\d{4} even against pruning/);
    // The report (over the file's own timestamps) says which way the view went, and why.
    const row = reportedLast(t);
    expect(row).toMatchObject({ pruned: 0, warming: { chosen: "warm" } });
    expect(row?.cacheWarms).toBeGreaterThanOrEqual(2);
    expect(warmingNote(row ?? {})).toMatch(/^pi's cache warming before it: warm: a refresh saves/);
    // `cache-ttl report` prints that line under the request's row.
    let printed = "";
    const output = { stdout: (text: string) => (printed += text), stderr: (text: string) => (printed += text) };
    expect(await main(["report", t.sessionFile as string], output)).toBe(0);
    expect(printed).toMatch(/\n {4}pi's cache warming before it: warm: a refresh saves/);
  });

  it("when expiring and pruning costs less, answers pi's decision with stop: no refresh, and the next request prunes", async () => {
    const clock = { now: 1_000_000 };
    // Read at 1/100 of a write: pi would refresh (a miss re-writes ~15k tokens at $100/M), but a prune takes most
    // of the prompt, so writing the pruned prefix later costs less than refreshing the whole one now.
    const { server, t, realRequests } = await start({
      cacheWarming: "idle",
      cost: { input: 100, output: 0, cacheRead: 1, cacheWrite: 100 },
      clock,
    });
    await t.prompt("read big.txt");
    await until("the view's choice", () => choices(t).length > 0);
    expect(choices(t)[0], String(choices(t)[0]?.["reason"])).toMatchObject({ chosen: "prune" });
    expect(String(choices(t)[0]?.["reason"])).toMatch(/^expiring and pruning costs less/);
    expect(t.session.cacheWarmingStatus).toMatchObject({
      state: "inactive",
      reason: "stopped by extension",
      extensionOverride: true,
      decision: { action: "warm" },
    });
    expect(server.requests.filter(isWarm)).toEqual([]);
    // `/cache-ttl` says which way it went, and why.
    const out = captureStdout();
    await t.session.prompt("/cache-ttl");
    vi.restoreAllMocks();
    expect(out.join("")).toMatch(/pi's cache warming, \d+s ago: prune: expiring and pruning costs less: a refresh/);
    clock.now += 60_000;
    await t.prompt("second");
    const [, , second] = realRequests();
    expect(json(conversation(second!))).not.toContain("line 300: payload");
    expect(json(conversation(second!))).toContain("[TRUNCATED FILE] id=");
    expect(requestProblems(second!)).toEqual([]);
    const row = reportedLast(t);
    expect(row).toMatchObject({ warming: { chosen: "prune" } });
    expect(row?.pruned).toBeGreaterThan(0);
    expect(warmingNote(row ?? {})).toMatch(/^pi's cache warming before it: prune: expiring and pruning costs less/);
  });

  it("with pruning off (conflicting settings), leaves pi's decision alone and records no choice", async () => {
    const clock = { now: 1_000_000 };
    const { server, t } = await start({
      cacheWarming: "idle",
      cost: { input: 100, output: 0, cacheRead: 1, cacheWrite: 100 },
      clock,
      projectSettings: { cacheTtl: { keepRecentTurns: 1, ttlSeconds: 5, bufferSeconds: 10 } },
    });
    await t.prompt("read big.txt");
    // The prices that made the view stop pi above: pi refreshes now.
    await until("a refresh of pi's", () => warms(t) >= 1);
    expect(server.requests.filter(isWarm).length).toBeGreaterThanOrEqual(1);
    expect(choices(t)).toEqual([]);
  });
});
