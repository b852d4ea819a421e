import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { ViewMessage } from "../model/messages.ts";
import { analyze } from "../plan/analysis.ts";
import { defaultSettings } from "../settings/settings.ts";
import { STATE_ENTRY_TYPE } from "../state/entries.ts";
import { png, SessionBuilder, text } from "../testing/fixtures.ts";
import { main } from "./cli.ts";
import { prefixCost, pruneSavings } from "./prices.ts";
import { replaySession } from "./replay.ts";
import { parseSessionFile } from "./session-file.ts";

/** A session file as pi writes it: a header, then entries chained by parentId. */
function sessionFile(messages: { role: string; timestamp?: number }[], extra: Record<string, unknown>[] = []): string {
  const lines: string[] = [
    JSON.stringify({ type: "session", version: 3, id: "s", timestamp: "2026-01-01T00:00:00Z", cwd: "/nowhere" }),
  ];
  let parent: string | null = null;
  const entries = [...messages.map((message) => ({ type: "message", message })), ...extra];
  entries.forEach((e, i) => {
    const id = `e${i}`;
    lines.push(JSON.stringify({ ...e, id, parentId: parent, timestamp: new Date(0).toISOString() }));
    parent = id;
  });
  return `${lines.join("\n")}\n`;
}

describe("parseSessionFile", () => {
  it("turns every assistant message into a request with the context before it", () => {
    const s = new SessionBuilder().user("a").assistant("b").user("c").assistant("d");
    const parsed = parseSessionFile(sessionFile(s.messages));
    expect(parsed.cwd).toBe("/nowhere");
    expect(parsed.requests.map((r) => r.context.length)).toEqual([1, 3]);
    expect(parsed.requests[1]?.at).toBe(s.messages[3]?.timestamp);
  });

  it("skips lines that are not JSON like pi does (a torn last write), and names them", () => {
    const parsed = parseSessionFile('{"type":"session","cwd":"/p"}\nnot json\n{"type":"mess', "x.jsonl");
    expect(parsed.skippedLines).toEqual([2, 3]);
    expect(() => parseSessionFile("garbage\n", "x.jsonl")).toThrow("x.jsonl: not a pi session file");
  });
});

