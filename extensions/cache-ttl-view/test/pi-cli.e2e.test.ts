import { execFile } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { WIRE_FORMATS } from "@pi-rails/testkit";
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
    expect(text.stdout).toContain("with pruning: what cache-ttl-view did in this session");
    // Recorded with the extension: the report replays its prune (made on its own clock, ten minutes on), not what
    // the file's timestamps (seconds apart) or the settings now would decide.
    const recorded = async () =>
      JSON.parse((await run(process.execPath, [BIN, "report", file, "--json"], { env })).stdout);
    const did = await recorded();
    expect(did.mode).toBe("recorded");
    expect(did.requests.map((r: { pruned: number }) => r.pruned)).toEqual([0, 0, 1, 0]);
    expect(did.requests[2].withPruning.writeTokens + did.requests[2].withPruning.readTokens).toBeLessThan(
      did.requests[2].baseline.writeTokens + did.requests[2].baseline.readTokens - 10_000,
    );
    // Settings changed since (nothing would be pruned now, and other caps): the same replay.
    writeFileSync(
      join(scenario.home?.cwd as string, ".pi", "settings.json"),
      JSON.stringify({ cacheTtl: { ttlSeconds: 300, keepRecentTurns: 50, maxTextChars: 40 } }),
    );
    expect(await recorded()).toEqual(did);
    // The runs were seconds apart in real time; a 1 ms TTL makes the replay see the second run as cold.
    const { stdout } = await run(process.execPath, [BIN, "report", file, "--json", "--ttl", "0.001"], { env });
    const report = JSON.parse(stdout);
    expect(report.mode).toBe("simulated");
    expect(report.requests).toHaveLength(4);
    expect(report.requests[2]).toMatchObject({ warm: false, pruned: 1 });
    expect(report.requests[2].withPruning.writeTokens).toBeLessThan(report.requests[2].baseline.writeTokens - 10_000);
  }, 240_000);
});

// The same three runs of the real CLI on the other wire formats: pi's catalogue model of the format (its TTL from the
// model's promptCache or its API), against a strict loopback server of that API.
describe.each(WIRE_FORMATS.filter((format) => format !== "openai-completions"))("pi -p on %s (real CLI)", (format) => {
  it("prunes once the TTL has passed, sends requests the API accepts, and repeats the pruned prefix", async () => {
    await expiryScenario(scenario, undefined, format);
    expect(scenario.server?.requests.map((r) => r.rejected?.message).filter(Boolean)).toEqual([]);
  }, 240_000);
});
