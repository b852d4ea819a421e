import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterEach, describe, expect, it } from "vitest";
import { disposeScenario, expiryScenario, PACKAGE_DIR, type Scenario } from "./cli-scenario.ts";

const BIN = join(PACKAGE_DIR, "bin", "cache-ttl.mjs");
const run = promisify(execFile);
const scenario: Scenario = {};
afterEach(() => disposeScenario(scenario));

describe("pi -p with cache-ttl-view (real CLI, loopback model)", () => {
  it("prunes a 50 KB read once the TTL has passed; the session file keeps it; the next prefix is byte-identical", async () => {
    await expiryScenario(scenario);
    const file = scenario.sessionFile as string;
    const env = { ...process.env, HOME: scenario.home?.home, PI_CODING_AGENT_DIR: scenario.home?.agentDir };

    // README: `cache-ttl report <session.jsonl>` and `--json` replay that very file.
    const text = await run(process.execPath, [BIN, "report", file], { env });
    expect(text.stdout).toMatch(/total baseline: [\d,]+ written/);
    // The runs were seconds apart in real time; a 1 ms TTL makes the replay see the second run as cold.
    const { stdout } = await run(process.execPath, [BIN, "report", file, "--json", "--ttl", "0.001"], { env });
    const report = JSON.parse(stdout);
    expect(report.requests).toHaveLength(4);
    expect(report.requests[2]).toMatchObject({ warm: false, pruned: 1 });
    expect(report.requests[2].withPruning.writeTokens).toBeLessThan(report.requests[2].baseline.writeTokens - 10_000);
  }, 240_000);
});
