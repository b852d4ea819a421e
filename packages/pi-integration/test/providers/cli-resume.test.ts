/**
 * The real `pi` CLI with pi-ttsr on every provider wire format, in strict mode: `pi --mode json -p` is
 * interrupted by a rule and retries (one `stream_abort`), the session file keeps the signed tool turn, and
 * `pi -p --continue` in a new process sends it back, signatures and all, which the strict server accepts.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { type CliHome, prepareCliHome, runPi } from "@pi-rails/testkit";
import { afterEach, describe, expect, it } from "vitest";
import {
  ABORT_PACE_MS,
  expectAllAccepted,
  FORMATS,
  LONG_TAIL,
  ruleFile,
  script,
  sent,
  TTSR_DIR,
  thinkingSent,
  useStrictServers,
} from "./helpers.ts";

const servers = useStrictServers();
let home: CliHome | undefined;
afterEach(() => {
  home?.dispose();
  home = undefined;
});

const NO_EVAL = ruleFile({ condition: "\\beval\\(", scope: "text" }, "Never call eval(). Use JSON.parse.");

function sessionLines(agentDir: string): string {
  const dir = join(agentDir, "sessions");
  const files = readdirSync(dir, { recursive: true, encoding: "utf8" }).filter((name) => name.endsWith(".jsonl"));
  expect(files).toHaveLength(1);
  return readFileSync(join(dir, files[0]!), "utf8");
}

describe.each(FORMATS)("pi CLI with pi-ttsr on %s (strict)", (format) => {
  it("interrupts and retries in --mode json; --continue in a new process replays the signed turns", async () => {
    const requests = script(servers[format], [
      { thinking: "Read it first.", toolCalls: [{ name: "read", arguments: { path: "input.json" } }] },
      { thinking: "Answer now.", text: `It is JSON: eval(input) it.${LONG_TAIL}`, delayMs: ABORT_PACE_MS },
      { thinking: "Parse instead.", text: "It is JSON: JSON.parse(input) it." },
      { thinking: "Still JSON.", text: "Yes, still JSON." },
    ]);
    home = prepareCliHome({
      server: servers[format],
      settings: { defaultThinkingLevel: "medium" },
      files: { ".pi/rules/no-eval.md": NO_EVAL, "input.json": '{"a":1}\n' },
    });
    const first = await runPi(["-e", TTSR_DIR, "--mode", "json", "-p", "what is in input.json?"], { home });
    expect(first.code, first.stderr).toBe(0);
    expect(first.nonJsonLines).toEqual([]);
    const types = first.events.map((event) => (event as { type: string }).type);
    expect(types.filter((type) => type === "stream_abort")).toHaveLength(1);
    expect(requests()[1]?.closedEarly).toBe(true);
    const persisted = sessionLines(home.agentDir);
    expect(persisted).toContain("It is JSON: JSON.parse(input) it.");
    expect(persisted).not.toContain("eval(input) it");

    const resumed = await runPi(["-e", TTSR_DIR, "-p", "--continue", "still?"], { home });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stdout).toBe("Yes, still JSON.\n");
    const replay = requests()[3]!;
    expect(sent(replay)).toContain("It is JSON: JSON.parse(input) it.");
    expect(sent(replay)).not.toContain("eval(input) it");
    // The tool turn and the answer went back with their thinking (Anthropic, Responses) or signature (Gemini).
    if (format === "anthropic-messages" || format === "openai-responses") expect(thinkingSent(replay)).toHaveLength(2);
    if (format === "google-generative-ai") expect(sent(replay)).toContain("thoughtSignature");
    expectAllAccepted(requests());
    expect(requests()).toHaveLength(4);
  });
});
