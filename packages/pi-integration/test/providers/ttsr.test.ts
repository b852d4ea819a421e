/**
 * pi-ttsr on every provider wire format, in strict mode, in a real AgentSession with pi's real client for
 * the real model (thinking on): interrupt and retry on text, thinking and tool arguments, a retry after a
 * tool ran, and `contextMode: keep` never carrying the aborted attempt's thinking into the retry.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createTestSession, messageText, type TestSession } from "@pi-rails/testkit";
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
let t: TestSession | undefined;
afterEach(async () => {
  await t?.dispose();
  t = undefined;
});

const NO_EVAL = ruleFile(
  { description: "no eval", condition: "\\beval\\(", scope: "text" },
  "Never call eval(). Parse the input with JSON.parse.",
);
const NO_RM_RF = ruleFile(
  { description: "no rm -rf", condition: "rm -rf /", scope: "thinking" },
  "Never plan to delete the root directory.",
);
const NO_ANY = ruleFile({ condition: ":\\s*any\\b", scope: "tool:write(*.ts)" }, "Never use any.");

async function session(
  files: Record<string, string>,
  server = servers["anthropic-messages"],
  projectSettings?: Record<string, unknown>,
) {
  t = await createTestSession({
    model: { kind: "provider", server },
    thinkingLevel: "medium",
    extensionPaths: [TTSR_DIR],
    files,
    ...(projectSettings ? { projectSettings } : {}),
  });
  return t;
}

describe.each(FORMATS)("pi-ttsr on %s (strict)", (format) => {
  it("interrupts a text rule mid-stream and retries with the rule; the partial is gone", async () => {
    const requests = script(servers[format], [
      { thinking: "Plan the answer.", text: `Easy: just call eval(input) on it.${LONG_TAIL}`, delayMs: ABORT_PACE_MS },
      { thinking: "Use a parser.", text: "Use JSON.parse(input) instead." },
    ]);
    const s = await session({ ".pi/rules/no-eval.md": NO_EVAL }, servers[format]);
    const reply = await s.prompt("parse this");
    expect(messageText(reply)).toBe("Use JSON.parse(input) instead.");
    const [first, retry] = requests();
    expect(requests()).toHaveLength(2);
    expect(first?.closedEarly).toBe(true);
    expect(first!.deltasSent).toBeLessThan(first!.deltasPlanned);
    expect(sent(first)).not.toContain("Never call eval()");
    expect(sent(retry)).toContain('system-interrupt reason=\\"rule_violation\\" rule=\\"no-eval\\"');
    expect(sent(retry)).not.toContain("eval(input)");
    expectAllAccepted(requests());
  });

  it("interrupts a thinking rule while the model thinks; the unsigned partial thinking is not sent back", async () => {
    const requests = script(servers[format], [
      { thinking: `Simplest is rm -rf / and start over.${LONG_TAIL}`, text: "Done.", delayMs: ABORT_PACE_MS },
      { thinking: "Only clean the build folder.", text: "I will clean build/ only." },
    ]);
    const s = await session({ ".pi/rules/no-rm-rf.md": NO_RM_RF }, servers[format]);
    const reply = await s.prompt("clean up");
    expect(messageText(reply)).toBe("I will clean build/ only.");
    const [first, retry] = requests();
    expect(first?.closedEarly).toBe(true);
    expect(sent(retry)).toContain("Never plan to delete the root directory.");
    expect(sent(retry)).not.toContain("rm -rf /");
    expect(thinkingSent(retry!)).toEqual([]);
    expectAllAccepted(requests());
  });

  it("a thinking rule sees only what the provider streams: hidden (redacted) thinking cannot fire it", async () => {
    const requests = script(servers[format], [
      { thinking: "Simplest is rm -rf / and start over.", thinkingRedacted: true, text: "I cleaned build/." },
    ]);
    const s = await session({ ".pi/rules/no-rm-rf.md": NO_RM_RF }, servers[format]);
    const reply = await s.prompt("clean up");
    expect(messageText(reply)).toBe("I cleaned build/.");
    expect(requests()).toHaveLength(1);
    expect(requests()[0]?.closedEarly).toBe(false);
    expectAllAccepted(requests());
  });

  it("stops a tool call whose arguments break a path-scoped rule, before the tool runs", async () => {
    const bad = `export const x: any = 1;\n${"// more code\n".repeat(600)}`;
    const requests = script(servers[format], [
      {
        thinking: "Write the file.",
        toolCalls: [{ name: "write", arguments: { path: "src/a.ts", content: bad } }],
        delayMs: ABORT_PACE_MS,
      },
      {
        thinking: "Typed this time.",
        toolCalls: [{ name: "write", arguments: { path: "src/a.ts", content: "export const x: number = 1;\n" } }],
      },
      { thinking: "Done.", text: "Written." },
    ]);
    const s = await session({ ".pi/rules/no-any.md": NO_ANY }, servers[format]);
    const reply = await s.prompt("write it");
    expect(messageText(reply)).toBe("Written.");
    const [first, retry] = requests();
    // Gemini sends a call whole (one delta): the rule fires once it has arrived, still before the tool runs.
    if (format !== "google-generative-ai") {
      expect(first?.closedEarly).toBe(true);
      expect(first!.deltasSent).toBeLessThan(first!.deltasPlanned);
    }
    expect(sent(retry)).toContain("Never use any.");
    expect(sent(retry)).not.toContain("x: any");
    expect(readFileSync(join(s.cwd, "src", "a.ts"), "utf8")).toBe("export const x: number = 1;\n");
    expect(requests()).toHaveLength(3);
    expectAllAccepted(requests());
  });

  it("retries after a tool ran: the retry carries the signed tool turn and its result, and the API accepts it", async () => {
    const requests = script(servers[format], [
      { thinking: "Read the file first.", toolCalls: [{ name: "read", arguments: { path: "input.json" } }] },
      { thinking: "Now answer.", text: `It holds JSON; eval(input) reads it.${LONG_TAIL}`, delayMs: ABORT_PACE_MS },
      { thinking: "Parse it properly.", text: "It holds JSON; JSON.parse(input) reads it." },
    ]);
    const s = await session({ ".pi/rules/no-eval.md": NO_EVAL, "input.json": '{"a":1}\n' }, servers[format]);
    const reply = await s.prompt("what is in input.json?");
    expect(messageText(reply)).toBe("It holds JSON; JSON.parse(input) reads it.");
    const [, aborted, retry] = requests();
    expect(aborted?.closedEarly).toBe(true);
    expect(sent(retry)).toContain('{\\"a\\":1}');
    expect(sent(retry)).toContain("system-interrupt");
    expect(sent(retry)).not.toContain("eval(input)");
    // The completed tool turn goes back with its thinking signature (what strict mode checks).
    if (format === "anthropic-messages" || format === "openai-responses") expect(thinkingSent(retry!)).toHaveLength(1);
    if (format === "google-generative-ai") expect(sent(retry)).toContain("thoughtSignature");
    expectAllAccepted(requests());
  });

  it("contextMode keep keeps only the partial text: the aborted attempt's thinking never reaches the retry", async () => {
    const requests = script(servers[format], [
      {
        thinking: "ABORTED-THINKING plan.",
        text: `Start of the answer. Then eval(input) it.${LONG_TAIL}`,
        delayMs: ABORT_PACE_MS,
      },
      { thinking: "Parse instead.", text: "Use JSON.parse(input)." },
    ]);
    const s = await session({ ".pi/rules/no-eval.md": NO_EVAL }, servers[format], { ttsr: { contextMode: "keep" } });
    const reply = await s.prompt("parse this");
    expect(messageText(reply)).toBe("Use JSON.parse(input).");
    const [first, retry] = requests();
    expect(first?.closedEarly).toBe(true);
    expect(sent(retry)).toContain("Start of the answer.");
    expect(sent(retry)).not.toContain("ABORTED-THINKING");
    expect(thinkingSent(retry!)).toEqual([]);
    expectAllAccepted(requests());
  });
});
