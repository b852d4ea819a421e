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
  it("runs the real pi with pi-ttsr and rulebook on the embedded model and tells what happened", async () => {
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
    expect(stdout).toMatch(/custom_message \(ttsr-injection, hidden from the UI, seen by the model\)/);
  }, 180_000);
});
