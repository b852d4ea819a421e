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
      ttl: { seconds: 300, source: "provider" },
      model: { provider: "anthropic", id: "claude-x", cost: { input: 3, cacheRead: 0.3, cacheWrite: 3.75 } },
      problems: [],
    });
    expect(report).toContain("Prompt cache is warm for about 250s more. TTL 300s (provider), buffer 10s.");
    expect(report).toMatch(/Pruned: 1 blocks in 1 prune\(s\), about 9,9\d\d tokens less per request/);
    expect(report).toContain(`${id} (read src/big.ts)`);
    // Two requests so far: the prune's write avoided, then one read avoided.
    expect(report).toMatch(
      /Saved in this process: about 19,9\d\d prompt tokens, \$0\.04 at anthropic\/claude-x prices/,
    );
  });

  it("says pruning is off and lists settings problems", () => {
    const view = new SessionView({ ...defaultSettings(), enabled: false });
    const report = statusReport(view, {
      now: 0,
      ttl: { seconds: undefined, source: "unknown-provider" },
      model: undefined,
      problems: [{ file: "/p/.pi/settings.json", key: "cacheTtl.x", message: "unknown key" }],
    });
    expect(report).toContain("/p/.pi/settings.json: cacheTtl.x: unknown key");
    expect(report).toContain("Pruning is off. no TTL (unknown-provider).");
  });
});
