import { describe, expect, it } from "vitest";
import { SessionView } from "../engine/session-view.ts";
import { defaultSettings } from "../settings/settings.ts";
import { SessionBuilder, text } from "../testing/fixtures.ts";
import { statusReport } from "./status.ts";

describe("statusReport (/cache-ttl)", () => {
  it("shows the clock, what is pruned, and tokens and money saved at the model's prices", () => {
    const s = new SessionBuilder().user("go");
    s.tool("read", { path: "src/big.ts" }, text(40_000));
    s.assistant("done").user("next");
    const view = new SessionView(defaultSettings());
    view.render(s.clone(), { now: 100_000, ttlSeconds: 300 });
    const pruned = view.render(s.clone(), { now: 100_000 + 600_000, ttlSeconds: 300 });
    view.render(s.clone(), { now: 100_000 + 660_000, ttlSeconds: 300 });
    const id = pruned.plan?.ids[0];
    const report = statusReport(view, {
      now: 100_000 + 700_000,
      ttl: { seconds: 300, source: "api", reason: "anthropic-messages short retention" },
      messages: s.messages,
      model: { provider: "anthropic", id: "claude-x", cost: { input: 3, cacheRead: 0.3, cacheWrite: 3.75 } },
      issues: [],
    });
    expect(report).toContain(
      "Prompt cache is warm for about 250s more. TTL 300s (anthropic-messages short retention), buffer 10s.",
    );
    expect(report).toMatch(/Pruned: 1 blocks in 1 prune\(s\), about 9,9\d\d tokens less per request/);
    expect(report).toContain(`${id} (read src/big.ts)`);
    // Two requests so far: the prune's write avoided, then one read avoided.
    expect(report).toMatch(
      /Saved in this process: about 19,9\d\d prompt tokens, \$0\.04 at anthropic\/claude-x prices/,
    );
  });

  it("tokens less per request: only what is still pruned (a block restored in place saves nothing any more)", () => {
    const s = new SessionBuilder().user("go");
    s.tool("read", { path: "src/big.ts" }, text(40_000));
    s.tool("read", { path: "src/small.ts" }, text(8_000));
    s.assistant("done").user("next");
    const view = new SessionView(defaultSettings());
    view.render(s.clone(), { now: 100_000, ttlSeconds: 300 });
    const pruned = view.render(s.clone(), { now: 700_000, ttlSeconds: 300 });
    expect(pruned.plan?.ids).toHaveLength(2);
    const status = () =>
      statusReport(view, {
        now: 710_000,
        ttl: { seconds: 300, source: "settings", reason: "cacheTtl.ttlSeconds" },
        messages: s.messages,
        model: undefined,
        issues: [],
      });
    const tokensLess = () => Number(/about ([\d,]+) tokens less per request/.exec(status())?.[1]?.replaceAll(",", ""));
    expect(tokensLess()).toBe(pruned.plan?.savedTokens);
    view.apply({ kind: "restore", at: 705_000, ids: [pruned.plan?.ids[0] as string] });
    // The 40,000-char read is back: what is left is the 8,000-char one (about 2,000 tokens less the summary).
    expect(tokensLess()).toBeGreaterThan(1800);
    expect(tokensLess()).toBeLessThan(2000);
  });

  it("says pruning is off and lists settings issues", () => {
    const view = new SessionView({ ...defaultSettings(), enabled: false });
    const report = statusReport(view, {
      now: 0,
      ttl: { seconds: undefined, source: "off", reason: "x" },
      messages: [],
      model: undefined,
      issues: [{ file: "/p/.pi/settings.json", key: "cacheTtl.x", message: "unknown key" }],
    });
    expect(report).toContain("/p/.pi/settings.json: cacheTtl.x: unknown key");
    expect(report).toContain("cache-ttl-view: Pruning is off.");
  });

  it("says why pruning is off when the model's cache TTL is not known", () => {
    const view = new SessionView(defaultSettings());
    const reason = "the prompt-cache TTL of loopback/m (api openai-completions) is not known: set cacheTtl.ttlSeconds";
    const report = statusReport(view, {
      now: 0,
      ttl: { seconds: undefined, source: "off", reason },
      model: undefined,
      issues: [],
      messages: [],
    });
    expect(report).toContain(`Pruning is off: ${reason}.`);
  });

  it("labels pruned blocks from the session's messages right after a resume (before any request)", () => {
    const s = new SessionBuilder().user("go");
    s.tool("read", { path: "src/big.ts" }, text(40_000));
    s.assistant("done").user("next");
    const first = new SessionView(defaultSettings());
    first.render(s.clone(), { now: 100_000, ttlSeconds: 300 });
    const entries = first.render(s.clone(), { now: 700_000, ttlSeconds: 300 }).entries;
    const resumed = new SessionView(defaultSettings());
    resumed.load(entries);
    const report = statusReport(resumed, {
      now: 710_000,
      ttl: { seconds: 300, source: "settings", reason: "" },
      model: undefined,
      issues: [],
      messages: s.messages,
    });
    expect(report).toContain("(read src/big.ts)");
    expect(report).not.toContain("not in the current view");
  });

  it("says which way the view went with pi's cache warming, and why (also after a reload: the choice is persisted)", () => {
    const reason = "expiring and pruning costs less: …";
    const live = new SessionView(defaultSettings());
    const entry = live.apply({ kind: "warming", at: 100_000, chosen: "prune", reason });
    const reloaded = new SessionView(defaultSettings());
    reloaded.load([entry]);
    for (const view of [live, reloaded]) {
      const report = statusReport(view, {
        now: 130_000,
        ttl: { seconds: 300, source: "settings", reason: "" },
        model: undefined,
        issues: [],
        messages: [],
      });
      expect(report).toContain(`pi's cache warming, 30s ago: prune: ${reason}.`);
    }
  });
});