describe("replaySession", () => {
  it("reports prefix tokens written/read with and without pruning and the cost difference", () => {
    const s = new SessionBuilder().user("go");
    s.tool("read", { path: "big.ts" }, text(40_000));
    s.assistant("read it");
    s.user("next");
    s.assistant("answer");
    // Ten minutes of idle before the last request: the cache expired.
    (s.messages[4] as { timestamp: number }).timestamp += 600_000;
    (s.messages[5] as { timestamp: number }).timestamp += 600_000;
    const prices = { input: 3, cacheRead: 0.3, cacheWrite: 3.75 };
    const report = replaySession(parseSessionFile(sessionFile(s.messages)), {
      settings: defaultSettings(),
      ttlSeconds: 300,
      prices,
    });
    const last = report.requests.at(-1);
    expect(last).toMatchObject({ warm: false, pruned: 1 });
    expect(last?.baseline.readTokens).toBe(0);
    expect(last?.withPruning.writeTokens).toBeLessThan((last?.baseline.writeTokens ?? 0) - 9000);
    expect(report.requests[1]).toMatchObject({ warm: true });
    expect(report.requests[1]?.baseline.readTokens).toBeGreaterThan(0);
    expect(report.totals.saved).toBeGreaterThan(0);
  });

  it("pi 1.6's cache-warming requests (usage entries) kept the cache warm: the next request reads the prefix", async () => {
    const s = new SessionBuilder().user("go");
    s.tool("read", { path: "big.ts" }, text(40_000));
    s.assistant("read it");
    s.user("next");
    s.assistant("answer");
    for (const m of s.messages.slice(4)) (m as { timestamp: number }).timestamp += 600_000;
    const lines = sessionFile(s.messages).trimEnd().split("\n");
    // pi re-sent the last request 270 s and 540 s after it (a usage entry each), then the user came back at 600 s.
    const last = JSON.parse(lines[4] as string) as { id: string; timestamp: string };
    const answered = (s.messages[3] as { timestamp: number }).timestamp;
    const warm = (id: string, parent: string, at: number) =>
      JSON.stringify({
        type: "usage",
        id,
        parentId: parent,
        timestamp: new Date(answered + at).toISOString(),
        kind: "cache_warm",
        provider: "anthropic",
        model: "claude-sonnet-4-5",
        usage: { input: 0, output: 1, cacheRead: 10_000, cacheWrite: 0 },
      });
    const [first, second] = [warm("w1", last.id, 270_000), warm("w2", "w1", 540_000)];
    const rest = lines.slice(5).map((line, i) => {
      const e = JSON.parse(line) as { parentId: string };
      return JSON.stringify(i === 0 ? { ...e, parentId: "w2" } : e);
    });
    const file = `${[...lines.slice(0, 5), first, second, ...rest].join("\n")}\n`;
    const parsed = parseSessionFile(file);
    expect(parsed.requests.map((r) => r.cacheWarms?.length ?? 0)).toEqual([0, 0, 2]);
    const prices = { input: 3, cacheRead: 0.3, cacheWrite: 3.75 };
    const report = replaySession(parsed, { settings: defaultSettings(), ttlSeconds: 300, prices });
    const row = report.requests.at(-1);
    // About 600 s after the previous request, about 60 s after the last warm: warm, and the unpruned prefix is read.
    expect(row).toMatchObject({ warm: true, cacheWarms: 2 });
    expect(row?.idleSeconds).toBeGreaterThan(300);
    expect(row?.baseline.readTokens).toBeGreaterThan(9000);
    // The view's clock counts pi's warming (as in the extension): the cache was warm, so it did not prune, and the
    // request read the same prefix.
    expect(row?.pruned).toBe(0);
    expect(row?.withPruning.readTokens).toBe(row?.baseline.readTokens);
    // Without the usage entries the same request is cold.
    const cold = replaySession(parseSessionFile(sessionFile(s.messages)), {
      settings: defaultSettings(),
      ttlSeconds: 300,
      prices,
    });
    expect(cold.requests.at(-1)).toMatchObject({ warm: false, pruned: 1 });
    expect(cold.requests.at(-1)?.baseline.readTokens).toBe(0);
    // The table marks the request and says what the mark means.
    const path = join(mkdtempSync(join(tmpdir(), "cache-ttl-report-")), "s.jsonl");
    writeFileSync(path, file);
    const out: string[] = [];
    expect(await main(["report", path, "--ttl", "300"], { stdout: (t) => out.push(t), stderr: () => {} })).toBe(0);
    expect(out.join("")).toContain("cache warmed: pi's cache warming re-sent the previous request since");
    expect(out.join("").match(/^ {2}2 +\d+ +warmed /m)).not.toBeNull();
  });

  it("prices: writes at the cache-write price, reads at the read price, input when a price is 0", () => {
    expect(prefixCost({ input: 3, cacheRead: 0.3, cacheWrite: 3.75 }, 1_000_000, 1_000_000)).toBeCloseTo(4.05);
    expect(prefixCost({ input: 2, cacheRead: 0, cacheWrite: 0 }, 1_000_000, 0)).toBe(2);
    expect(pruneSavings({ input: 3, cacheRead: 0.3, cacheWrite: 3.75 }, 1_000_000, 3)).toBeCloseTo(3.75 + 0.6);
    expect(pruneSavings({ input: 3, cacheRead: 0.3, cacheWrite: 3.75 }, 1_000_000, 0)).toBe(0);
  });

  /** A session of two reads, a 10-minute break, then one more request; `state` entries go before that request. */
  function withState(state: Record<string, unknown>[], api = "anthropic-messages", customType = STATE_ENTRY_TYPE) {
    const s = new SessionBuilder().user("go");
    s.tool("read", { path: "big.ts" }, text(40_000));
    s.assistant("read it");
    s.user("next");
    s.assistant("answer");
    for (const m of s.messages) if (m.role === "assistant") Object.assign(m, { api, provider: "anthropic" });
    (s.messages[4] as { timestamp: number }).timestamp += 600_000;
    (s.messages[5] as { timestamp: number }).timestamp += 600_000;
    const entries: Record<string, unknown>[] = s.messages.map((message) => ({ type: "message", message }));
    const custom = state.map((data) => ({ type: "custom", customType, data }));
    entries.splice(5, 0, ...custom);
    return { file: sessionFile([], entries), messages: s.messages as ViewMessage[] };
  }
  const replay = (file: string) =>
    replaySession(parseSessionFile(file), {
      settings: defaultSettings(),
      prices: { input: 3, cacheRead: 0.3, cacheWrite: 3.75 },
    });

  it("derives the TTL from the request's API, and replays the TTL the extension stored (long retention)", () => {
    expect(replay(withState([]).file).requests.at(-1)).toMatchObject({ warm: false, pruned: 1 });
    const long = replay(withState([{ kind: "touch", at: 0, ttlSeconds: 3600 }]).file);
    expect(long.ttlSeconds).toBe(3600);
    expect(long.requests.at(-1)).toMatchObject({ warm: true, pruned: 0 });
  });

  it("replays pins saved in the session, in a session of an earlier version too (entries spelled cache-ttl-view)", () => {
    const pin = { kind: "pin", at: 0, paths: ["big.ts"] };
    for (const customType of [STATE_ENTRY_TYPE, "cache-ttl-view"]) {
      const pinned = replay(withState([pin], "anthropic-messages", customType).file);
      expect(pinned.requests.at(-1)).toMatchObject({ warm: false, pruned: 0 });
    }
    expect(replay(withState([pin], "anthropic-messages", "other").file).requests.at(-1)).toMatchObject({ pruned: 1 });
  });

  it("replays in-place restores: the restored block is sent in full again", () => {
    const { file } = withState([]);
    const parsed = parseSessionFile(file);
    const first = replaySession(parsed, {
      settings: defaultSettings(),
      prices: { input: 1, cacheRead: 0, cacheWrite: 0 },
    });
    expect(first.requests.at(-1)?.pruned).toBe(1);
    // The same session, continued: a restore in place of that block, then one more (warm) request.
    const extra = { role: "assistant", content: [{ type: "text", text: "more" }], timestamp: 2_000_000 };
    const cont = parseSessionFile(file);
    const last = cont.requests.at(-1)!;
    const restoreId = analyze(last.context).blocks.find((b) => b.kind === "tool")?.id as string;
    cont.requests.push({
      at: last.at + 1000,
      context: [...last.context, extra as ViewMessage],
      api: "anthropic-messages",
      stateEntries: [{ kind: "restore", at: last.at + 500, ids: [restoreId] }],
    });
    const prices = { input: 1, cacheRead: 0, cacheWrite: 0 };
    const sent = (r: ReturnType<typeof replaySession>) => {
      const row = r.requests.at(-1)?.withPruning;
      return (row?.readTokens ?? 0) + (row?.writeTokens ?? 0);
    };
    const restored = sent(replaySession(cont, { settings: defaultSettings(), prices }));
    (cont.requests.at(-1) as { stateEntries: unknown[] }).stateEntries = [];
    const notRestored = sent(replaySession(cont, { settings: defaultSettings(), prices }));
    expect(restored - notRestored).toBeGreaterThan(9000); // the 40,000-char read is back in the view
  });

  it("replays the usage counters as evidence: where the provider kept the cache longer, the view holds", () => {
    const s = new SessionBuilder().user("go").assistant("hi");
    s.user("next").assistant("ok");
    s.user("read it");
    s.tool("read", { path: "big.ts" }, text(40_000));
    s.assistant("read it").user("more").assistant("answer");
    const t0 = 1_000_000;
    // Request times (the assistant messages) and what the provider reported for each response.
    const at = [t0 + 1_000, t0 + 402_000, t0 + 404_000, t0 + 405_000, t0 + 755_000];
    const usage = [{ input: 1000 }, { input: 5, cacheRead: 1000 }, { input: 50 }, { input: 10_000 }, { input: 10 }];
    let k = 0;
    for (const m of s.messages) {
      if (m.role !== "assistant") continue;
      Object.assign(m, {
        timestamp: at[k],
        usage: { cacheRead: 0, cacheWrite: 0, ...usage[k] },
        api: "anthropic-messages",
      });
      k++;
    }
    // Request 1 came 401 s after request 0 (past the 300 s TTL) with nothing to prune, and its response read the
    // whole previous prompt from the cache: the cache lived 401 s. Request 4 comes 350 s after request 3.
    const report = replaySession(parseSessionFile(sessionFile(s.messages)), {
      settings: defaultSettings(),
      prices: { input: 3, cacheRead: 0.3, cacheWrite: 3.75 },
    });
    expect(report.mode).toBe("simulated");
    expect(report.requests.map((r) => r.pruned)).toEqual([0, 0, 0, 0, 0]);
    // Without that evidence (the response read nothing), the same idle prunes the read.
    usage[1] = { input: 1005 };
    k = 0;
    for (const m of s.messages)
      if (m.role === "assistant") Object.assign(m, { usage: { cacheRead: 0, ...usage[k++] } });
    const cold = replaySession(parseSessionFile(sessionFile(s.messages)), {
      settings: defaultSettings(),
      prices: { input: 3, cacheRead: 0.3, cacheWrite: 3.75 },
    });
    expect(cold.requests.at(-1)?.pruned).toBe(1);
  });

  it("counts an image at what the request's API bills for it (its tokens and money), not its base64 length", () => {
    const shot = { type: "image" as const, mimeType: "image/png", data: png(1000, 1000) };
    const s = new SessionBuilder().user("look", [shot]).assistant("seen");
    for (const m of s.messages) if (m.role === "assistant") Object.assign(m, { api: "anthropic-messages" });
    const report = replaySession(parseSessionFile(sessionFile(s.messages)), {
      settings: defaultSettings(),
      prices: { input: 3, cacheRead: 0.3, cacheWrite: 3.75 },
    });
    const first = report.requests[0]?.baseline;
    // 1000×1000 on Anthropic: 1,334 tokens (its 300,000 base64 chars would be 75,000 at 4 per token).
    expect(first?.writeTokens).toBeGreaterThanOrEqual(1334);
    expect(first?.writeTokens).toBeLessThan(1400);
    expect(first?.cost).toBeCloseTo(((first?.writeTokens ?? 0) * 3.75) / 1e6, 8);
  });

  it("cache-ttl report skips torn and garbage lines like pi, says so, and still reports", async () => {
    const dir = mkdtempSync(join(tmpdir(), "cache-ttl-report-"));
    const path = join(dir, "s.jsonl");
    writeFileSync(path, `${withState([]).file}not json at all\n{"type":"message","id":"x","mess`);
    const out: string[] = [];
    const err: string[] = [];
    const code = await main(["report", path, "--json"], { stdout: (t) => out.push(t), stderr: (t) => err.push(t) });
    expect(code).toBe(0);
    expect(err.join("\n")).toContain("skipped 2 line(s) that are not JSON (as pi does): 8, 9");
    expect(JSON.parse(out.join("")).requests).toHaveLength(3);
  });
});

