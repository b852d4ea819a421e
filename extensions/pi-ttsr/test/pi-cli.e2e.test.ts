import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { closeAfterEach, prepareCliHome, runPi, startModelServer } from "@pi-rails/testkit";
import { afterEach, describe, expect, it } from "vitest";
import { ruleFile } from "./helpers.ts";

/** Wall time is not what these tests measure: a loaded machine (2 cores, many runs) may take this long. */
const E2E_TIMEOUT_MS = 180_000;

const PACKAGE_DIR = join(dirname(fileURLToPath(import.meta.url)), "..");
const RULE = ruleFile(
  { description: "no eval", condition: "\\beval\\(", scope: "text" },
  "Never call eval(). Parse the input with JSON.parse or a real parser.",
);

const keep = closeAfterEach(afterEach);

/**
 * What streams after the point a rule fires: long enough (seconds at the scripted pace) that the abort reaches
 * the server before the response could end, however loaded the machine is. Aborted runs never stream it all.
 */
const LONG_TAIL = " And then I keep explaining at length.".repeat(150);

function userText(messages: Array<{ role: string; content?: unknown }>): string {
  return JSON.stringify(messages.filter((m) => m.role !== "system" && m.role !== "developer"));
}

describe("pi -p with pi-ttsr (patched pi, loopback model)", { timeout: E2E_TIMEOUT_MS }, () => {
  it("interrupts, retries with the rule, and a resumed session does not fire the once rule again", async () => {
    const server = keep(
      await startModelServer({
        script: [
          {
            text: `Easy: just call eval(input) on it and return the result to the caller.${LONG_TAIL}`,
            chunkSize: 4,
            delayMs: 5,
          },
          { text: "Use JSON.parse(input) instead.", chunkSize: 4 },
          { text: "Again I would eval(input) here.", chunkSize: 4 },
        ],
      }),
    );
    const home = keep(prepareCliHome({ server, files: { ".pi/rules/no-eval.md": RULE } }));

    const first = await runPi(["-e", PACKAGE_DIR, "-p", "parse this"], { home });
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain("Use JSON.parse(input) instead.");
    expect(first.stdout).not.toContain("eval(input)");
    expect(server.requests).toHaveLength(2);
    expect(server.requests[0]!.closedEarly).toBe(true);
    expect(server.requests[0]!.deltasSent).toBeLessThan(server.requests[0]!.deltasPlanned);
    // Zero tokens before: the rule text was not in the first request; the retry carries it.
    expect(JSON.stringify(server.requests[0]!.messages)).not.toContain("Never call eval()");
    const retry = userText(server.requests[1]!.messages);
    expect(retry).toContain(
      'system-interrupt reason=\\"rule_violation\\" rule=\\"no-eval\\" path=\\".pi/rules/no-eval.md\\"',
    );
    expect(retry).not.toContain("just call eval(input)");
    // The rule file is named relative to the project: no absolute path (the user's home) goes to the provider.
    expect(retry).not.toContain(home.cwd);
    expect(retry).not.toContain(home.home);

    const resumed = await runPi(["-e", PACKAGE_DIR, "-p", "--continue", "and now?"], { home });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(server.requests).toHaveLength(3);
    expect(server.requests[2]!.closedEarly).toBe(false);
    expect(resumed.stdout).toContain("Again I would eval(input) here.");
  });

  it("resumes a session written with the former entry spelling (ttsr-injection): the once rule still counts", async () => {
    const server = keep(
      await startModelServer({
        script: [
          { text: `Just call eval(input).${LONG_TAIL}`, chunkSize: 4, delayMs: 5 },
          { text: "Use JSON.parse(input) instead.", chunkSize: 4 },
          { text: "Again I would eval(input) here.", chunkSize: 4 },
        ],
      }),
    );
    const home = keep(prepareCliHome({ server, files: { ".pi/rules/no-eval.md": RULE } }));
    const first = await runPi(["-e", PACKAGE_DIR, "-p", "parse this"], { home });
    expect(first.code, first.stderr).toBe(0);
    expect(server.requests).toHaveLength(2);
    // The session file as an earlier pi-ttsr wrote it: its entry (and message) type spelled `ttsr-injection`.
    const sessions = join(home.agentDir, "sessions");
    const [file] = readdirSync(sessions, { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".jsonl"));
    const path = join(sessions, file!);
    const written = readFileSync(path, "utf8");
    const entries = written
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { type: string; customType?: string });
    expect(entries.filter((e) => e.type === "custom").map((e) => e.customType)).toEqual(["ttsr:injection"]);
    writeFileSync(path, written.replaceAll('"customType":"ttsr:injection"', '"customType":"ttsr-injection"'));

    const resumed = await runPi(["-e", PACKAGE_DIR, "-p", "--continue", "and now?"], { home });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(server.requests).toHaveLength(3);
    expect(server.requests[2]!.closedEarly).toBe(false);
    expect(resumed.stdout).toContain("Again I would eval(input) here.");
  });

  it("delivers a non-interrupting prose rule as a hidden follow-up, and pi -p prints the continued answer", async () => {
    const server = keep(
      await startModelServer({
        script: [
          { text: "Just eval(input) it.", chunkSize: 4 },
          { text: "Correction: use JSON.parse(input).", chunkSize: 4 },
        ],
      }),
    );
    const home = keep(
      prepareCliHome({
        server,
        files: { ".pi/rules/no-eval.md": RULE },
        projectSettings: { ttsr: { interruptMode: "never" } },
      }),
    );
    const run = await runPi(["-e", PACKAGE_DIR, "-p", "parse this"], { home });
    expect(run.code, run.stderr).toBe(0);
    expect(server.requests).toHaveLength(2);
    expect(server.requests[0]!.closedEarly).toBe(false);
    const second = userText(server.requests[1]!.messages);
    expect(second).toContain("Just eval(input) it.");
    expect(second).toContain('system-reminder reason=\\"rule_violation\\" rule=\\"no-eval\\"');
    expect(run.stdout).toContain("Correction: use JSON.parse(input).");
  });

  it("stops a streaming tool call whose arguments break a path-scoped rule, before the tool runs", async () => {
    const server = keep(
      await startModelServer({
        script: [
          {
            toolCalls: [
              {
                name: "write",
                arguments: { path: "src/a.ts", content: `export const x: any = 1;\n${"// more code\n".repeat(600)}` },
              },
            ],
            chunkSize: 4,
            delayMs: 5,
          },
          { toolCalls: [{ name: "write", arguments: { path: "src/a.ts", content: "export const x: number = 1;\n" } }] },
          { text: "Written." },
        ],
      }),
    );
    const home = keep(
      prepareCliHome({
        server,
        files: {
          ".pi/rules/no-any.md": ruleFile({ condition: ":\\s*any\\b", scope: "tool:write(*.ts)" }, "Never use any."),
        },
      }),
    );
    const run = await runPi(["-e", PACKAGE_DIR, "-p", "write it"], { home });
    expect(run.code, run.stderr).toBe(0);
    expect(server.requests[0]!.closedEarly).toBe(true);
    expect(server.requests[0]!.deltasSent).toBeLessThan(server.requests[0]!.deltasPlanned);
    expect(userText(server.requests[1]!.messages)).toContain("Never use any.");
    expect(readFileSync(join(home.cwd, "src", "a.ts"), "utf8")).toBe("export const x: number = 1;\n");
    expect(run.stdout).toContain("Written.");
  });

  it("says what is wrong with a rule file and goes on", async () => {
    const server = keep(await startModelServer({ script: [{ text: "fine" }] }));
    const home = keep(
      prepareCliHome({
        server,
        files: { ".pi/rules/broken.md": ruleFile({ condition: "(unclosed" }, "x"), ".pi/rules/no-eval.md": RULE },
      }),
    );
    const run = await runPi(["-e", PACKAGE_DIR, "-p", "hi"], { home });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("fine");
    expect(run.stderr).toMatch(/broken\.md \(condition\).*invalid regex/);
  });

  it("names a user rule ~/... to the provider, never by its absolute path", async () => {
    const server = keep(
      await startModelServer({
        script: [
          { text: `Sure, eval(input) does it.${LONG_TAIL}`, chunkSize: 4, delayMs: 5 },
          { text: "Use JSON.parse(input)." },
        ],
      }),
    );
    const home = keep(prepareCliHome({ server, agentFiles: { "rules/no-eval.md": RULE } }));
    const run = await runPi(["-e", PACKAGE_DIR, "-p", "parse this"], { home });
    expect(run.code, run.stderr).toBe(0);
    expect(server.requests[0]!.closedEarly).toBe(true);
    const retry = userText(server.requests[1]!.messages);
    expect(retry).toContain('rule=\\"no-eval\\" path=\\"~/.pi/agent/rules/no-eval.md\\"');
    expect(retry).not.toContain(home.home);
  });
});
