import { existsSync, mkdirSync, readdirSync, renameSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { RACY_CHANGE_MS } from "@pi-rails/agent-core/kit";
import { closeAfterEach, prepareCliHome, runPi, startModelServer } from "@pi-rails/testkit";
import { afterEach, describe, expect, it } from "vitest";
import { ruleFile } from "./helpers.ts";

/** Wall time is not what these tests measure: a loaded machine (2 cores, many runs) may take this long. */
const E2E_TIMEOUT_MS = 180_000;
const PACKAGE_DIR = join(dirname(fileURLToPath(import.meta.url)), "..");
const keep = closeAfterEach(afterEach);

const interruptedBy = (messages: unknown, rule: string) =>
  JSON.stringify(messages).includes(`reason=\\"rule_violation\\" rule=\\"${rule}\\"`);

/**
 * The start-up snapshots of an agent dir's default cache, with their inodes: a snapshot is written whole to a new
 * file renamed into place, and a start that reads one only refreshes its times (for pruning).
 */
function snapshots(agentDir: string): Array<{ name: string; ino: number }> {
  const dir = join(agentDir, "cache", "pi-ttsr", "startup");
  if (!existsSync(dir)) return [];
  return readdirSync(dir).map((name) => ({ name, ino: statSync(join(dir, name)).ino }));
}

/** Saves as editors do: a new file renamed over the old one. */
function save(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(`${path}.new`, text);
  renameSync(`${path}.new`, path);
}

/** Until every file written so far is older than the snapshot's racy window (a lower bound, not a race). */
const settle = () => new Promise((resolve) => setTimeout(resolve, RACY_CHANGE_MS + 200));

describe("the start-up snapshot (real pi -p)", { timeout: E2E_TIMEOUT_MS }, () => {
  it("a start with nothing changed reads it; an edited, added or disabled rule is seen at the next start", async () => {
    const violating = "Use old_api() here, then call legacyHelper() and done.";
    const server = keep(
      await startModelServer({
        script: [
          // 1: the first start (reads the files, keeps the snapshot): no rule matches
          { text: violating, chunkSize: 4 },
          // 2: nothing changed (the snapshot): still none
          { text: violating, chunkSize: 4 },
          // 3: the rule edited to match old_api(: fires, the retry answers clean
          { text: violating, chunkSize: 4 },
          { text: "Use new_api() here.", chunkSize: 4 },
          // 4: a rule added in Cursor's folder: fires on legacyHelper(
          { text: "Call legacyHelper() now.", chunkSize: 4 },
          { text: "Call modernHelper() now.", chunkSize: 4 },
          // 5: the project disables that rule in its settings: nothing fires
          { text: "Call legacyHelper() now.", chunkSize: 4 },
        ],
      }),
    );
    const home = keep(
      prepareCliHome({
        server,
        files: {
          ".pi/rules/no-old-api.md": ruleFile(
            { description: "old api", condition: "never_matches_this\\(", scope: "text" },
            "Use new_api().",
          ),
        },
      }),
    );
    const rule = join(home.cwd, ".pi/rules/no-old-api.md");
    const pi = async () => {
      const run = await runPi(["-e", PACKAGE_DIR, "-p", "write it"], { home });
      expect(run.code, run.stderr).toBe(0);
      return run;
    };
    await settle();
    await pi();
    const kept = snapshots(home.agentDir);
    expect(kept).toHaveLength(1);
    expect(server.requests).toHaveLength(1);

    await pi();
    // read, not rewritten
    expect(snapshots(home.agentDir)).toEqual(kept);
    expect(server.requests).toHaveLength(2);

    // Each change below is made, then left to settle, so the start before it had kept a snapshot of its own.
    save(rule, ruleFile({ description: "old api", condition: "old_api\\(", scope: "text" }, "Use new_api()."));
    await settle();
    const edited = await pi();
    const rewritten = snapshots(home.agentDir);
    expect(rewritten[0]!.ino).not.toBe(kept[0]!.ino);
    expect(server.requests).toHaveLength(4);
    expect(interruptedBy(server.requests[3]!.messages, "no-old-api")).toBe(true);
    expect(edited.stdout).toContain("new_api()");

    save(
      join(home.cwd, ".cursor/rules/no-legacy.mdc"),
      ruleFile({ description: "legacy", ttsr_trigger: "legacyHelper\\(" }, "Use modernHelper()."),
    );
    await settle();
    await pi();
    expect(server.requests).toHaveLength(6);
    expect(interruptedBy(server.requests[5]!.messages, "no-legacy")).toBe(true);

    save(join(home.cwd, ".pi/settings.json"), JSON.stringify({ ttsr: { disabledRules: ["no-legacy"] } }));
    await settle();
    const disabled = await pi();
    expect(server.requests).toHaveLength(7);
    expect(disabled.stdout).toContain("legacyHelper()");
  });
});