describe("cache-ttl report --ttl", () => {
  const file = () => {
    const path = join(mkdtempSync(join(tmpdir(), "cache-ttl-report-")), "s.jsonl");
    writeFileSync(path, sessionFile(new SessionBuilder().user("a").assistant("b").messages));
    return path;
  };

  it.each(["1e400", "Infinity", "NaN", "0x10", "-5", "0", "1e-400", "5s", "", " ", "1e9"])(
    "refuses %j as a usage error (exit 2), naming what was given",
    async (value) => {
      const err: string[] = [];
      const out: string[] = [];
      // `--ttl=<value>`: a value that starts with a dash is the option's value only in this form.
      const code = await main(["report", file(), `--ttl=${value}`], {
        stdout: (t) => out.push(t),
        stderr: (t) => err.push(t),
      });
      expect(code).toBe(2);
      expect(err.join("")).toContain(
        `--ttl must be a number of seconds above 0 and at most 31536000 (a year), like 300 (got "${value}")`,
      );
      expect(out.join("")).not.toContain("Infinity");
    },
  );

  it("takes plain decimals, and with --json answers a refusal as one JSON object", async () => {
    for (const value of ["300", "0.5", ".5", "3.6e3", "31536000"]) {
      const out: string[] = [];
      expect(
        await main(["report", file(), "--ttl", value, "--json"], { stdout: (t) => out.push(t), stderr: () => {} }),
      ).toBe(0);
      expect(JSON.parse(out.join("")).ttlSeconds).toBe(Number(value));
    }
    const out: string[] = [];
    expect(
      await main(["report", file(), "--ttl", "1e400", "--json"], { stdout: (t) => out.push(t), stderr: () => {} }),
    ).toBe(2);
    expect(JSON.parse(out.join(""))).toMatchObject({
      error: { kind: "usage", message: expect.stringContaining('got "1e400"') },
    });
  });
});
