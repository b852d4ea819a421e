import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const run = promisify(execFile);
const repoRoot = join(import.meta.dirname, "..", "..", "..");

// README promises `pnpm demo` as the main job: keep its story true.
describe("pnpm demo", () => {
  it("runs the real pi with pi-ttsr and rulebook on the embedded model and tells what happened", async () => {
    const { stdout } = await run(process.execPath, [join(repoRoot, "scripts", "demo.mjs")], {
      cwd: repoRoot,
      timeout: 90_000,
      env: { ...process.env, NO_COLOR: "1" },
    });
    expect(stdout).toContain("always-apply rule in the system prompt: yes");
    expect(stdout).toContain("TTSR rule text in the prompt:           no (0 tokens until it fires)");
    expect(stdout).toMatch(/first stream closed by pi after \d+ of \d+ chunks/);
    expect(stdout).toContain('injected: <system-interrupt reason="rule_violation" rule="no-legacy-fetch"');
    expect(stdout).toContain("the dropped partial sent again: no");
    expect(stdout).toContain('fetchV2("/api/user"');
    expect(stdout).toMatch(/custom_message \(ttsr-injection, hidden from the UI, seen by the model\)/);
  }, 120_000);
});
