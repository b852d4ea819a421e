import { describe, expect, it } from "vitest";
import { defaultSettings } from "../settings/settings.ts";
import { SessionBuilder, text } from "../testing/fixtures.ts";
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

  it("prices: writes at the cache-write price, reads at the read price, input when a price is 0", () => {
    expect(prefixCost({ input: 3, cacheRead: 0.3, cacheWrite: 3.75 }, 1_000_000, 1_000_000)).toBeCloseTo(4.05);
    expect(prefixCost({ input: 2, cacheRead: 0, cacheWrite: 0 }, 1_000_000, 0)).toBe(2);
    expect(pruneSavings({ input: 3, cacheRead: 0.3, cacheWrite: 3.75 }, 1_000_000, 3)).toBeCloseTo(3.75 + 0.6);
    expect(pruneSavings({ input: 3, cacheRead: 0.3, cacheWrite: 3.75 }, 1_000_000, 0)).toBe(0);
  });
});
