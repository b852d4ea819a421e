import { existsSync, readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { closeAfterEach, prepareCliHome, runPi, startModelServer } from "@pi-rails/testkit";
import { afterEach, describe, expect, it } from "vitest";
import { DEFERRED_MAX_TEXT } from "../src/matcher/deferred.ts";
import { ruleFile } from "./helpers.ts";

/** Wall time is not what these tests measure: a loaded machine (2 cores, many runs) may take this long. */
const E2E_TIMEOUT_MS = 180_000;
const PACKAGE_DIR = join(dirname(fileURLToPath(import.meta.url)), "..");
const keep = closeAfterEach(afterEach);

/** Regex rules (not plain strings), so a first start defers them; one with `i`, which the linear engine lacks. */
const RULES = {
  ".pi/rules/no-eval.md": ruleFile(
    { description: "no eval", condition: "\\beval\\(\\s*[a-z]", scope: "text" },
    "Never call eval(). Parse the input with JSON.parse.",
  ),
  ".pi/rules/no-any.md": ruleFile(
    { description: "no any", condition: ":\\s*ANY[\\s;,)]", flags: "i", scope: "text" },
    "Do not type anything as any.",
  ),
};

/** Files of the compile cache: whole-set files and pattern files. */
function cacheFiles(agentDir: string): { sets: string[]; patterns: string[] } {
  const root = join(agentDir, "cache", "pi-ttsr");
  const folder = existsSync(root) ? readdirSync(root).find((n) => n.startsWith("patterns-")) : undefined;
  const names = folder ? readdirSync(join(root, folder)) : [];
  return { sets: names.filter((n) => n.startsWith("set-")), patterns: names.filter((n) => !n.startsWith("set-")) };
}

const interruptedBy = (messages: unknown, rule: string) =>
  JSON.stringify(messages).includes(`reason=\\"rule_violation\\" rule=\\"${rule}\\"`);

const TITLE = "a first start defers compiling regex rules (real pi -p, cold compile cache)";
describe(TITLE, { timeout: E2E_TIMEOUT_MS }, () => {
  it("a short answer is checked exactly without compiling them; nothing compiled is written", async () => {
    const server = keep(
      await startModelServer({
        script: [
          { text: "Here: const x: any = eval( input );", chunkSize: 3 },
          { text: "const x: unknown = JSON.parse(input);", chunkSize: 3 },
        ],
      }),
    );
    const home = keep(prepareCliHome({ server, files: RULES }));
    const run = await runPi(["-e", PACKAGE_DIR, "-p", "parse it"], { home });
    expect(run.code, run.stderr).toBe(0);
    // `: any =` completes `:\s*ANY[\s;,)]` under `i` before `eval( input` completes the other: no-any fires first.
    expect(server.requests).toHaveLength(2);
    expect(interruptedBy(server.requests[1]!.messages, "no-any")).toBe(true);
    expect(run.stdout).toContain("JSON.parse(input)");
    // nothing was compiled: no set file, no pattern file (the shipped rules come compiled with the package)
    expect(cacheFiles(home.agentDir)).toEqual({ sets: [], patterns: [] });
  });

  it("a stream that outgrows them compiles them mid-answer, still fires where the rule matches, and caches them", async () => {
    const filler = "const value = items.map((x) => x * 2); // no rule here\n".repeat(
      Math.ceil((DEFERRED_MAX_TEXT * 2) / 56),
    );
    const server = keep(
      await startModelServer({
        script: [
          {
            text: `${filler}Finally: eval(payload) and done.${" More text.".repeat(400)}`,
            chunkSize: 64,
            delayMs: 3,
          },
          { text: "Parsed with JSON.parse instead.", chunkSize: 8 },
          { text: "A second session, same rules.", chunkSize: 8 },
        ],
      }),
    );
    const home = keep(prepareCliHome({ server, files: RULES }));
    const run = await runPi(["-e", PACKAGE_DIR, "-p", "write it"], { home });
    expect(run.code, run.stderr).toBe(0);
    expect(server.requests).toHaveLength(2);
    expect(server.requests[0]!.deltasSent).toBeLessThan(server.requests[0]!.deltasPlanned);
    expect(interruptedBy(server.requests[1]!.messages, "no-eval")).toBe(true);
    // compiled at once when the answer passed DEFERRED_MAX_TEXT: the whole set's file, written once
    expect(cacheFiles(home.agentDir).sets).toHaveLength(1);
    // the next start reads it: nothing deferred, nothing compiled, nothing new written
    const again = await runPi(["-e", PACKAGE_DIR, "-p", "again"], { home });
    expect(again.code, again.stderr).toBe(0);
    expect(cacheFiles(home.agentDir).sets).toHaveLength(1);
    expect(cacheFiles(home.agentDir).patterns).toEqual([]);
  });
});
