import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const run = promisify(execFile);
const repoRoot = join(import.meta.dirname, "..", "..", "..");

// README promises `pnpm demo` as the main job: keep its story true.
describe("pnpm demo", () => {
  it("runs the real pi on the embedded model: a TTSR rule fires, an expired view is pruned, a running tool is cancelled", async () => {
    // As a user on a fresh machine runs it: `pnpm demo`, with no turbo config yet (its first run prints a
    // telemetry banner unless the demo keeps it out).
    const freshConfig = mkdtempSync(join(tmpdir(), "pi-rails-demo-config-"));
    const { stdout, stderr } = await run("pnpm", ["demo"], {
      cwd: repoRoot,
      timeout: 150_000,
      env: {
        ...process.env,
        NO_COLOR: "1",
        XDG_CONFIG_HOME: freshConfig,
        TURBO_TELEMETRY_DISABLED: "",
        DO_NOT_TRACK: "",
      },
    }).finally(() => rmSync(freshConfig, { recursive: true, force: true }));
    expect(`${stdout}${stderr}`).not.toMatch(/telemetry|turbo\.build|Tasks:/i);
    expect(stdout).toContain("always-apply rule in the system prompt: yes");
    expect(stdout).toContain("TTSR rule text in the prompt:           no (0 tokens until it fires)");
    expect(stdout).toMatch(/first stream closed by pi after \d+ of \d+ chunks/);
    expect(stdout).toContain('injected: <system-interrupt reason="rule_violation" rule="no-legacy-fetch"');
    expect(stdout).toContain("the dropped partial sent again: no");
    expect(stdout).toContain('fetchV2("/api/user"');
    expect(stdout).toMatch(/custom_message \(ttsr:injection, hidden from the UI, seen by the model\)/);
    // Stage 2: cache-ttl-view prunes the expired view; the session file keeps the original.
    expect(stdout).toContain("the 50 KB file is in the request: no");
    expect(stdout).toMatch(/\[SYSTEM MESSAGE\] Context was pruned because the prompt cache TTL \(300s\) was exceeded/);
    expect(stdout).toContain("still holds the original log: yes");
    // Stage 3: pi-steer cancels the running bash from a second process; pi finishes normally.
    expect(stdout).toContain("cancelled: call_slow_suite (bash)");
    expect(stdout).toMatch(/sleep \(pid \d+\) is gone \d+ ms after the cancel request/);
    expect(stdout).toContain("Tool call call_slow_suite (bash) was cancelled by the host: user clicked stop");
    expect(stdout).toContain("pi finished (exit 0)");
  }, 180_000);

  it("--stock: the same three stages on the published pi 1.6 (no patch), saying what differs", async () => {
    const { stdout } = await run("pnpm", ["-s", "demo", "--stock"], {
      cwd: repoRoot,
      timeout: 300_000,
      env: { ...process.env, NO_COLOR: "1" },
    });
    expect(stdout).toContain("pi-rails on stock pi 1.6 (the published @earendil-works/pi-coding-agent, no patch)");
    expect(stdout).not.toMatch(/\$ pi[^\n]*pi-rails/);
    // Stage 1: the extension stops the run at the match and starts it again with the rule, without the partial.
    expect(stdout).toContain("pi-ttsr stopped the run at that delta (ctx.abort");
    expect(stdout).toContain('injected: <system-interrupt reason="rule_violation" rule="no-legacy-fetch"');
    expect(stdout).toContain("the dropped partial sent again: no");
    expect(stdout).toContain('fetchV2("/api/user"');
    expect(stdout).toContain("the retry is a new run; the text before the match streams on both pis and is cleared");
    expect(stdout).toContain("message (assistant, empty: the interrupted attempt, kept for its usage, never sent)");
    // Stages 2 and 3 work as on the patched pi.
    expect(stdout).toContain("the 50 KB file is in the request: no");
    expect(stdout).toContain("still holds the original log: yes");
    expect(stdout).toContain("Tool call call_slow_suite (bash) was cancelled by the host: user clicked stop");
    expect(stdout).toContain("pi finished (exit 0)");
  }, 320_000);
});
